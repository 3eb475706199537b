// Which rings of a boundary are outer rings and which are holes, by how they nest (as GDAL's
// organizePolygons does), and whether a boundary's rings nest as GeoJSON says they do. A shapefile
// is meant to tell holes by winding (outer clockwise), but tools that write them the other way
// round exist: read by winding, an outer ring and its hole became two overlapping parts whose areas
// were added up.
// Rings are looked up by their boxes in an R-tree: a ring is compared only with the rings whose box
// meets its own, so 20,000 parts side by side take a fifth of a second, where comparing every pair
// took minutes (and held the server's event loop all that time).
import type { Position } from 'geojson';
import RBush from 'rbush';
import { type BBox, boundingBox } from './bbox';
import type { FieldGeometry } from './geometry';
import { pointInRing } from './point-in-ring';

// A vertex as one number: two vertices alike give the same one (a rare clash of two others only
// makes a probe skip a vertex it could have used).
const key = (p: Position) => p[0]! * 1_000_003 + p[1]!;

const boxWithin = (a: BBox, b: BBox) => a.minLon >= b.minLon && a.maxLon <= b.maxLon && a.minLat >= b.minLat && a.maxLat <= b.maxLat;

/** Whether `inner` lies inside `outer`, for rings that do not cross: one vertex of it not on `outer`, tested. */
function probeInside(inner: Position[], outerKeys: Set<number>, outer: Position[]): boolean {
  const probe = inner.find((p) => !outerKeys.has(key(p)));
  return probe !== undefined && pointInRing(probe as [number, number], outer as [number, number][]);
}

/** Twice the ring's area on the plane of its coordinates, unsigned: enough to order rings by size. */
function planeArea(ring: Position[]): number {
  let sum = 0;
  for (let i = 0; i + 1 < ring.length; i++) sum += ring[i]![0]! * ring[i + 1]![1]! - ring[i + 1]![0]! * ring[i]![1]!;
  return Math.abs(sum);
}

export interface Ring {
  ring: Position[];
  box: BBox;
  area: number;
  /** Its vertices (`key`), listed when first asked for. */
  keys?: Set<number>;
}

export const described = (ring: Position[]): Ring => ({ ring, box: boundingBox({ type: 'Polygon', coordinates: [ring] }), area: planeArea(ring) });

const keysOf = (r: Ring) => (r.keys ??= new Set(r.ring.map(key)));

/** Whether `a` lies inside `b` (boxes first: most pairs of rings are far apart; each ring's vertices are listed once). */
const inside = (a: Ring, b: Ring) => b.area > a.area && boxWithin(a.box, b.box) && probeInside(a.ring, keysOf(b), b.ring);

/** Whether `a` lies inside `b`, for rings that do not cross, whatever their areas and boxes: one vertex of `a` not on `b`, tested. */
export const ringWithin = (a: Ring, b: Ring) => probeInside(a.ring, keysOf(b), b.ring);

/** Whether two rings are one ring given twice (from any vertex, either way round): a part or hole doubled. */
const sameRing = (a: Ring, b: Ring) => a.area === b.area && a.ring.length === b.ring.length && boxWithin(a.box, b.box) && a.ring.every((p) => keysOf(b).has(key(p)));

/** Whether `a` covers ground `b` covers too, for rings that do not cross. */
const withinOrSame = (a: Ring, b: Ring) => inside(a, b) || sameRing(a, b);

/** Below this many rings a list is searched as it is: building a tree costs more. */
const INDEXED_FROM = 16;

interface Entry<T> {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
  item: T;
  /** Position in the list indexed. */
  at: number;
}

/**
 * The items of a list whose box meets a given box, in the list's order: an R-tree over their boxes
 * (a plain scan for short lists).
 */
export function boxIndex<T>(items: readonly T[], boxOf: (item: T) => BBox): (box: BBox) => { item: T; at: number }[] {
  const entries: Entry<T>[] = items.map((item, at) => {
    const b = boxOf(item);
    return { minX: b.minLon, minY: b.minLat, maxX: b.maxLon, maxY: b.maxLat, item, at };
  });
  const meets = (e: Entry<T>, b: BBox) => e.minX <= b.maxLon && e.maxX >= b.minLon && e.minY <= b.maxLat && e.maxY >= b.minLat;
  if (entries.length < INDEXED_FROM) return (b) => entries.filter((e) => meets(e, b));
  const tree = new RBush<Entry<T>>().load(entries);
  return (b) => tree.search({ minX: b.minLon, minY: b.minLat, maxX: b.maxLon, maxY: b.maxLat }).sort((x, y) => x.at - y.at);
}

/**
 * Closed rings that do not cross, as polygons: a ring inside an even number of others is an outer
 * ring, one inside an odd number a hole of the smallest ring around it.
 */
export function nestRings(rings: Position[][]): FieldGeometry {
  const sorted = rings.map(described).sort((a, b) => b.area - a.area);
  const near = boxIndex(sorted, (r) => r.box);
  const polygons = new Map<Ring, Position[][]>();
  for (const r of sorted) {
    // The rings around it are larger, so earlier in the order; the last of them is the smallest.
    const around = near(r.box).filter((o) => inside(r, o.item));
    const parent = around.at(-1)?.item;
    if (around.length % 2 === 1 && parent && polygons.has(parent)) polygons.get(parent)!.push(r.ring);
    else polygons.set(r, [r.ring]);
  }
  const out = [...polygons.values()];
  return out.length === 1 ? { type: 'Polygon', coordinates: out[0]! } : { type: 'MultiPolygon', coordinates: out };
}

/** Whether the geometry has more than one ring, so that how they nest matters. */
export const hasSeveralRings = (g: FieldGeometry) => (g.type === 'Polygon' ? g.coordinates.length > 1 : g.coordinates.length > 1 || g.coordinates.some((p) => p.length > 1));

/**
 * The first way in which rings that do not cross fail to nest as GeoJSON says: a hole outside its
 * polygon's outer ring, a hole inside another hole, or a part inside another part (outside that
 * part's holes); a hole or a part given twice is inside its copy (their areas were counted twice).
 * Numbers count from 1; undefined when they nest properly. Only rings whose boxes meet are compared.
 */
export function misnestedRings(g: FieldGeometry): { problem: 'hole_outside' | 'holes_nested' | 'parts_overlap'; part: number; other: number } | undefined {
  const polygons = (g.type === 'Polygon' ? [g.coordinates] : g.coordinates).map((p) => p.map(described));
  for (const [pi, [outer, ...holes]] of polygons.entries()) {
    const nearHoles = boxIndex(holes, (h) => h.box);
    for (const [hi, hole] of holes.entries()) {
      if (!inside(hole, outer!)) return { problem: 'hole_outside', part: pi + 1, other: hi + 1 };
      if (nearHoles(hole.box).some((h) => h.at !== hi && withinOrSame(hole, h.item))) return { problem: 'holes_nested', part: pi + 1, other: hi + 1 };
    }
  }
  const nearOuters = boxIndex(polygons, (p) => p[0]!.box);
  for (const [pi, [outer]] of polygons.entries()) {
    for (const { item: [otherOuter, ...otherHoles], at: qi } of nearOuters(outer!.box)) {
      if (pi === qi || !withinOrSame(outer!, otherOuter!)) continue;
      // An island in another part's hole is a part of its own, not an overlap.
      if (!otherHoles.some((h) => inside(outer!, h))) return { problem: 'parts_overlap', part: pi + 1, other: qi + 1 };
    }
  }
  return undefined;
}
