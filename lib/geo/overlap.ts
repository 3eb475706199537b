// Overlap of field boundaries: intersection over union on the ellipsoid, and an index that finds,
// among many boundaries, one that is the same parcel as a given one (imports skip such duplicates).
import { feature, featureCollection, intersect } from '@turf/turf';
import RBush from 'rbush';
import { geometryAreaM2 } from './area';
import { type BBox, type FieldGeometry, boundingBox, vertexCount } from './geometry';

/** Points per side of the grid that estimates an overlap the clipper cannot work out. */
const SAMPLES = 120;

/**
 * Which points of a grid (columns at x0 + (i + 0.5) dx, rows at y0 + (j + 0.5) dy) lie inside the
 * boundary, index j * n + i, by ray casting as pointInRing does (holes and parts by the even-odd
 * rule). Each edge is met only by the rows it spans, so a boundary of 100,000 vertices takes a few
 * milliseconds where testing each point against every edge took seconds.
 */
function insideGrid(g: FieldGeometry, x0: number, y0: number, dx: number, dy: number, n: number): Uint8Array {
  const rowCrossings: number[][] = Array.from({ length: n }, () => []);
  const rowOf = (y: number) => Math.ceil((y - y0) / dy - 0.5);
  for (const ring of g.type === 'Polygon' ? g.coordinates : g.coordinates.flat()) {
    for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
      const [xi, yi] = ring[i] as [number, number];
      const [xj, yj] = ring[j] as [number, number];
      if (yi === yj) continue;
      // One row either side of the span computed: the exact test below decides.
      for (let r = Math.max(0, rowOf(Math.min(yi, yj)) - 1), last = Math.min(n - 1, rowOf(Math.max(yi, yj)) + 1); r <= last; r++) {
        const py = y0 + (r + 0.5) * dy;
        if (yi > py !== yj > py) rowCrossings[r]!.push(xi + ((py - yi) * (xj - xi)) / (yj - yi));
      }
    }
  }
  const inside = new Uint8Array(n * n);
  rowCrossings.forEach((xs, r) => {
    xs.sort((p, q) => p - q);
    // A point is inside when an odd number of crossings lie east of it.
    for (let c = 0, west = 0; c < n; c++) {
      const px = x0 + (c + 0.5) * dx;
      while (west < xs.length && xs[west]! <= px) west++;
      inside[r * n + c] = (xs.length - west) & 1;
    }
  });
  return inside;
}

/**
 * Intersection over union estimated from a grid of points over both boxes (within about 1 %): for
 * boundaries the clipper gives up on, which are typically the same parcel twice, its edges a
 * millimetre apart after a round trip through another coordinate system, and for boundaries too
 * large to clip in good time (DUPLICATE_CLIPPED_UP_TO).
 */
export function sampledIntersectionOverUnion(a: FieldGeometry, b: FieldGeometry): number {
  const [ba, bb] = [boundingBox(a), boundingBox(b)];
  const [w, s] = [Math.min(ba.minLon, bb.minLon), Math.min(ba.minLat, bb.minLat)];
  const [dx, dy] = [(Math.max(ba.maxLon, bb.maxLon) - w) / SAMPLES, (Math.max(ba.maxLat, bb.maxLat) - s) / SAMPLES];
  const [inA, inB] = [insideGrid(a, w, s, dx, dy, SAMPLES), insideGrid(b, w, s, dx, dy, SAMPLES)];
  let both = 0;
  let either = 0;
  for (let k = 0; k < inA.length; k++) {
    both += inA[k]! & inB[k]!;
    either += inA[k]! | inB[k]!;
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

/**
 * Vertices two boundaries may have between them for a duplicate to be measured by the clipper; above
 * it, by the sampled estimate. The clipper's time grows fast with them (two boundaries of 99,000
 * vertices took 5 to 9 seconds of the server's only thread); real parcels have a few hundred.
 */
export const DUPLICATE_CLIPPED_UP_TO = 4_000;

/** Whether two boundaries have the same coordinates, as one file imported twice gives them. */
function sameCoordinates(a: FieldGeometry, b: FieldGeometry): boolean {
  if (a.type !== b.type) return false;
  const [ra, rb] = [a.type === 'Polygon' ? [a.coordinates] : a.coordinates, b.type === 'Polygon' ? [b.coordinates] : b.coordinates];
  return (
    ra.length === rb.length &&
    ra.every((rings, p) => rings.length === rb[p]!.length && rings.every((ring, r) => ring.length === rb[p]![r]!.length && ring.every((v, i) => v[0] === rb[p]![r]![i]![0] && v[1] === rb[p]![r]![i]![1])))
  );
}

/** Intersection over union for the duplicate check: 1 for the same coordinates, sampled for large boundaries, else clipped. */
function duplicateOverlap(a: FieldGeometry, b: FieldGeometry, areaA: number, areaB: number): number {
  if (sameCoordinates(a, b)) return 1;
  if (vertexCount(a) + vertexCount(b) > DUPLICATE_CLIPPED_UP_TO) return sampledIntersectionOverUnion(a, b);
  return intersectionOverUnion(a, b, areaA, areaB);
}

interface Indexed {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
  /** The boundary and its area, made when a box first meets it. */
  boundary: () => { geometry: FieldGeometry; area: number };
}

/** A boundary known by its box, its geometry read only when needed (a field row's stored text). */
export interface BoxedBoundary {
  box: BBox;
  geometry: () => FieldGeometry;
}

export interface BoundaryIndex {
  /**
   * True when a boundary in the index overlaps the one given (its box, and the geometry itself,
   * made only when some boundary's box meets it) with IoU above the threshold.
   */
  hasDuplicate(box: BBox, geometry: () => FieldGeometry): boolean;
}

export function boundaryIndex(boundaries: Iterable<FieldGeometry>, threshold = 0.9): BoundaryIndex {
  return boxedBoundaryIndex([...boundaries].map((g) => ({ box: boundingBox(g), geometry: () => g })), threshold);
}

/**
 * The index over boundaries known by their boxes: a boundary is read and measured only when a box
 * meets its own, so that an import into a company of 100,000 fields does not parse them all first.
 */
export function boxedBoundaryIndex(boundaries: BoxedBoundary[], threshold = 0.9): BoundaryIndex {
  const tree = new RBush<Indexed>();
  tree.load(
    boundaries.map(({ box: b, geometry }) => {
      let made: { geometry: FieldGeometry; area: number } | undefined;
      const boundary = () => {
        if (made) return made;
        const g = geometry();
        return (made = { geometry: g, area: geometryAreaM2(g) });
      };
      return { minX: b.minLon, minY: b.minLat, maxX: b.maxLon, maxY: b.maxLat, boundary };
    }),
  );
  return {
    hasDuplicate(b, geometry) {
      const candidates = tree.search({ minX: b.minLon, minY: b.minLat, maxX: b.maxLon, maxY: b.maxLat });
      if (!candidates.length) return false;
      const g = geometry();
      const area = geometryAreaM2(g);
      // IoU never exceeds the ratio of the two areas: a cheap test that spares most intersections.
      return candidates.some((c) => {
        const other = c.boundary();
        return Math.min(other.area, area) / Math.max(other.area, area) > threshold && duplicateOverlap(g, other.geometry, area, other.area) > threshold;
      });
    },
  };
}
