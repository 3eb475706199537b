// Overlap of field boundaries: intersection over union on the ellipsoid, and an index that finds,
// among many boundaries, one that is the same parcel as a given one (imports skip such duplicates).
import { booleanPointInPolygon, feature, featureCollection, intersect } from '@turf/turf';
import RBush from 'rbush';
import { geometryAreaM2 } from './area';
import { type BBox, type FieldGeometry, boundingBox } from './geometry';

/** Points per side of the grid that estimates an overlap the clipper cannot work out. */
const SAMPLES = 120;

/**
 * Intersection over union estimated from a grid of points over both boxes (within about 1 %): for
 * boundaries the clipper gives up on, which are typically the same parcel twice, its edges a
 * millimetre apart after a round trip through another coordinate system.
 */
export function sampledIntersectionOverUnion(a: FieldGeometry, b: FieldGeometry): number {
  const [ba, bb] = [boundingBox(a), boundingBox(b)];
  const [w, s] = [Math.min(ba.minLon, bb.minLon), Math.min(ba.minLat, bb.minLat)];
  const [dx, dy] = [(Math.max(ba.maxLon, bb.maxLon) - w) / SAMPLES, (Math.max(ba.maxLat, bb.maxLat) - s) / SAMPLES];
  const [fa, fb] = [feature(a), feature(b)];
  let both = 0;
  let either = 0;
  for (let i = 0; i < SAMPLES; i++) {
    for (let j = 0; j < SAMPLES; j++) {
      const p = [w + (i + 0.5) * dx, s + (j + 0.5) * dy];
      const [inA, inB] = [booleanPointInPolygon(p, fa), booleanPointInPolygon(p, fb)];
      if (inA && inB) both++;
      if (inA || inB) either++;
    }
  }
  return either ? both / either : 0;
}

/**
 * Area the two boundaries have in common, m². The clipper throws on some pairs (typically the same
 * parcel twice, edges a millimetre apart): their common area is then worked out from the sampled
 * intersection over union (I = IoU (A + B) / (1 + IoU)). The areas are measured only when needed.
 */
export function intersectionAreaM2(a: FieldGeometry, b: FieldGeometry, areaA?: number, areaB?: number): number {
  let common;
  try {
    common = intersect(featureCollection([feature(a), feature(b)]));
  } catch {
    const iou = sampledIntersectionOverUnion(a, b);
    return (iou * ((areaA ?? geometryAreaM2(a)) + (areaB ?? geometryAreaM2(b)))) / (1 + iou);
  }
  return common ? geometryAreaM2(common.geometry as FieldGeometry) : 0;
}

/** Intersection area over union area, 0..1. */
export function intersectionOverUnion(a: FieldGeometry, b: FieldGeometry, areaA = geometryAreaM2(a), areaB = geometryAreaM2(b)): number {
  if (areaA <= 0 || areaB <= 0) return 0;
  const inter = intersectionAreaM2(a, b, areaA, areaB);
  return inter > 0 ? inter / (areaA + areaB - inter) : 0;
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
