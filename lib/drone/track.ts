// Placement priors for photos that record no camera heading or height above take-off (no DJI XMP:
// Parrot, Autel, senseFly, Sony or MicaSense payloads, DJI photos re-saved by software that drops it).
// As OpenSfM-based tools do, the photos are taken in capture order, each with the next one matched
// with no placement guess: the image motion between them set against their GPS baseline gives both
// photos' heading, whichever way the camera is mounted or turned, and the ground size of a pixel,
// hence the height above the matched ground. Photos too close for their GPS step to mean anything (a
// hover) give only the turn between their headings. The global adjustment refines both afterwards.
import type { DronePhoto } from './exif';
import type { Features, MotionFinder } from './features';
import { median, unguidedMotion } from './features';
import { heightForGroundSample } from './frame';

/** A ground vector over an image vector (image y up) as a complex number [re, im]: metres per pixel and turn. */
export type GroundFactor = [number, number];

/** Shortest GPS baseline (m) whose direction and length are worth setting against the image motion. */
const MIN_BASELINE_M = 3;
/** Image motions shorter than this share of the photo's width say little about direction. */
const MIN_MOTION_SHARE = 0.03;
/** Every this-many-th keypoint of the earlier photo is searched for in the next (1,000 of 4,000; 500 missed forest pairs). */
const UNGUIDED_STRIDE = 4;
/**
 * Consecutive pairs matched, spread over the flight: brute force costs 0.1-0.3 s a pair on this 2-core machine, and a
 * photo left out takes the heading the others show for its place on the track (the adjustment then
 * settles each photo's own).
 */
const MAX_TRACK_PAIRS = 10;

/** Up to `max` of the `count` consecutive pairs (indices into the flight order), evenly spread. */
export function spreadPairs(count: number, max: number): number[] {
  if (count <= max) return Array.from({ length: count }, (_, k) => k);
  return [...new Set(Array.from({ length: max }, (_, s) => Math.round((s * (count - 1)) / (max - 1))))];
}

/** Flight order: capture time, then file name (a ZIP may hold the photos in any order). */
export function flightOrder(photos: DronePhoto[]): number[] {
  return photos.map((_, i) => i).sort((x, y) =>
    (photos[x]!.capturedAtMs ?? 0) - (photos[y]!.capturedAtMs ?? 0) || photos[x]!.path.localeCompare(photos[y]!.path));
}

/**
 * Whether an image motion is what two nadir photos from about the same height show: a turn and a
 * shift, at about the same scale (a few wrong matches can agree on a skewed or mirrored transform).
 */
export function isNadirMotion(affine: number[]): boolean {
  const [m00, m01, , m10, m11] = affine as [number, number, number, number, number];
  const det = m00 * m11 - m01 * m10;
  if (!(det > 0)) return false;
  const scale = Math.sqrt(det);
  return scale > 0.8 && scale < 1.25 && Math.hypot(m00 - m11, m01 + m10) < 0.1 * scale;
}

/**
 * The ground factors of photos i and j (ground vector = z · image vector) from the affine transform
 * taking i's pixels to j's and the GPS baseline from i to j (east, north): the image vector from each
 * photo's centre to where the other's centre appears in it spans that baseline. Null when the motion
 * is too short to say anything.
 */
export function baselineFactors(affine: number[], ci: [number, number], cj: [number, number], baseline: [number, number]): [GroundFactor, GroundFactor] | null {
  const [m00, m01, m02, m10, m11, m12] = affine as [number, number, number, number, number, number];
  const det = m00 * m11 - m01 * m10;
  if (!(Math.abs(det) > 1e-9)) return null;
  // j's centre seen in i (inverse transform) and i's centre seen in j, as image vectors with y up.
  const [x, y] = [cj[0] - m02, cj[1] - m12];
  const inI: [number, number] = [(m11 * x - m01 * y) / det - ci[0], ci[1] - (m00 * y - m10 * x) / det];
  const inJ: [number, number] = [m00 * ci[0] + m01 * ci[1] + m02 - cj[0], cj[1] - (m10 * ci[0] + m11 * ci[1] + m12)];
  const minPx = MIN_MOTION_SHARE * 2 * Math.min(ci[0], cj[0]);
  if (Math.hypot(...inI) < minPx || Math.hypot(...inJ) < minPx) return null;
  return [divide(baseline, inI), divide([-baseline[0], -baseline[1]], inJ)];
}

function divide([gr, gi]: [number, number], [dr, di]: [number, number]): GroundFactor {
  const k = dr * dr + di * di;
  return [(gr * dr + gi * di) / k, (gi * dr - gr * di) / k];
}

/** Camera heading (degrees clockwise from north) a ground factor says: image up turned by -heading. */
export const factorHeadingDeg = ([re, im]: GroundFactor) => (-Math.atan2(im, re) * 180) / Math.PI;

/** Mean direction of angles in degrees, and how much they spread (0: all alike, 1: no common direction). */
function circularMean(degrees: number[]): { meanDeg: number; spread: number } {
  const rad = degrees.map((d) => (d * Math.PI) / 180);
  const c = rad.reduce((s, a) => s + Math.cos(a), 0) / rad.length, s = rad.reduce((t, a) => t + Math.sin(a), 0) / rad.length;
  return { meanDeg: (Math.atan2(s, c) * 180) / Math.PI, spread: 1 - Math.hypot(c, s) };
}

/** Direction of travel (degrees clockwise from north) at each photo, from its neighbours in flight order. */
export function trackHeadingsDeg(order: number[], positions: [number, number][]): number[] {
  const out = new Array<number>(positions.length).fill(0);
  order.forEach((i, k) => {
    const from = positions[order[Math.max(0, k - 1)]!]!, to = positions[order[Math.min(order.length - 1, k + 1)]!]!;
    out[i] = (Math.atan2(to[0] - from[0], to[1] - from[1]) * 180) / Math.PI;
  });
  return out;
}

/**
 * How far photo j's heading is turned from photo i's (degrees clockwise), from the affine motion taking
 * i's pixels to j's: the turn of the nearest similarity, so that the little skew a nadir motion may hold does not count.
 */
export const motionTurnDeg = ([m00, m01, , m10, m11]: number[]) => (-Math.atan2(m10! - m01!, m00! + m11!) * 180) / Math.PI;

/** A measured turn between two photos' headings (`deg`: j's heading less i's), from their image motion alone. */
export interface Turn {
  i: number;
  j: number;
  deg: number;
}

/** A track turning less than 45° between two photos says nothing of which way the camera was held. */
const MIN_TELLING_MISFIT = 1 - Math.cos(Math.PI / 4);

/** Sum of 1 - cos over angle residuals in degrees: 0 when every residual is nil. */
const misfit = (residualsDeg: number[]) => residualsDeg.reduce((s, d) => s + 1 - Math.cos((d * Math.PI) / 180), 0);

/**
 * Each photo's heading from its measured ground factors. A photo whose neighbours did not match
 * takes the survey's way of flying: the camera held at a fixed angle to the track (most autopilots
 * turn the aircraft on each line) or at a fixed heading, whichever the measured photos, and the
 * turns measured between photos too close for a baseline (a hover), follow more closely; a turn
 * counts only where the track turns. Turns alone show a fixed heading but not which: north is taken,
 * and the GPS fit turns the block. With nothing measured, the camera is taken to look along the track.
 */
export function headingsDeg(factors: GroundFactor[][], track: number[], turns: Turn[] = []): number[] {
  const measured = factors.map((zs) => (zs.length ? circularMean(zs.map(factorHeadingDeg)).meanDeg : null));
  const known = measured.flatMap((h, i) => (h === null ? [] : [i]));
  if (!known.length && !turns.length) return track.slice();
  const toTrack = circularMean(known.map((i) => measured[i]! - track[i]!));
  const fixed = circularMean(known.map((i) => measured[i]!));
  // A camera at a fixed angle to the track turns as the track does; one at a fixed heading does not
  // turn. Only where the track turns (a line's end, or a hover's noise) can a turn tell the two apart.
  const telling = turns.filter((t) => misfit([track[t.j]! - track[t.i]!]) >= MIN_TELLING_MISFIT);
  const spreadOf = (m: { spread: number }) => (known.length ? known.length * m.spread : 0);
  const trackMisfit = spreadOf(toTrack) + misfit(telling.map((t) => t.deg - (track[t.j]! - track[t.i]!)));
  const fixedMisfit = spreadOf(fixed) + misfit(telling.map((t) => t.deg));
  const unmeasured = (i: number) => (trackMisfit <= fixedMisfit
    ? track[i]! + (known.length ? toTrack.meanDeg : 0)
    : known.length ? fixed.meanDeg : 0);
  return measured.map((h, i) => h ?? unmeasured(i));
}

export interface TrackPriors {
  /** Camera heading (degrees clockwise from north) of each photo. */
  headingDeg: number[];
  /** Height above the matched ground of each photo; null when no two consecutive photos matched. */
  heightM: number[] | null;
}

/**
 * Headings and heights of photos (in any order) from consecutive matches against their GPS
 * positions (`positions`: metres east and north). Heights follow the photos' GPS altitudes about the
 * survey's median, at the level the matches measured.
 */
export async function trackPriors(
  photos: DronePhoto[], features: Features[], positions: [number, number][], motion: MotionFinder = unguidedMotion,
): Promise<TrackPriors> {
  const order = flightOrder(photos);
  const centre = (i: number): [number, number] => [photos[i]!.widthPx / 2, photos[i]!.heightPx / 2];
  const factors: GroundFactor[][] = photos.map(() => []);
  const turns: Turn[] = [];
  const pairs = spreadPairs(order.length - 1, MAX_TRACK_PAIRS).map((k) => {
    const [i, j] = [order[k]!, order[k + 1]!];
    const baseline: [number, number] = [positions[j]![0] - positions[i]![0], positions[j]![1] - positions[i]![1]];
    return { i, j, baseline };
  });
  // All pairs at once (a pool of threads takes them as it can); their factors in flight order.
  const affines = await Promise.all(pairs.map(({ i, j }) => motion(features[i]!, centre(i), features[j]!, UNGUIDED_STRIDE)));
  pairs.forEach(({ i, j, baseline }, k) => {
    const affine = affines[k];
    if (!affine || !isNadirMotion(affine)) return;
    // A baseline within the GPS noise says nothing of direction or scale; the turn between the photos still holds.
    const z = Math.hypot(...baseline) >= MIN_BASELINE_M && baselineFactors(affine, centre(i), centre(j), baseline);
    if (z) {
      factors[i]!.push(z[0]);
      factors[j]!.push(z[1]);
    } else turns.push({ i, j, deg: motionTurnDeg(affine) });
  });
  const headingDeg = headingsDeg(factors, trackHeadingsDeg(order, positions), turns);
  const altitudes = photos.map((p) => p.gps?.altM ?? null);
  const medianAlt = median(altitudes.filter((a) => a !== null));
  const aboveMedian = (i: number) => (altitudes[i] !== null && Number.isFinite(medianAlt) ? altitudes[i]! - medianAlt : 0);
  // Each measurement as the height it implies at the median altitude; their median is the survey's.
  const levels = factors.flatMap((zs, i) => zs.map((z) => heightForGroundSample(photos[i]!, Math.hypot(...z)) - aboveMedian(i)));
  const level = median(levels);
  return { headingDeg, heightM: Number.isFinite(level) ? photos.map((_, i) => level + aboveMedian(i)) : null };
}
