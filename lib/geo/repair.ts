// Boundaries that cross themselves as GIS tools and old databases hold them (a GPS walk that overshoots
// its start, a ring drawn as a figure eight), made valid when that changes their area by at most 1 %.
import { cleanCoords, featureCollection, unkinkPolygon, union } from '@turf/turf';
import { geometryAreaHa } from './area';
import { type FieldGeometry, validateFieldGeometry } from './geometry';

/** A repair may change a boundary's area by at most 1 %. */
export const keptArea = (before: number, after: number) => before > 0 && Math.abs(after - before) / before <= 0.01;

/** A self-intersecting boundary made valid, when that keeps its area within 1 %; else undefined. */
export function repairGeometry(g: FieldGeometry): FieldGeometry | undefined {
  let merged;
  try {
    const cleaned = cleanCoords(g) as FieldGeometry;
    const parts = (cleaned.type === 'Polygon' ? [cleaned.coordinates] : cleaned.coordinates).flatMap((coords) => unkinkPolygon({ type: 'Polygon', coordinates: coords }).features);
    merged = parts.length > 1 ? union(featureCollection(parts)) : parts[0];
  } catch {
    return undefined; // a boundary the repair cannot untangle stays refused, with its reason
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
