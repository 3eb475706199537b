// Zone borders without pixel stairs. Traced pixel edges step at every pixel, so a diagonal border
// between two zones carried two vertices a pixel (44,000 vertices for 600 ha of 5 m NAIP pixels),
// which tractor terminals load slowly or not at all, and no spreader follows anyway. Each border
// between two patches (an arc, from one junction of three patches to the next) is simplified once
// (Douglas-Peucker) and used by both patches, so neighbours keep sharing it exactly: no gaps, no
// overlaps. An arc that would then cross another, or itself, or leave a ring without area, keeps its
// pixel edges, and so do borders with no zone on one side: the field's edge clips those, and a
// border moved inwards there would leave a strip of the field in no zone.
import { lineString, simplify } from '@turf/turf';
import type { GridPolygon } from './polygonize';

type Point = [number, number];

/** What the label grid says of a border vertex or edge. */
export interface BorderGrid {
  /** A corner where three patches meet, or where a patch touches itself diagonally: borders end there. */
  isJunction(x: number, y: number): boolean;
  /** The edge leaving vertex a towards b (along a grid line) has no zone on one side. */
  bordersNoZone(a: Point, b: Point): boolean;
}

/** The border facts of a label grid (row-major, 0 = no zone, as is everything off the grid). */
export function borderGrid(labels: Int32Array, width: number, height: number): BorderGrid {
  const at = (c: number, r: number) => (c < 0 || r < 0 || c >= width || r >= height ? 0 : labels[r * width + c]!);
  return {
    isJunction(x, y) {
      const a = at(x - 1, y - 1);
      const b = at(x, y - 1);
      const c = at(x - 1, y);
      const d = at(x, y);
      const distinct = new Set([a, b, c, d]).size;
      return distinct >= 3 || (distinct === 2 && a === d && b === c);
    },
    bordersNoZone([ax, ay], [bx, by]) {
      const sides = ay === by ? [at(Math.min(ax, bx), ay - 1), at(Math.min(ax, bx), ay)] : [at(ax - 1, Math.min(ay, by)), at(ax, Math.min(ay, by))];
      return sides.includes(0);
    },
  };
}

interface Arc {
  /** Pixel-edge vertices, from the canonical end. */
  original: Point[];
  simplified: Point[];
}

/** One arc of a ring: which shared arc, and whether the ring runs it backwards. */
interface ArcUse {
  arc: Arc;
  reversed: boolean;
}

const same = (p: Point, q: Point) => p[0] === q[0] && p[1] === q[1];
const before = (p: Point, q: Point) => p[0] < q[0] || (p[0] === q[0] && p[1] < q[1]);

/**
 * The polygons with every border simplified to within `tolerance` grid cells, borders shared by two
 * patches staying identical in both.
 */
export function simplifyBorders(polygons: Map<number, GridPolygon[]>, grid: BorderGrid, tolerance: number): Map<number, GridPolygon[]> {
  const arcs = new Map<string, Arc>();
  const arcOf = (points: Point[]): ArcUse => {
    // The same arc, met from the patch on its other side, comes in the opposite direction.
    const first = points[0]!;
    const last = points.at(-1)!;
    const reversed = same(first, last) ? before(points.at(-2)!, points[1]!) : before(last, first);
    const canonical = reversed ? [...points].reverse() : points;
    const key = `${canonical[0]}|${canonical[1]}`;
    let arc = arcs.get(key);
    if (!arc) {
      const simplified = grid.bordersNoZone(canonical[0]!, canonical[1]!)
        ? canonical
        : (simplify(lineString(canonical), { tolerance, highQuality: true }).geometry.coordinates as Point[]);
      arc = { original: canonical, simplified };
      arcs.set(key, arc);
    }
    return { arc, reversed };
  };

  const shapes = new Map<number, ArcUse[][][]>();
  for (const [label, polys] of polygons) {
    shapes.set(label, polys.map((poly) => poly.map((ring) => ringArcs(ring, grid).map(arcOf))));
  }

  // Arcs that cross or collapse a ring go back to their pixel edges until none does; with every arc
  // back, the rings are the traced ones, which are valid.
  for (;;) {
    const bad = crossingArcs([...arcs.values()]);
    for (const rings of shapes.values()) {
      for (const uses of rings.flat()) if (!ringKeepsShape(uses)) for (const u of uses) bad.add(u.arc);
    }
    const changed = [...bad].filter((arc) => arc.simplified !== arc.original);
    if (changed.length === 0) break;
    for (const arc of changed) arc.simplified = arc.original;
  }

  const out = new Map<number, GridPolygon[]>();
  for (const [label, rings] of shapes) out.set(label, rings.map((poly) => poly.map((uses) => ringPoints(uses))));
  return out;
}

/** A closed ring cut into arcs at its fixed vertices (at two canonical ones if it has none). */
function ringArcs(ring: Array<[number, number]>, grid: BorderGrid): Point[][] {
  const points = ring.slice(0, -1) as Point[];
  const n = points.length;
  let cuts = points.flatMap((p, i) => (grid.isJunction(p[0], p[1]) ? [i] : []));
  if (cuts.length === 0) {
    // An island: its lowest vertex and the one farthest from it, found alike from either side.
    const low = points.reduce((best, p, i) => (before(p, points[best]!) ? i : best), 0);
    const dist = (i: number) => (points[i]![0] - points[low]![0]) ** 2 + (points[i]![1] - points[low]![1]) ** 2;
    const far = points.reduce((best, p, i) => (dist(i) > dist(best) || (dist(i) === dist(best) && before(p, points[best]!)) ? i : best), low);
    cuts = [low, far].sort((a, b) => a - b);
  }
  return cuts.map((start, k) => {
    const end = cuts[(k + 1) % cuts.length]!;
    const span = ((end - start + n - 1) % n) + 1;
    return Array.from({ length: span + 1 }, (_, i) => points[(start + i) % n]!);
  });
}

function ringPoints(uses: ArcUse[], version: 'simplified' | 'original' = 'simplified'): Array<[number, number]> {
  const ring: Point[] = [];
  for (const { arc, reversed } of uses) {
    const points = reversed ? [...arc[version]].reverse() : arc[version];
    ring.push(...points.slice(0, -1));
  }
  ring.push(ring[0]!);
  return ring;
}

/** At least three corners, and the area's sign kept (a ring turned inside out has crossed itself). */
function ringKeepsShape(uses: ArcUse[]): boolean {
  const ring = ringPoints(uses);
  if (ring.length < 4) return false;
  const area = (r: Point[]) => r.reduce((s, p, i) => (i + 1 < r.length ? s + p[0] * r[i + 1]![1] - r[i + 1]![0] * p[1] : s), 0);
  return area(ring) !== 0 && Math.sign(area(ring)) === Math.sign(area(ringPoints(uses, 'original')));
}

interface Segment {
  arc: Arc;
  a: Point;
  b: Point;
}

/** Arcs with a segment that meets another segment anywhere but at a vertex both share. */
function crossingArcs(arcs: Arc[]): Set<Arc> {
  const segments: Segment[] = [];
  for (const arc of arcs) for (let i = 0; i + 1 < arc.simplified.length; i++) segments.push({ arc, a: arc.simplified[i]!, b: arc.simplified[i + 1]! });
  // Segments bucketed by the cells of a coarse grid their boxes cover; only bucket-mates are compared.
  const longest = segments.reduce((m, s) => Math.max(m, Math.abs(s.a[0] - s.b[0]), Math.abs(s.a[1] - s.b[1])), 1);
  const size = Math.max(4, Math.ceil(longest / 4));
  const buckets = new Map<number, Segment[]>();
  for (const s of segments) {
    for (let bx = Math.floor(Math.min(s.a[0], s.b[0]) / size); bx <= Math.floor(Math.max(s.a[0], s.b[0]) / size); bx++) {
      for (let by = Math.floor(Math.min(s.a[1], s.b[1]) / size); by <= Math.floor(Math.max(s.a[1], s.b[1]) / size); by++) {
        const key = bx * 1_000_003 + by;
        const list = buckets.get(key);
        if (list) list.push(s);
        else buckets.set(key, [s]);
      }
    }
  }
  const bad = new Set<Arc>();
  for (const list of buckets.values()) {
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length; j++) {
        const s = list[i]!;
        const t = list[j]!;
        if (s.arc.simplified === s.arc.original && t.arc.simplified === t.arc.original) continue;
        if (segmentsConflict(s, t)) {
          bad.add(s.arc);
          bad.add(t.arc);
        }
      }
    }
  }
  return bad;
}

const orient = (p: Point, q: Point, r: Point) => Math.sign((q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]));
const onSegment = (p: Point, a: Point, b: Point) =>
  Math.min(a[0], b[0]) <= p[0] && p[0] <= Math.max(a[0], b[0]) && Math.min(a[1], b[1]) <= p[1] && p[1] <= Math.max(a[1], b[1]);

/** Two segments meet other than end to end at one shared vertex. */
function segmentsConflict(s: Segment, t: Segment): boolean {
  const shared = [s.a, s.b].filter((p) => same(p, t.a) || same(p, t.b)).length;
  if (shared === 2) return true;
  const o1 = orient(s.a, s.b, t.a);
  const o2 = orient(s.a, s.b, t.b);
  const o3 = orient(t.a, t.b, s.a);
  const o4 = orient(t.a, t.b, s.b);
  if (shared === 1) {
    // Meeting at a shared end is fine unless they also run along each other.
    return o1 === 0 && o2 === 0 && overlapsBeyondPoint(s, t);
  }
  if (o1 !== o2 && o3 !== o4) return true;
  return (o1 === 0 && onSegment(t.a, s.a, s.b)) || (o2 === 0 && onSegment(t.b, s.a, s.b)) || (o3 === 0 && onSegment(s.a, t.a, t.b)) || (o4 === 0 && onSegment(s.b, t.a, t.b));
}

/** Collinear segments sharing an end: do they also share more than that point? */
function overlapsBeyondPoint(s: Segment, t: Segment): boolean {
  const [p, q] = same(s.a, t.a) || same(s.a, t.b) ? [s.a, s.b] : [s.b, s.a];
  const other = same(t.a, p) ? t.b : t.a;
  // Same direction from the shared point means they overlap.
  return (q[0] - p[0]) * (other[0] - p[0]) + (q[1] - p[1]) * (other[1] - p[1]) > 0;
}
