// How finely the map reads a large company's boundaries (GET /api/fields?simplify=): about half a
// screen pixel at the view's zoom, so that the simpler boundary draws the same. 10,000 fields of
// 50-200 corners are 9.6 MB read exactly, before anything shows.
import { SIMPLIFY_MAX_M } from '@/lib/geo/simplify';

/** Over this many fields the map reads boundaries simplified; up to it, always as stored. */
export const DETAIL_FIELDS_OVER = 1000;

export const usesLevelOfDetail = (fieldCount: number) => fieldCount > DETAIL_FIELDS_OVER;

/** Below this tolerance (metres) a boundary is read as stored: simplifying would save next to nothing. */
const EXACT_BELOW_M = 0.5;

/** Metres a screen pixel spans at `zoom` and latitude `lat` (Web Mercator, 256-pixel tiles). */
export const metresPerPixel = (zoom: number, lat: number) => (40_075_016.686 * Math.cos((lat * Math.PI) / 180)) / 2 ** (zoom + 8);

/**
 * The tolerance to read boundaries at for a view: half a pixel in metres, to two significant digits
 * (one request per view rather than per fraction of a metre), at most the API's maximum; 0 (read as
 * stored) when that is under half a metre.
 */
export function viewTolerance(zoom: number, lat: number): number {
  const metres = metresPerPixel(zoom, lat) / 2;
  return metres < EXACT_BELOW_M ? 0 : Math.min(Number(metres.toPrecision(2)), SIMPLIFY_MAX_M);
}

/**
 * Whether a boundary read at `loaded` metres (0: as stored) is too coarse for a view that wants
 * `wanted`: more than half as coarse again, so that the view one zoom level in reads anew and a
 * pan or a rounding does not.
 */
export const isCoarser = (loaded: number, wanted: number) => loaded > wanted * 1.5;

/** The list's address for a tolerance (0: as stored) and, optionally, a window [west, south, east, north]. */
export function fieldsUrl(tolerance: number, window?: readonly [number, number, number, number]): string {
  const query = new URLSearchParams();
  if (window) query.set('bbox', window.map((v) => Number(v.toFixed(6))).join(','));
  if (tolerance > 0) query.set('simplify', String(tolerance));
  const text = query.toString();
  return text ? `/api/fields?${text}` : '/api/fields';
}
