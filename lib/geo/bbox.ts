// The box around a boundary's outer rings, which the indexed columns store and spatial look-ups filter by.
import type { MultiPolygon, Polygon } from 'geojson';

export interface BBox {
  minLon: number;
  minLat: number;
  maxLon: number;
  maxLat: number;
}

export function boundingBox(g: Polygon | MultiPolygon): BBox {
  const box = { minLon: Infinity, minLat: Infinity, maxLon: -Infinity, maxLat: -Infinity };
  const polygons = g.type === 'Polygon' ? [g.coordinates] : g.coordinates;
  for (const poly of polygons) {
    for (const [lon, lat] of poly[0] ?? []) {
      box.minLon = Math.min(box.minLon, lon!);
      box.maxLon = Math.max(box.maxLon, lon!);
      box.minLat = Math.min(box.minLat, lat!);
      box.maxLat = Math.max(box.maxLat, lat!);
    }
  }
  return box;
}
