// Validation of field geometries: GeoJSON Polygon or MultiPolygon in lon/lat. Each rule answers with
// a message key saying what is wrong (and where), so a person can fix the drawing or the file.
import { feature } from '@turf/turf';
import findIntersections from 'sweepline-intersections';
import type { MultiPolygon, Polygon, Position } from 'geojson';
import { unprocessable } from '../errors';
import { geometryAreaM2 } from './area';
import { hasSeveralRings, misnestedRings } from './nest-rings';
import { planarRingArea } from './planar';

export type FieldGeometry = Polygon | MultiPolygon;
/** Vertices of one boundary, closing ones left out: five times the largest real parcel seen (20,257, EuroCrops Romania). */
export const MAX_VERTICES = 100_000;
/**
 * Rings of one boundary (outer rings and holes): twelve times the most a real parcel has (84, EuroCrops
 * Romania; national LPIS extracts have at most 29). More is a drawing or a file gone wrong, and the
 * checks of how rings nest, though they compare only rings whose boxes meet, are bounded by it.
 */
export const MAX_RINGS = 1_000;
/**
 * Pairs of edges the crossing check (a sweep line that compares each edge with every edge beside it
 * along the x axis) may compare: 23 times what the most intricate real parcel needs (87,628, EuroCrops
 * Romania), about a tenth of a second. Rings wound or nested many times over (a thousand concentric
 * rings, a flower of 30,000 petals) needed billions: minutes of one thread.
 */
export const MAX_SWEEP_PAIRS = 2_000_000;

/**
 * The pairs of edges the sweep line compares: at each edge's west end, the edges whose span along x
 * holds it. Counted from the sorted ends, without comparing any; edges with a coordinate that is not
 * a number are left out (they are refused by their own check).
 */
export function sweepPairs(g: FieldGeometry, stopAbove = Infinity): number {
  const rings = g.type === 'Polygon' ? g.coordinates : g.coordinates.flat();
  const edges = rings.reduce((n, ring) => n + Math.max(0, ring.length - 1), 0);
  const west = new Float64Array(edges);
  const east = new Float64Array(edges);
  let n = 0;
  for (const ring of rings) {
    for (let i = 0; i + 1 < ring.length; i++) {
      const [a, b] = [ring[i]![0]!, ring[i + 1]![0]!];
      if (!Number.isFinite(a) || !Number.isFinite(b)) continue;
      west[n] = Math.min(a, b);
      east[n++] = Math.max(a, b);
    }
  }
  const [w, e] = [west.subarray(0, n).sort(), east.subarray(0, n).sort()];
  let pairs = 0;
  for (let i = 0, ended = 0; i < n; i++) {
    while (ended < n && e[ended]! < w[i]!) ended++;
    pairs += i - ended;
    if (pairs > stopAbove) break;
  }
  return pairs;
}

/**
 * Refuses a boundary whose checks would cost too much, from its counts alone: more rings than
 * MAX_RINGS, more vertices than MAX_VERTICES, or edges side by side that the crossing check would
 * compare more than MAX_SWEEP_PAIRS times. Run before anything that compares rings or edges.
 */
export function checkComplexity(g: FieldGeometry): void {
  const polygons = g.type === 'Polygon' ? [g.coordinates] : g.coordinates;
  const rings = polygons.reduce((n, p) => n + p.length, 0);
  if (rings > MAX_RINGS) throw unprocessable('geometry_too_many_rings', { count: rings, max: MAX_RINGS });
  const vertices = polygons.reduce((n, p) => n + p.reduce((m, r) => m + Math.max(0, r.length - 1), 0), 0);
  if (vertices > MAX_VERTICES) throw unprocessable('geometry_too_many_vertices', { count: vertices, max: MAX_VERTICES });
  if (sweepPairs(g, MAX_SWEEP_PAIRS) > MAX_SWEEP_PAIRS) throw unprocessable('geometry_too_complex');
}

const isPosition = (p: unknown): p is Position =>
  Array.isArray(p) && p.length >= 2 && p.length <= 4 && p.every((n) => typeof n === 'number' && Number.isFinite(n));

const fmt = (n: number) => String(Math.round(n * 1e7) / 1e7);

/**
 * Where a ring is, for the messages to name in the reader's language: the part of a MultiPolygon
 * (0 for a Polygon) and the ring (`outer`, `hole` number `hole`, or `all` of them).
 */
interface RingPlace extends Record<string, string | number> {
  part: number;
  ring: 'outer' | 'hole' | 'all';
  hole: number;
}

function checkRing(ring: unknown, where: RingPlace): asserts ring is Position[] {
  if (!Array.isArray(ring) || !ring.every(isPosition)) throw unprocessable('geometry_bad_coordinates', where);
  if (ring.length < 4) throw unprocessable('geometry_ring_too_short', where);
  const [first, last] = [ring[0]!, ring.at(-1)!];
  if (first[0] !== last[0] || first[1] !== last[1]) throw unprocessable('geometry_ring_not_closed', where);
  for (const [lon, lat] of ring) {
    if (lon! < -180 || lon! > 180 || lat! < -90 || lat! > 90) throw unprocessable('geometry_out_of_range', { ...where, lon: fmt(lon!), lat: fmt(lat!) });
  }
}

/** Returns the geometry (2-D, as given) or throws 422 naming the first problem found. */
/**
 * Area on a local plane (degrees scaled to metres at each ring's latitude): within a percent of the
 * ellipsoidal area for any field, and enough to tell a zero area, at a twentieth of the cost.
 */
function planarAreaM2(g: FieldGeometry): number {
  // Degrees squared to square metres at the ring's latitude: a check for zero area, not a measurement.
  const ringArea = (ring: Position[]) => Math.abs(planarRingArea(ring)) * 111_320 * 111_320 * Math.cos(((ring[0]?.[1] ?? 0) * Math.PI) / 180);
  const polygons = g.type === 'Polygon' ? [g.coordinates] : g.coordinates;
  return polygons.reduce((total, [outer, ...holes]) => total + Math.max(0, ringArea(outer ?? []) - holes.reduce((h, r) => h + ringArea(r), 0)), 0);
}

function longitudeExtent(g: FieldGeometry): number {
  let [west, east] = [Infinity, -Infinity];
  for (const ring of g.type === 'Polygon' ? g.coordinates : g.coordinates.flat()) {
    for (const [lon] of ring) [west, east] = [Math.min(west, lon!), Math.max(east, lon!)];
  }
  return east - west;
}

/** Positions of all its rings, closing ones included. */
export const vertexCount = (g: FieldGeometry) => (g.type === 'Polygon' ? g.coordinates : g.coordinates.flat()).reduce((n, ring) => n + ring.length, 0);

function verticesOfSeveralRings(g: FieldGeometry): Set<string> {
  const ringsOf = new Map<string, number>();
  const shared = new Set<string>();
  const rings = g.type === 'Polygon' ? g.coordinates : g.coordinates.flat();
  rings.forEach((ring, i) => {
    for (const p of ring) {
      const k = `${p[0]},${p[1]}`;
      const seen = ringsOf.get(k);
      if (seen === undefined) ringsOf.set(k, i);
      else if (seen !== i) shared.add(k);
    }
  });
  return shared;
}

/** The crossings found in boundaries refused for one: the repair's bound, read without a second sweep. */
const crossingsFound = new WeakMap<object, number>();

/** How many crossings (shared vertices included) validateFieldGeometry found in a boundary it refused for crossing itself. */
export const crossingsOf = (g: FieldGeometry): number | undefined => crossingsFound.get(g);

export function validateFieldGeometry(input: unknown): FieldGeometry {
  const g = input as { type?: unknown; coordinates?: unknown };
  if (!g || typeof g !== 'object' || (g.type !== 'Polygon' && g.type !== 'MultiPolygon')) {
    throw unprocessable('geometry_wrong_type', { type: String(g?.type ?? (input === null ? 'null' : typeof input)) });
  }
  if (!Array.isArray(g.coordinates) || g.coordinates.length === 0) throw unprocessable('geometry_bad_coordinates', { part: 0, ring: 'all', hole: 0 });
  const polygons = (g.type === 'Polygon' ? [g.coordinates] : g.coordinates) as unknown[];
  const rings = polygons.reduce<number>((n, p) => n + (Array.isArray(p) ? p.length : 0), 0);
  if (rings > MAX_RINGS) throw unprocessable('geometry_too_many_rings', { count: rings, max: MAX_RINGS });
  // Counted before any ring is checked: a 200,000-vertex ring is refused without a pass over its points.
  const declared = polygons.reduce<number>((n, rings) => n + (Array.isArray(rings) ? rings.reduce<number>((m, r) => m + (Array.isArray(r) ? Math.max(0, r.length - 1) : 0), 0) : 0), 0);
  if (declared > MAX_VERTICES) throw unprocessable('geometry_too_many_vertices', { count: declared, max: MAX_VERTICES });
  let vertices = 0;
  polygons.forEach((rings, pi) => {
    const part = g.type === 'MultiPolygon' ? pi + 1 : 0;
    if (!Array.isArray(rings) || rings.length === 0) throw unprocessable('geometry_bad_coordinates', { part, ring: 'all', hole: 0 });
    rings.forEach((ring, ri) => {
      checkRing(ring, { part, ring: ri === 0 ? 'outer' : 'hole', hole: ri });
      // A ring's closing position repeats its first: not a vertex of its own.
      vertices += ring.length - 1;
    });
  });
  if (vertices > MAX_VERTICES) throw unprocessable('geometry_too_many_vertices', { count: vertices, max: MAX_VERTICES });
  const clean = {
    type: g.type,
    coordinates:
      g.type === 'Polygon'
        ? (g.coordinates as Position[][]).map((r) => r.map((p) => [p[0]!, p[1]!]))
        : (g.coordinates as Position[][][]).map((poly) => poly.map((r) => r.map((p) => [p[0]!, p[1]!]))),
  } as FieldGeometry;
  // A sweep line, not turf's pairwise kinks: 100,000 vertices take a fraction of a second, once the
  // pairs of edges it compares are counted and bounded. Rings that only touch at a vertex they both
  // have (holes meeting at a point) are valid, as in OGC.
  checkComplexity(clean);
  const crossings = findIntersections(feature(clean), false);
  const shared = crossings.length ? verticesOfSeveralRings(clean) : undefined;
  const crossing = crossings.find((p) => !shared!.has(`${p[0]},${p[1]}`));
  if (crossing) {
    crossingsFound.set(g, crossings.length);
    const [lon, lat] = crossing;
    throw unprocessable('geometry_self_intersection', { lon: fmt(lon!), lat: fmt(lat!) });
  }
  const misnested = hasSeveralRings(clean) ? misnestedRings(clean) : undefined;
  if (misnested) throw unprocessable(`geometry_${misnested.problem}`, { part: misnested.part, other: misnested.other });
  if (planarAreaM2(clean) < 0.01) throw unprocessable('geometry_zero_area');
  // Across half the globe or more an edge's geodesic is not the planar one (a whole-world rectangle
  // has area 0 on the sphere, and was stored so): the area that is stored decides. Cheap enough only there.
  if (longitudeExtent(clean) >= 180 && geometryAreaM2(clean) < 0.01) throw unprocessable('geometry_zero_area');
  return clean;
}

export { type BBox, boundingBox } from './bbox';
