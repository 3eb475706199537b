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
export const MAX_VERTICES = 100_000;

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

export function validateFieldGeometry(input: unknown): FieldGeometry {
  const g = input as { type?: unknown; coordinates?: unknown };
  if (!g || typeof g !== 'object' || (g.type !== 'Polygon' && g.type !== 'MultiPolygon')) {
    throw unprocessable('geometry_wrong_type', { type: String(g?.type ?? (input === null ? 'null' : typeof input)) });
  }
  if (!Array.isArray(g.coordinates) || g.coordinates.length === 0) throw unprocessable('geometry_bad_coordinates', { part: 0, ring: 'all', hole: 0 });
  const polygons = (g.type === 'Polygon' ? [g.coordinates] : g.coordinates) as unknown[];
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
  // A sweep line, not turf's pairwise kinks: 100,000 vertices take a fraction of a second. Rings that
  // only touch at a vertex they both have (holes meeting at a point) are valid, as in OGC.
  const crossings = findIntersections(feature(clean), false);
  const shared = crossings.length ? verticesOfSeveralRings(clean) : undefined;
  const crossing = crossings.find((p) => !shared!.has(`${p[0]},${p[1]}`));
  if (crossing) {
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
