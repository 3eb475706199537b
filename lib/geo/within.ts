// Zones (or any polygons with an area) within a boundary: clipped to it, those left outside dropped,
// areas measured again.
import { feature, featureCollection, intersect } from '@turf/turf';
import type { MultiPolygon, Polygon } from 'geojson';
import { geometryAreaHa } from './area';
import type { FieldGeometry } from './geometry';

export interface ZoneShape {
  geometry: FieldGeometry;
  areaHa: number;
}

/** `zones` clipped to `boundary`, those left outside dropped, areas measured again. */
export function zonesWithin<Z extends ZoneShape>(boundary: FieldGeometry, zones: Z[]): Z[] {
  const field = feature<Polygon | MultiPolygon>(boundary);
  return zones.flatMap((zone) => {
    const inside = intersect(featureCollection([feature<Polygon | MultiPolygon>(zone.geometry), field]))?.geometry;
    if (!inside) return [];
    const areaHa = geometryAreaHa(inside);
    return areaHa > 0 ? [{ ...zone, geometry: inside, areaHa }] : [];
  });
}
