// The union of field boundaries: parcels farmed as one become one boundary.
import { feature, featureCollection, union } from '@turf/turf';
import type { MultiPolygon, Polygon } from 'geojson';
import type { FieldGeometry } from './geometry';

/**
 * One boundary covering all of `geometries`: a Polygon when they touch or overlap, a MultiPolygon of
 * the parts when they do not (fields may lie in several parts). Shared edges disappear; holes that no
 * other boundary fills stay.
 */
export function geometryUnion(geometries: FieldGeometry[]): FieldGeometry {
  const merged = union(featureCollection(geometries.map((g) => feature<Polygon | MultiPolygon>(g))));
  if (!merged) throw new Error('the union of non-empty boundaries is empty');
  const g = merged.geometry;
  // The clipper answers a MultiPolygon of one part for a single polygon.
  return g.type === 'MultiPolygon' && g.coordinates.length === 1 ? { type: 'Polygon', coordinates: g.coordinates[0]! } : g;
}
