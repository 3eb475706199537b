// Boundaries that cross themselves as GIS tools and old databases hold them (a GPS walk that overshoots
// its start, a ring drawn as a figure eight), made valid when that changes their area by at most 1 %.
import { cleanCoords, feature, featureCollection, unkinkPolygon, union } from '@turf/turf';
import findIntersections from 'sweepline-intersections';
import { geometryAreaHa } from './area';
import { type FieldGeometry, checkComplexity, crossingsOf, validateFieldGeometry } from './geometry';

/** A repair may change a boundary's area by at most 1 %. */
export const keptArea = (before: number, after: number) => before > 0 && Math.abs(after - before) / before <= 0.01;

/**
 * Crossings a boundary may have and still be repaired. A walk that overshoots or a figure eight has
 * one or two; untangling grows much faster than the crossings (80 took a second, 90,000 five minutes
 * of one thread), and a boundary crossing itself more often than this is refused with its reason.
 */
export const MAX_REPAIRED_CROSSINGS = 100;

/** A self-intersecting boundary made valid, when that keeps its area within 1 %; else undefined. */
export function repairGeometry(g: FieldGeometry): FieldGeometry | undefined {
  let merged;
  try {
    // Within the bounds of any boundary first: the crossings are counted by the same sweep line.
    checkComplexity(g);
    if ((crossingsOf(g) ?? findIntersections(feature(g), false).length) > MAX_REPAIRED_CROSSINGS) return undefined;
    const cleaned = cleanCoords(g) as FieldGeometry;
    const parts = (cleaned.type === 'Polygon' ? [cleaned.coordinates] : cleaned.coordinates).flatMap((coords) => unkinkPolygon({ type: 'Polygon', coordinates: coords }).features);
    merged = parts.length > 1 ? union(featureCollection(parts)) : parts[0];
  } catch {
    return undefined; // a boundary the repair cannot untangle (or may not try to) stays refused, with its reason
  }
  if (!merged) return undefined;
  const repaired = merged.geometry as FieldGeometry;
  if (!keptArea(geometryAreaHa(g), geometryAreaHa(repaired))) return undefined;
  // Checked as any boundary is: parts of the untangled ring that touch at a vertex are valid.
  try {
    return validateFieldGeometry(repaired);
  } catch {
    return undefined;
  }
}
