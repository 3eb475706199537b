// Overlap of field boundaries: intersection over union on the ellipsoid, and an index that finds,
// among many boundaries, one that is the same parcel as a given one (imports skip such duplicates).
import { feature, featureCollection, intersect } from '@turf/turf';
import RBush from 'rbush';
import { geometryAreaM2 } from './area';
import { type BBox, type FieldGeometry, boundingBox } from './geometry';

/** Intersection area over union area, 0..1. */
export function intersectionOverUnion(a: FieldGeometry, b: FieldGeometry, areaA = geometryAreaM2(a), areaB = geometryAreaM2(b)): number {
  if (areaA <= 0 || areaB <= 0) return 0;
  let common;
  try {
    common = intersect(featureCollection([feature(a), feature(b)]));
  } catch {
    return 0; // degenerate input the clipper cannot handle overlaps nothing
  }
  if (!common) return 0;
  const inter = geometryAreaM2(common.geometry as FieldGeometry);
  return inter / (areaA + areaB - inter);
}

interface Indexed {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
  geometry: FieldGeometry;
  area: number;
}

export interface BoundaryIndex {
  /**
   * True when a boundary in the index overlaps the one given (its box, and the geometry itself,
   * made only when some boundary's box meets it) with IoU above the threshold.
   */
  hasDuplicate(box: BBox, geometry: () => FieldGeometry): boolean;
}

export function boundaryIndex(boundaries: Iterable<FieldGeometry>, threshold = 0.9): BoundaryIndex {
  const tree = new RBush<Indexed>();
  tree.load(
    [...boundaries].map((g) => {
      const b = boundingBox(g);
      return { minX: b.minLon, minY: b.minLat, maxX: b.maxLon, maxY: b.maxLat, geometry: g, area: geometryAreaM2(g) };
    }),
  );
  return {
    hasDuplicate(b, geometry) {
      const candidates = tree.search({ minX: b.minLon, minY: b.minLat, maxX: b.maxLon, maxY: b.maxLat });
      if (!candidates.length) return false;
      const g = geometry();
      const area = geometryAreaM2(g);
      // IoU never exceeds the ratio of the two areas: a cheap test that spares most intersections.
      return candidates.some((c) => Math.min(c.area, area) / Math.max(c.area, area) > threshold && intersectionOverUnion(g, c.geometry, area, c.area) > threshold);
    },
  };
}
