// Lighter boundaries for drawing at a distance (GET /api/fields?simplify=): Douglas-Peucker within a
// tolerance in metres. Only the drawing changes; areas and everything else stay the stored field's.
import { bbox, booleanValid, lineString, simplify } from '@turf/turf';
import type { Position } from 'geojson';
import type { FieldGeometry } from './geometry';

/** The coarsest tolerance taken, in metres: beyond it a field of any size is a dot on the screen. */
export const SIMPLIFY_MAX_M = 10_000;

/**
 * Metres per degree of latitude and of longitude at `lat` (WGS84 ellipsoid, the usual series). The
 * tolerance in degrees is taken against the longer of the two, so that no corner moves by more than
 * the tolerance in metres along either axis.
 */
export function metresPerDegree(lat: number): { lat: number; lon: number } {
  const φ = (lat * Math.PI) / 180;
  return {
    lat: 111_132.954 - 559.822 * Math.cos(2 * φ) + 1.175 * Math.cos(4 * φ),
    lon: 111_412.84 * Math.cos(φ) - 93.5 * Math.cos(3 * φ) + 0.118 * Math.cos(5 * φ),
  };
}

export const metresToDegrees = (metres: number, lat: number) => {
  const per = metresPerDegree(lat);
  return metres / Math.max(per.lat, per.lon);
};

/** Halvings of the tolerance tried for a ring that collapses at it (down to 1/64 of it). */
const FINER_TRIES = 6;

/**
 * A ring simplified as a line (a closed one keeps its first and last position). One that collapses
 * at the tolerance (a field smaller than it) is tried at half of it, and so on, until it keeps four
 * corners: turf's polygon loop stops at three, and a field would come out a triangle of half its
 * area. Such a field is a pixel or two wide at the zoom the tolerance is for, and a finer read
 * replaces it when the map zooms in; sending it whole instead made the first map of 10,000 fields of
 * 300 m, at zoom 8, as heavy as no simplification. null when even the finest try collapses.
 */
function simplifyRing(ring: Position[], tolerance: number): Position[] | null {
  const line = lineString(ring);
  const at = (t: number) => simplify(line, { tolerance: t, highQuality: false }).geometry.coordinates;
  const simple = at(tolerance);
  if (simple.length >= 4) return simple;
  for (let k = 1, t = tolerance / 2; k <= FINER_TRIES; k++, t /= 2) {
    const finer = at(t);
    if (finer.length >= 5) return finer;
  }
  return null;
}

/**
 * `geometry` with each ring (holes kept) simplified within `metres` at the field's latitude (a ring
 * smaller than that within a finer tolerance, `simplifyRing`); the geometry itself when a ring still
 * collapses or the result is not valid, so that small fields never vanish or turn into slivers.
 */
export function simplifyGeometry(geometry: FieldGeometry, metres: number): FieldGeometry {
  const [, minLat, , maxLat] = bbox(geometry);
  const tolerance = metresToDegrees(metres, (minLat + maxLat) / 2);
  const polygons = geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.coordinates;
  const simplified: Position[][][] = [];
  for (const rings of polygons) {
    const simple = rings.map((ring) => simplifyRing(ring, tolerance));
    if (simple.some((ring) => ring === null)) return geometry;
    simplified.push(simple as Position[][]);
  }
  const result: FieldGeometry = geometry.type === 'Polygon' ? { type: 'Polygon', coordinates: simplified[0]! } : { type: 'MultiPolygon', coordinates: simplified };
  return booleanValid(result) ? result : geometry;
}

/** A stored geometry's GeoJSON text, simplified (`simplifyGeometry`); the text itself when kept as stored. */
export function simplifyGeometryText(text: string, metres: number): string {
  const stored = JSON.parse(text) as FieldGeometry;
  const simple = simplifyGeometry(stored, metres);
  return simple === stored ? text : JSON.stringify(simple);
}
