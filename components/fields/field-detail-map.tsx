'use client';
// The field's map on its page: the boundary, and of the chosen scan its mosaic, index and zones as
// layers with their opacity (tiles from GET /api/scans/{id}/tiles/{layer}/…), the base map to choose,
// and two scans compared with a swipe.
import 'leaflet/dist/leaflet.css';
import L from 'leaflet';
import { useTranslations } from 'next-intl';
import { useEffect, useMemo, useState } from 'react';
import { GeoJSON, MapContainer, useMap } from 'react-leaflet';
import type { PreviewLegend as Legend } from '@/lib/raster/ramp';
import type { BaseLayer, FieldGeometry } from '@/lib/ui/types';
import { BaseTiles, MAP_MAX_ZOOM, ZoomButtons } from '../map/base-map';
import { CompareLayers, SwipeControl } from '../map/compare-swipe';
import { LayerPanel } from '../map/layer-panel';
import { ScanTiles } from '../map/scan-tiles';
import { CompareForm, useScanLabel } from './field-detail-compare';
import type { MapScan, ScanCompare, ZoneFeatureCollection } from './field-detail-types';
import { ZonesLayer } from './field-detail-zones';
import { PreviewLegend } from './preview-legend';
import { type DetailLayers, useDetailLayers } from './use-detail-layers';

export type { MapScan, ZoneFeatureCollection } from './field-detail-types';

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

export default function FieldDetailMap({ geometry, baseLayers, scans, chosen, legend, zones }: FieldDetailMapProps) {
  const t = useTranslations();
  const scan = scans.find((s) => s.id === chosen) ?? null;
  const [compare, setCompare] = useState<ScanCompare | null>(null);
  const scanLayers = useDetailLayers(scan, zones, !!compare);
  const [base, setBase] = useState(0);
  // Tiles are asked for around the field only: a scan reaching far past it is seen past the edge of the view anyway.
  const bounds = useMemo(() => L.geoJSON(geometry).getBounds().pad(1), [geometry]);
  const scanLabel = useScanLabel();
  const byId = (id: number) => scans.find((s) => s.id === id)!;
  const compareForm = scans.length >= 2 ? <CompareForm scans={scans} compare={compare} onCompare={setCompare} /> : null;

  return (
    <div className="relative h-[calc(100dvh-9rem)] min-h-[360px] overflow-hidden rounded-lg border border-stone-200" data-testid="field-detail-map">
      <MapContainer center={[0, 0]} zoom={2} maxZoom={MAP_MAX_ZOOM} zoomControl={false} className="h-full w-full bg-stone-200">
        <BaseTiles layer={baseLayers[base]!} />
        <ZoomButtons />
        <ScanOverlays scan={scan} zones={zones} compare={compare} scanLayers={scanLayers} bounds={bounds} />
        <GeoJSON key={JSON.stringify(geometry).length} data={geometry as GeoJSON.Geometry} style={{ color: '#065f46', weight: 3, fill: false, className: 'fm-field-outline' }} interactive={false} />
        <Fit geometry={geometry} />
      </MapContainer>
      {(scanLayers.overlays.length > 0 || baseLayers.length > 1 || compareForm) && <LayerPanel baseLayers={baseLayers} base={base} onBase={setBase} overlays={scanLayers.overlays} footer={compareForm} />}
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
      {legend && scanLayers.show('index') && <PreviewLegend legend={legend} />}
    </div>
  );
}

interface ScanOverlaysProps {
  scan: MapScan | null;
  zones: ZoneFeatureCollection | null;
  compare: ScanCompare | null;
  scanLayers: DetailLayers;
  bounds: L.LatLngBounds;
}

/** Inside the map, under the field's outline: the chosen scan's layers that are on, or the two scans compared. */
function ScanOverlays({ scan, zones, compare, scanLayers: { layers, show }, bounds }: ScanOverlaysProps) {
  return (
    <>
      {scan && show('ortho') && <ScanTiles scanId={scan.id} layer="ortho" opacity={layers.ortho.opacity} bounds={bounds} />}
      {scan && show('index') && <ScanTiles scanId={scan.id} layer="index" opacity={layers.index.opacity} bounds={bounds} />}
      {compare && <CompareLayers left={compare.left} right={compare.right} layer={compare.layer} position={compare.position} bounds={bounds} />}
      {zones && show('zones') && <ZonesLayer zones={zones} opacity={layers.zones.opacity} overTiles={show('ortho') || show('index')} />}
    </>
  );
}
