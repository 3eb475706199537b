'use client';
import 'leaflet/dist/leaflet.css';
import L from 'leaflet';
import { useTranslations } from 'next-intl';
import { useEffect, useState } from 'react';
import { GeoJSON, ImageOverlay, MapContainer, TileLayer, useMap } from 'react-leaflet';
import type { FieldGeometry } from '@/lib/ui/types';

export interface ZoneFeatureCollection {
  type: 'FeatureCollection';
  features: { type: 'Feature'; id: number; properties: { class: number; name: string; color: string; area_ha: number; mean: number }; geometry: object }[];
}

export interface FieldDetailMapProps {
  geometry: FieldGeometry;
  tileUrl: string;
  preview: { url: string; bounds: [[number, number], [number, number]] } | null;
  zones: ZoneFeatureCollection | null;
}

function Fit({ geometry }: { geometry: FieldGeometry }) {
  const map = useMap();
  useEffect(() => {
    map.fitBounds(L.geoJSON(geometry).getBounds(), { padding: [16, 16] });
  }, [map, geometry]);
  return null;
}

function LayerToggles({ show, setShow, hasPreview, hasZones }: { show: { preview: boolean; zones: boolean }; setShow: (s: { preview: boolean; zones: boolean }) => void; hasPreview: boolean; hasZones: boolean }) {
  const t = useTranslations('field');
  if (!hasPreview && !hasZones) return null;
  return (
    <div className="absolute top-2 right-2 z-[1000] space-y-1 rounded bg-white/90 px-2 py-1 text-xs shadow">
      {hasPreview && (
        <label className="flex items-center gap-1">
          <input type="checkbox" checked={show.preview} onChange={(e) => setShow({ ...show, preview: e.target.checked })} /> {t('layer_index')}
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

export default function FieldDetailMap({ geometry, tileUrl, preview, zones }: FieldDetailMapProps) {
  const t = useTranslations('map');
  const [show, setShow] = useState({ preview: true, zones: true });
  return (
    <div className="relative h-[360px] overflow-hidden rounded-lg border border-stone-200 sm:h-[440px]" data-testid="field-detail-map">
      <MapContainer center={[0, 0]} zoom={2} className="h-full w-full bg-stone-200">
        <TileLayer url={tileUrl} attribution={t('attribution')} />
        {preview && show.preview && <ImageOverlay url={preview.url} bounds={preview.bounds} opacity={0.85} />}
        {zones && show.zones && (
          <GeoJSON
            key={zones.features.map((z) => z.id).join(',')}
            data={zones as GeoJSON.FeatureCollection}
            style={(f) => ({ color: '#1c1917', weight: 1, fillColor: (f?.properties as { color?: string } | undefined)?.color ?? '#999', fillOpacity: preview && show.preview ? 0.25 : 0.6, className: 'fm-zone' })}
            onEachFeature={(f, layer) => {
              const p = f.properties as { name: string; area_ha: number };
              layer.bindTooltip(`${p.name}`, { sticky: true });
            }}
          />
        )}
        <GeoJSON key={JSON.stringify(geometry).length} data={geometry as GeoJSON.Geometry} style={{ color: '#065f46', weight: 3, fill: false, className: 'fm-field-outline' }} />
        <Fit geometry={geometry} />
      </MapContainer>
      <LayerToggles show={show} setShow={setShow} hasPreview={!!preview} hasZones={!!zones?.features.length} />
    </div>
  );
}
