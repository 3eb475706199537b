'use client';
import 'leaflet/dist/leaflet.css';
import L from 'leaflet';
import { useFormatter, useLocale, useTranslations } from 'next-intl';
import { useEffect, useState } from 'react';
import { GeoJSON, ImageOverlay, MapContainer, useMap } from 'react-leaflet';
import { localizeZoneName } from '@/lib/i18n/formats';
import { textElement } from '@/lib/ui/text-element';
import type { PreviewLegend as Legend } from '@/lib/raster/ramp';
import type { FieldGeometry, TileSource } from '@/lib/ui/types';
import { BaseTiles, MAP_MAX_ZOOM, ZoomButtons } from '../map/base-map';
import { PreviewLegend } from './preview-legend';

export interface ZoneFeatureCollection {
  type: 'FeatureCollection';
  features: { type: 'Feature'; id: number; properties: { class: number; name: string; color: string; area_ha: number; mean: number }; geometry: object }[];
}

export interface FieldDetailMapProps {
  geometry: FieldGeometry;
  tiles: TileSource;
  /** The scan's picture laid over the map: a drone survey's orthomosaic or a raster's index in colour (with its legend). */
  preview: { url: string; bounds: [[number, number], [number, number]]; shows: 'orthomosaic' | 'index'; legend: Legend | null } | null;
  zones: ZoneFeatureCollection | null;
}

function Fit({ geometry }: { geometry: FieldGeometry }) {
  const map = useMap();
  useEffect(() => {
    map.fitBounds(L.geoJSON(geometry).getBounds(), { padding: [16, 16] });
  }, [map, geometry]);
  return null;
}

function LayerToggles({ show, setShow, preview, hasZones }: { show: { preview: boolean; zones: boolean }; setShow: (s: { preview: boolean; zones: boolean }) => void; preview: FieldDetailMapProps['preview']; hasZones: boolean }) {
  const t = useTranslations('field');
  if (!preview && !hasZones) return null;
  return (
    <div className="absolute top-2 right-2 z-[1000] space-y-1 rounded bg-white/90 px-2 py-1 text-xs shadow">
      {preview && (
        <label className="flex items-center gap-1">
          <input type="checkbox" checked={show.preview} onChange={(e) => setShow({ ...show, preview: e.target.checked })} /> {t(preview.shows === 'orthomosaic' ? 'layer_orthomosaic' : 'layer_index')}
        </label>
      )}
      {hasZones && (
        <label className="flex items-center gap-1">
          <input type="checkbox" checked={show.zones} onChange={(e) => setShow({ ...show, zones: e.target.checked })} /> {t('layer_zones')}
        </label>
      )}
    </div>
  );
}

export default function FieldDetailMap({ geometry, tiles, preview, zones }: FieldDetailMapProps) {
  const [show, setShow] = useState({ preview: true, zones: true });
  const locale = useLocale();
  const t = useTranslations('field');
  const format = useFormatter();
  return (
    <div className="relative h-[360px] overflow-hidden rounded-lg border border-stone-200 sm:h-[440px]" data-testid="field-detail-map">
      <MapContainer center={[0, 0]} zoom={2} maxZoom={MAP_MAX_ZOOM} zoomControl={false} className="h-full w-full bg-stone-200">
        <BaseTiles tiles={tiles} />
        <ZoomButtons />
        {preview && show.preview && <ImageOverlay url={preview.url} bounds={preview.bounds} opacity={0.85} />}
        {zones && show.zones && (
          <GeoJSON
            key={zones.features.map((z) => z.id).join(',')}
            data={zones as GeoJSON.FeatureCollection}
            style={(f) => ({ color: '#1c1917', weight: 1, fillColor: (f?.properties as { color?: string } | undefined)?.color ?? '#999', fillOpacity: preview && show.preview ? 0.25 : 0.6, className: 'fm-zone' })}
            onEachFeature={(f, layer) => {
              const p = f.properties as { name: string; area_ha: number; mean: number | null };
              const name = localizeZoneName(p.name, locale);
              // What an agronomist hovering a zone asks: how big it is and its mean, beside its range.
              const details = t('zone_tooltip', {
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
      <LayerToggles show={show} setShow={setShow} preview={preview} hasZones={!!zones?.features.length} />
      {/* Only while the index image is on the map: an orthomosaic's colours are the ground's own. */}
      {preview?.shows === 'index' && preview.legend && show.preview && <PreviewLegend legend={preview.legend} />}
    </div>
  );
}
