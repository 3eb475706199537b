'use client';
// The flight plan's own small map (the field page's big map is left alone): the field's outline, the
// path the drone flies and the points where it takes photos.
import 'leaflet/dist/leaflet.css';
import L from 'leaflet';
import { useEffect, useMemo } from 'react';
import { GeoJSON, MapContainer, useMap } from 'react-leaflet';
import type { FlightPreview } from '@/lib/exports/flight-preview';
import type { BaseLayer } from '@/lib/ui/types';
import { BaseTiles, MAP_MAX_ZOOM, ZoomButtons } from '../map/base-map';

function Fit({ outline }: { outline: GeoJSON.Geometry }) {
  const map = useMap();
  const key = JSON.stringify(outline);
  useEffect(() => {
    map.fitBounds(L.geoJSON(outline).getBounds(), { padding: [12, 12] });
    // The outline is the same field whatever the parameters: fitted once, not on every plan.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [map, key]);
  return null;
}

export interface FlightPreviewMapProps {
  baseLayer: BaseLayer;
  plan: FlightPreview['plan'];
  label: string;
}

export default function FlightPreviewMap({ baseLayer, plan, label }: FlightPreviewMapProps) {
  const part = (kind: string) => plan.features.find((f) => f.properties.kind === kind);
  const outline = part('field')!.geometry;
  // Thousands of photo points: drawn on one canvas rather than as as many SVG elements.
  const renderer = useMemo(() => L.canvas({ padding: 0.2 }), []);
  const key = JSON.stringify(part('path')!.geometry).length + ':' + plan.features.map((f) => ('coordinates' in f.geometry ? f.geometry.coordinates.length : 0)).join(',');
  return (
    <div className="h-64 overflow-hidden rounded border border-stone-200 sm:h-72" data-testid="flight-preview-map" role="img" aria-label={label}>
      <MapContainer center={[0, 0]} zoom={2} maxZoom={MAP_MAX_ZOOM} zoomControl={false} className="h-full w-full bg-stone-200">
        <BaseTiles layer={baseLayer} />
        <ZoomButtons />
        <Fit outline={outline} />
        <GeoJSON key={`field-${JSON.stringify(outline).length}`} data={outline} style={{ color: '#1c1917', weight: 2, fillOpacity: 0.05 }} interactive={false} />
        <GeoJSON key={`path-${key}`} data={part('path')!.geometry} style={{ color: '#0369a1', weight: 2, className: 'fm-flight-path' }} interactive={false} />
        <GeoJSON
          key={`photos-${key}`}
          data={part('photos')!.geometry}
          pointToLayer={(_, at) => L.circleMarker(at, { renderer, radius: 2, color: '#b45309', weight: 1, fillOpacity: 0.9, interactive: false })}
        />
      </MapContainer>
    </div>
  );
}
