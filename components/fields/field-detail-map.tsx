'use client';
// The field's map on its page: the boundary, and of the chosen scan its mosaic, index and zones as
// layers with their opacity (tiles from GET /api/scans/{id}/tiles/{layer}/…), the base map to choose,
// and two scans compared with a swipe.
import 'leaflet/dist/leaflet.css';
import L from 'leaflet';
import { useFormatter, useLocale, useTranslations } from 'next-intl';
import { useEffect, useId, useMemo, useState } from 'react';
import { GeoJSON, MapContainer, useMap } from 'react-leaflet';
import { localizeZoneName } from '@/lib/i18n/formats';
import { textElement } from '@/lib/ui/text-element';
import type { PreviewLegend as Legend } from '@/lib/raster/ramp';
import type { BaseLayer, FieldGeometry } from '@/lib/ui/types';
import { BaseTiles, MAP_MAX_ZOOM, ZoomButtons } from '../map/base-map';
import { CompareLayers, SwipeControl } from '../map/compare-swipe';
import { LayerPanel, type OverlayControl } from '../map/layer-panel';
import { type ScanLayer, ScanTiles } from '../map/scan-tiles';
import { PreviewLegend } from './preview-legend';

export interface ZoneFeatureCollection {
  type: 'FeatureCollection';
  features: { type: 'Feature'; id: number; properties: { class: number; name: string; color: string; area_ha: number; mean: number }; geometry: object }[];
}

/** A completed scan of the field as the map offers it: its date and the tile layers it has. */
export interface MapScan {
  id: number;
  index: string | null;
  /** When its image was taken, else when it was uploaded. */
  date: string;
  layers: ScanLayer[];
}

export interface FieldDetailMapProps {
  geometry: FieldGeometry;
  baseLayers: BaseLayer[];
  /** The field's completed scans, the latest taken first, and the one chosen on the page. */
  scans: MapScan[];
  chosen: number | null;
  /** What the chosen scan's index colours mean. */
  legend: Legend | null;
  zones: ZoneFeatureCollection | null;
}

function Fit({ geometry }: { geometry: FieldGeometry }) {
  const map = useMap();
  useEffect(() => {
    map.fitBounds(L.geoJSON(geometry).getBounds(), { padding: [16, 16] });
  }, [map, geometry]);
  return null;
}

type Layers = Record<ScanLayer | 'zones', { on: boolean; opacity: number }>;

export default function FieldDetailMap({ geometry, baseLayers, scans, chosen, legend, zones }: FieldDetailMapProps) {
  const t = useTranslations();
  const locale = useLocale();
  const format = useFormatter();
  const scan = scans.find((s) => s.id === chosen) ?? null;
  const has = (layer: ScanLayer) => !!scan?.layers.includes(layer);
  // A drone survey opens on its mosaic (the ground as photographed), an index raster on its colours.
  const [layers, setLayers] = useState<Layers>(() => ({ ortho: { on: true, opacity: 1 }, index: { on: !scan?.layers.includes('ortho'), opacity: 0.85 }, zones: { on: true, opacity: 1 } }));
  const [base, setBase] = useState(0);
  const formId = useId();
  const [compare, setCompare] = useState<{ left: number; right: number; layer: ScanLayer; position: number } | null>(null);
  // Tiles are asked for around the field only: a scan reaching far past it is seen past the edge of the view anyway.
  const bounds = useMemo(() => L.geoJSON(geometry).getBounds().pad(1), [geometry]);
  const dateOf = (s: MapScan) => format.dateTime(new Date(s.date), { dateStyle: 'medium' });
  const scanLabel = (s: MapScan) => `${dateOf(s)}${s.index ? ` · ${s.index.toUpperCase()}` : ''}`;

  const row = (id: ScanLayer | 'zones', label: string): OverlayControl => ({
    id,
    label,
    ...layers[id],
    onToggle: (on) => setLayers((l) => ({ ...l, [id]: { ...l[id], on } })),
    onOpacity: (opacity) => setLayers((l) => ({ ...l, [id]: { ...l[id], opacity } })),
  });
  const hasZones = !!zones?.features.length;
  const overlays = compare
    ? []
    : [...(has('ortho') ? [row('ortho', t('field.layer_orthomosaic'))] : []), ...(has('index') ? [row('index', t('field.layer_index'))] : []), ...(hasZones ? [row('zones', t('field.layer_zones'))] : [])];
  const show = (id: ScanLayer | 'zones') => !compare && layers[id].on && (id === 'zones' ? hasZones : has(id));
  const byId = (id: number) => scans.find((s) => s.id === id)!;

  const compareForm =
    scans.length >= 2 ? (
      <div className="space-y-1 border-t border-stone-200 pt-2" data-testid="compare-form">
        <label className="flex items-center gap-1.5">
          <input
            type="checkbox"
            checked={!!compare}
            onChange={(e) => setCompare(e.target.checked ? { left: scans[1]!.id, right: scans[0]!.id, layer: scans[0]!.layers.includes('index') ? 'index' : 'ortho', position: 0.5 } : null)}
          />
          {t('map.compare')}
        </label>
        {compare && (
          <>
            {(['left', 'right'] as const).map((side) => (
              <div key={side}>
                <label className="block text-xs" htmlFor={`${formId}-${side}`}>
                  {t(side === 'left' ? 'map.compare_left' : 'map.compare_right')}
                </label>
                <select id={`${formId}-${side}`} value={compare[side]} onChange={(e) => setCompare({ ...compare, [side]: Number(e.target.value) })} className="w-full rounded border border-stone-300 bg-white px-1 py-0.5 text-xs">
                  {scans.map((s) => (
                    <option key={s.id} value={s.id}>
                      {scanLabel(s)}
                    </option>
                  ))}
                </select>
              </div>
            ))}
            <label className="block text-xs" htmlFor={`${formId}-layer`}>
              {t('map.compare_layer')}
            </label>
            <select id={`${formId}-layer`} value={compare.layer} onChange={(e) => setCompare({ ...compare, layer: e.target.value as ScanLayer })} className="w-full rounded border border-stone-300 bg-white px-1 py-0.5 text-xs">
              <option value="index">{t('field.layer_index')}</option>
              <option value="ortho">{t('field.layer_orthomosaic')}</option>
            </select>
          </>
        )}
      </div>
    ) : null;

  return (
    <div className="relative h-[calc(100dvh-9rem)] min-h-[360px] overflow-hidden rounded-lg border border-stone-200" data-testid="field-detail-map">
      <MapContainer center={[0, 0]} zoom={2} maxZoom={MAP_MAX_ZOOM} zoomControl={false} className="h-full w-full bg-stone-200">
        <BaseTiles layer={baseLayers[base]!} />
        <ZoomButtons />
        {scan && show('ortho') && <ScanTiles scanId={scan.id} layer="ortho" opacity={layers.ortho.opacity} bounds={bounds} />}
        {scan && show('index') && <ScanTiles scanId={scan.id} layer="index" opacity={layers.index.opacity} bounds={bounds} />}
        {compare && <CompareLayers left={compare.left} right={compare.right} layer={compare.layer} position={compare.position} bounds={bounds} />}
        {zones && show('zones') && (
          <GeoJSON
            key={zones.features.map((z) => z.id).join(',')}
            data={zones as GeoJSON.FeatureCollection}
            style={(f) => ({
              color: '#1c1917',
              weight: 1,
              opacity: layers.zones.opacity,
              fillColor: (f?.properties as { color?: string } | undefined)?.color ?? '#999',
              fillOpacity: (show('ortho') || show('index') ? 0.25 : 0.6) * layers.zones.opacity,
              className: 'fm-zone',
            })}
            onEachFeature={(f, layer) => {
              const p = f.properties as { name: string; area_ha: number; mean: number | null };
              const name = localizeZoneName(p.name, locale);
              // What an agronomist hovering a zone asks: how big it is and its mean, beside its range.
              const details = t('field.zone_tooltip', {
                name,
                area: format.number(p.area_ha, { minimumFractionDigits: 2, maximumFractionDigits: 2 }),
                mean: p.mean == null ? '—' : format.number(p.mean, { minimumFractionDigits: 3, maximumFractionDigits: 3 }),
              });
              layer.bindTooltip(textElement(details), { sticky: true });
              // Each zone is a stop of Tab (its tooltip on hover): named for a screen reader too.
              layer.on('add', () => (layer as L.Path).getElement?.()?.setAttribute('aria-label', name));
            }}
          />
        )}
        <GeoJSON key={JSON.stringify(geometry).length} data={geometry as GeoJSON.Geometry} style={{ color: '#065f46', weight: 3, fill: false, className: 'fm-field-outline' }} interactive={false} />
        <Fit geometry={geometry} />
      </MapContainer>
      {(overlays.length > 0 || baseLayers.length > 1 || compareForm) && <LayerPanel baseLayers={baseLayers} base={base} onBase={setBase} overlays={overlays} footer={compareForm} />}
      {compare && (
        <SwipeControl
          position={compare.position}
          onPosition={(position) => setCompare({ ...compare, position })}
          leftLabel={scanLabel(byId(compare.left))}
          rightLabel={scanLabel(byId(compare.right))}
          label={t('map.swipe')}
        />
      )}
      {/* Only while the index is on the map: an orthomosaic's colours are the ground's own. */}
      {legend && show('index') && <PreviewLegend legend={legend} />}
    </div>
  );
}
