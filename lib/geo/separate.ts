// A part taken back out of a boundary: a parcel merged into a field, farmed apart again.
import { difference, feature, featureCollection, intersect } from '@turf/turf';
import type { MultiPolygon, Polygon } from 'geojson';
import type { FieldGeometry } from './geometry';

const single = (g: Polygon | MultiPolygon): FieldGeometry => (g.type === 'MultiPolygon' && g.coordinates.length === 1 ? { type: 'Polygon', coordinates: g.coordinates[0]! } : g);

/**
 * `part` within `whole`, and what is left of `whole` without it; null for either when it is empty
 * (the part lies outside the whole, or covers all of it).
 */
export function separateGeometry(whole: FieldGeometry, part: FieldGeometry): { part: FieldGeometry | null; rest: FieldGeometry | null } {
  const pair = featureCollection([feature<Polygon | MultiPolygon>(whole), feature<Polygon | MultiPolygon>(part)]);
  const inside = intersect(pair)?.geometry;
  const rest = difference(pair)?.geometry;
  return { part: inside ? single(inside) : null, rest: rest ? single(rest) : null };
}
