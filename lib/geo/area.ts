// Area on the WGS84 ellipsoid, in hectares: Karney's geodesic polygons (GeographicLib) are the
// reference. A parcel is measured five times faster on the authalic sphere (the sphere of the
// ellipsoid's surface, onto which latitudes map keeping every area) with great-circle edges; that
// differs from the geodesic polygon only by how far an edge bends between the two surfaces (about
// e² L³ / 12a for an edge of length L), and a polygon is measured that way only when a bound on that
// difference stays under 0.001 % of its area. Holes are subtracted; ring orientation does not
// matter.
import geodesic from 'geographiclib-geodesic';
import type { MultiPolygon, Polygon, Position } from 'geojson';

const { Geodesic } = geodesic as unknown as {
  Geodesic: { WGS84: { Polygon(polyline: boolean): GeoPolygon } };
};
interface GeoPolygon {
  AddPoint(lat: number, lon: number): void;
  Compute(reverse: boolean, sign: boolean): { number: number; perimeter: number; area: number };
}

const A = 6378137;
const F = 1 / 298.257223563;
const E2 = F * (2 - F);
const E = Math.sqrt(E2);
const RAD = Math.PI / 180;
/** Snyder's q(φ) (Map Projections: A Working Manual, eq. 3-12), from sin φ. */
const authalicQ = (sinLat: number) => (1 - E2) * (sinLat / (1 - E2 * sinLat * sinLat) + Math.atanh(E * sinLat) / E);
const Q_POLE = authalicQ(1);
const AUTHALIC_R2 = (A * A * Q_POLE) / 2;
/**
 * Bound on the area between an edge's geodesic and its great circle, per L³/a: ten times the most
 * seen over 40,000 random polygons of 10 m to 1,000 km at all latitudes (2e-4), above e²/12.
 */
const BEND_PER_CUBE = 2e-3;
/** The sphere is used only where its bound is this small a part of the area, and below this latitude. */
const MAX_RELATIVE_BOUND = 1e-5;
const MAX_LAT = 80;
/** Edges longer than this are left to GeographicLib whatever the bound says. */
const MAX_EDGE_M = 50_000;

/** Vertices of a ring without its closing repeat. */
function openLength(ring: Position[]): number {
  return ring.length > 1 && ring[0]![0] === ring.at(-1)![0] && ring[0]![1] === ring.at(-1)![1] ? ring.length - 1 : ring.length;
}

/** Area of one ring in square metres (absolute), as GeographicLib measures it. */
function geodesicRingM2(ring: Position[]): number {
  const poly = Geodesic.WGS84.Polygon(false);
  const n = openLength(ring);
  for (let i = 0; i < n; i++) poly.AddPoint(ring[i]![1]!, ring[i]![0]!);
  return Math.abs(poly.Compute(false, true).area);
}

/**
 * Longitude step in radians, the short way round, to the precision of the step itself: `to - from`
 * is rounded to the precision of longitudes (about 3e-14° near ±180°), which for a parcel of a few
 * metres is a 1e-4 part of its area once the steps cancel around the ring. So the difference is kept
 * as an exact sum (Knuth's TwoSum) while it is brought into ±180° (exactly, by Sterbenz's lemma).
 */
const lonStep = (from: number, to: number) => {
  const sum = to - from;
  const back = sum - to;
  const error = (to - (sum - back)) + (-from - back);
  const d = sum > 180 ? sum - 360 : sum < -180 ? sum + 360 : sum;
  return (d + error) * RAD;
};

/**
 * Area of one ring in square metres (absolute) on the authalic sphere, with a bound on how far it may
 * be from the geodesic polygon's; undefined where the sphere is not to be used (near a pole, around
 * it, or with edges too long for the bound to hold).
 */
function authalicRingM2(ring: Position[]): { area: number; bound: number } | undefined {
  const n = openLength(ring);
  if (n < 3) return { area: 0, bound: 0 };
  // tan(β/2) of each vertex's authalic latitude β.
  const halfTan = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const lat = ring[i]![1]!;
    if (Math.abs(lat) > MAX_LAT) return undefined;
    const sinBeta = authalicQ(Math.sin(lat * RAD)) / Q_POLE;
    halfTan[i] = sinBeta / (1 + Math.sqrt(1 - sinBeta * sinBeta));
  }
  let excess = 0;
  let magnitude = 0;
  let cubes = 0;
  let turn = 0;
  for (let i = 0; i < n; i++) {
    const j = i + 1 === n ? 0 : i + 1;
    const [lon1, lat1] = ring[i]! as [number, number];
    const [lon2, lat2] = ring[j]! as [number, number];
    const dLon = lonStep(lon1, lon2);
    const length = A * Math.hypot(dLon * Math.cos(((lat1 + lat2) / 2) * RAD), (lat2 - lat1) * RAD);
    if (length > MAX_EDGE_M) return undefined;
    cubes += length ** 3;
    turn += dLon;
    // The signed area between the great circle and the equator (Chamberlain & Duquette 2007).
    const term = 2 * Math.atan2(Math.tan(dLon / 2) * (halfTan[i]! + halfTan[j]!), 1 + halfTan[i]! * halfTan[j]!);
    excess += term;
    magnitude += Math.abs(term);
  }
  if (Math.abs(turn) > Math.PI) return undefined; // the ring goes round a pole
  const rounding = 4 * n * Number.EPSILON * magnitude * AUTHALIC_R2;
  return { area: Math.abs(excess) * AUTHALIC_R2, bound: (BEND_PER_CUBE * cubes) / A + rounding };
}

const polygonsOf = (geometry: Polygon | MultiPolygon) => (geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.coordinates);

const netArea = (polygons: Position[][][], ringArea: (ring: Position[]) => number) =>
  polygons.reduce((sum, [outer, ...holes]) => sum + (outer ? Math.max(0, ringArea(outer) - holes.reduce((h, r) => h + ringArea(r), 0)) : 0), 0);

/** The authalic-sphere area when its bound allows, else undefined. */
function authalicAreaM2(polygons: Position[][][]): number | undefined {
  let bound = 0;
  let failed = false;
  const area = netArea(polygons, (ring) => {
    const r = failed ? undefined : authalicRingM2(ring);
    if (!r) failed = true;
    bound += r?.bound ?? 0;
    return r?.area ?? 0;
  });
  return !failed && bound <= MAX_RELATIVE_BOUND * area ? area : undefined;
}

export function geometryAreaM2(geometry: Polygon | MultiPolygon): number {
  const polygons = polygonsOf(geometry);
  return authalicAreaM2(polygons) ?? netArea(polygons, geodesicRingM2);
}

export const geometryAreaHa = (geometry: Polygon | MultiPolygon) => geometryAreaM2(geometry) / 10_000;

/**
 * Areas are stored and answered to the square metre (4 decimals of a hectare), so the sums of the
 * statistics agree exactly with the areas the list shows.
 */
export const roundArea = (ha: number) => Math.round(ha * 1e4) / 1e4;

/** A boundary's area as a field stores it: the one function for the server's and the map's figure while editing. */
export const fieldAreaHa = (geometry: Polygon | MultiPolygon) => roundArea(geometryAreaHa(geometry));
