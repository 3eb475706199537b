// Zones as a machine may apply them: within the field's boundary as it is now.
import { feature, featureCollection, intersect } from '@turf/turf';
import type { MultiPolygon, Polygon } from 'geojson';
import { geometryAreaHa } from '../geo/area';
import type { FieldGeometry } from '../geo/geometry';
import type { ExportZone } from './types';

/**
 * `zones` clipped to `boundary`, those left outside dropped, areas recomputed. A scan's zones follow
 * the boundary the field had when it was processed; once the boundary is redrawn or the field split,
 * a prescription must not spread product beyond it (onto the field cut off, say).
 */
export function zonesWithin(boundary: FieldGeometry, zones: ExportZone[]): ExportZone[] {
  const field = feature<Polygon | MultiPolygon>(boundary);
  return zones.flatMap((zone) => {
    const inside = intersect(featureCollection([feature<Polygon | MultiPolygon>(zone.geometry), field]))?.geometry;
    if (!inside) return [];
    const areaHa = geometryAreaHa(inside);
    return areaHa > 0 ? [{ ...zone, geometry: inside, areaHa }] : [];
  });
}
