// Image-based refinement of photo placements: ORB features on reduced copies, matched only between
// photos whose GPS footprints overlap, outliers removed by RANSAC and by disagreement with GPS.
import { basename } from 'node:path';
import sharp from 'sharp';
import type { Placement } from './frame';
import { toGround } from './frame';
import type { DronePhoto } from './exif';
import { descriptorSearch, type DescriptorSearch } from './hamming';
import { decodingPhoto } from './photo-decode';
import { openCv } from './opencv';
import type { LevelledPhoto } from './radiometry';
import { levelled, levelledBytes } from './radiometry';

/** Longer side of the reduced copies features are found on. */
export const FEATURE_SIDE = 1600;
const ORB_FEATURES = 4000;
const RATIO = 0.8;
const RANSAC_PX = 5;
const MIN_INLIERS = 15;

export interface Features {
  /** Keypoints in full-resolution pixels, x0 y0 x1 y1 ... */
  points: Float64Array;
  /** Mean value of each channel around each keypoint (exposure comparison), k*channels. */
  colours: Float32Array;
  channels: number;
  descriptors: Uint8Array;
  count: number;
}

/**
 * Reduction of a photo to its feature copy, by its longer side: a portrait photo (a camera turned
 * across the track) is then seen at the same detail as a landscape one, and matches as well.
 */
export const featureScale = (width: number, height: number) => Math.min(1, FEATURE_SIDE / Math.max(width, height));

/**
 * ORB keypoints and descriptors of one 8-bit photo, on a copy reduced to FEATURE_SIDE. Calibrated and
 * 16-bit photos are written to 8 bits with the survey's common factor first (radiometry.ts, ortho.ts).
 */
export async function detectFeatures(path: string, width: number, height: number): Promise<Features> {
  const scale = featureScale(width, height);
  const { data, info } = await decodingPhoto(basename(path), () => sharp(path).resize({ width: Math.round(width * scale) }).removeAlpha().raw().toBuffer({ resolveWithObject: true }));
  return orbFeatures(data, info.width, info.height, info.channels, scale);
}

/**
 * ORB features of one capture's main photo. A band photo that records its calibration is calibrated
 * first: raw counts sit in a narrow range above the black level and darken towards the edges, which
 * starves the detector and skews the exposure comparison. Other 16-bit photos are written to 8 bits
 * from the survey's range (`radiometricScale`), as the compositing sees them.
 */
export async function photoFeatures(photo: DronePhoto, radiometricScale: number): Promise<Features> {
  const lv = levelled(photo);
  return lv ? levelledFeatures(lv, radiometricScale) : detectFeatures(photo.path, photo.widthPx, photo.heightPx);
}

/** ORB features of a calibrated or 16-bit photo on a copy reduced to FEATURE_SIDE, written to 8 bits with the survey's factor. */
async function levelledFeatures(photo: LevelledPhoto, radiometricScale: number): Promise<Features> {
  const s = featureScale(photo.widthPx, photo.heightPx);
  const w = Math.round(photo.widthPx * s), h = Math.round(photo.heightPx * s);
  return orbFeatures(await levelledBytes(photo, w, h, radiometricScale), w, h, photo.channels, w / photo.widthPx);
}

/**
 * ORB keypoints and descriptors of pixel-interleaved 8-bit pixels (`channels` per pixel, the first
 * three read as RGB), with their positions divided by `scale` (the pixels' reduction from the
 * original). Only where `mask` is non-zero, when given.
 */
export async function orbFeatures(
  data: Uint8Array, width: number, height: number, channels: number, scale = 1, mask?: Uint8Array, maxFeatures = ORB_FEATURES, pyramidLevels = 8,
): Promise<Features> {
  const { cv } = await openCv();
  const ch = channels;
  const grey = greyOf(data, width * height, ch);
  const img = cv.matFromArray(height, width, cv.CV_8UC1, grey);
  const orb = new cv.ORB(maxFeatures, 1.2, pyramidLevels);
  const kps = new cv.KeyPointVector();
  const desc = new cv.Mat();
  const maskMat = mask ? cv.matFromArray(height, width, cv.CV_8UC1, mask) : new cv.Mat();
  try {
    orb.detectAndCompute(img, maskMat, kps, desc);
    const count = kps.size();
    const points = new Float64Array(count * 2);
    const colours = new Float32Array(count * ch);
    const r = 3;
    for (let k = 0; k < count; k++) {
      const pt = kps.get(k).pt;
      points[2 * k] = (pt.x + 0.5) / scale - 0.5;
      points[2 * k + 1] = (pt.y + 0.5) / scale - 0.5;
      const x0 = Math.max(0, Math.round(pt.x) - r), x1 = Math.min(width - 1, Math.round(pt.x) + r);
      const y0 = Math.max(0, Math.round(pt.y) - r), y1 = Math.min(height - 1, Math.round(pt.y) + r);
      for (let c = 0; c < ch; c++) {
        let s = 0;
        for (let y = y0; y <= y1; y++) for (let x = x0; x <= x1; x++) s += data[(y * width + x) * ch + c]!;
        colours[k * ch + c] = s / ((x1 - x0 + 1) * (y1 - y0 + 1));
      }
    }
    return { points, colours, channels: ch, descriptors: Uint8Array.from(desc.data as Uint8Array), count };
  } finally {
    img.delete(); orb.delete(); kps.delete(); desc.delete(); maskMat.delete();
  }
}

/** Luma of pixel-interleaved pixels (first three channels as RGB), or the first channel. */
export function greyOf(data: Uint8Array, pixels: number, channels: number): Uint8Array {
  const grey = new Uint8Array(pixels);
  for (let i = 0, j = 0; i < pixels; i++, j += channels) {
    grey[i] = channels >= 3 ? (data[j]! * 77 + data[j + 1]! * 150 + data[j + 2]! * 29) >> 8 : data[j]!;
  }
  return grey;
}

export interface PairMatch {
  i: number;
  j: number;
  /** Inlier correspondences in full-resolution pixels: x_i y_i x_j y_j ... */
  pts: Float64Array;
  /** Colour ratio log(mean_i / mean_j) per channel over the inliers. */
  logRatio: number[];
  /** Median distance (m) between the matched points as placed by GPS alone. */
  gpsDisagreementM: number;
  /** Rotation (radians, counter-clockwise in image coordinates) taking photo i's pixels to photo j's. */
  rotation: number;
}

export type PairRejection = 'no_matches' | 'gps_disagreement';

/** One photo of a pair to match: its index, features, placement prior and centre (pixels). */
export interface PairSide {
  i: number;
  features: Features;
  placement: Placement;
  centre: [number, number];
}

/** What matches a pair (matchPair), in this thread or another (threads.ts). */
export type PairMatcher = (a: PairSide, b: PairSide, maxGpsDisagreementM: number, searchRadiusM: number) => Promise<PairMatch | PairRejection>;

/** matchPair in this thread. */
export const matchHere: PairMatcher = (a, b, maxGpsDisagreementM, searchRadiusM) =>
  matchPair(a.i, a.features, a.placement, a.centre, b.i, b.features, b.placement, b.centre, maxGpsDisagreementM, searchRadiusM);

/**
 * Matches two photos; null when too few consistent matches. `maxGpsDisagreementM` rejects pairs whose
 * image offset contradicts the GPS offset (repeated texture, wrong neighbour).
 */
export async function matchPair(
  i: number, fi: Features, pi: Placement, ci: [number, number],
  j: number, fj: Features, pj: Placement, cj: [number, number],
  maxGpsDisagreementM: number,
  searchRadiusM: number,
): Promise<PairMatch | PairRejection> {
  if (fi.count < MIN_INLIERS || fj.count < MIN_INLIERS) return 'no_matches';
  const good = guidedMatches(fi, pi, ci, fj, pj, cj, searchRadiusM);
  if (good.length < MIN_INLIERS) return 'no_matches';
  const fit = await ransacAffine(fi, fj, good, featureScale(ci[0] * 2, ci[1] * 2));
  if (!fit) return 'no_matches';
  const inliers = good.filter((_, k) => fit.inliers[k]);
  if (inliers.length < MIN_INLIERS) return 'no_matches';

  const pts = new Float64Array(inliers.length * 4);
  const dist: number[] = [];
  const ch = Math.min(fi.channels, fj.channels);
  const sumI = new Array<number>(ch).fill(0), sumJ = new Array<number>(ch).fill(0);
  inliers.forEach(([a, b], k) => {
    const xi = fi.points[2 * a]!, yi = fi.points[2 * a + 1]!, xj = fj.points[2 * b]!, yj = fj.points[2 * b + 1]!;
    pts.set([xi, yi, xj, yj], 4 * k);
    const [e1, n1] = toGround(pi, ci[0], ci[1], xi, yi);
    const [e2, n2] = toGround(pj, cj[0], cj[1], xj, yj);
    dist.push(Math.hypot(e1 - e2, n1 - n2));
    for (let c = 0; c < ch; c++) {
      sumI[c] = sumI[c]! + fi.colours[a * fi.channels + c]!;
      sumJ[c] = sumJ[c]! + fj.colours[b * fj.channels + c]!;
    }
  });
  const gpsDisagreementM = median(dist);
  if (gpsDisagreementM > maxGpsDisagreementM) return 'gps_disagreement';
  const logRatio = sumI.map((v, c) => Math.log(Math.max(v, 1) / Math.max(sumJ[c]!, 1)));
  const [m00, m01, , m10, m11] = fit.affine;
  const rotation = Math.atan2(m10! - m01!, m00! + m11!);
  return { i, j, pts, logRatio, gpsDisagreementM, rotation };
}

/**
 * RANSAC's affine transform between matched keypoints of two photos ([m00, m01, m02, m10, m11, m12],
 * in coordinates reduced by `s`, so that its threshold means the same at any photo size) and which
 * matches agree with it; null when none is found. OpenCV's objects are freed before it returns.
 */
async function ransacAffine(fi: Features, fj: Features, good: [number, number][], s: number): Promise<{ affine: number[]; inliers: boolean[] } | null> {
  const { cv } = await openCv();
  const from = cv.matFromArray(good.length, 1, cv.CV_32FC2, good.flatMap(([a]) => [fi.points[2 * a]! * s, fi.points[2 * a + 1]! * s]));
  const to = cv.matFromArray(good.length, 1, cv.CV_32FC2, good.flatMap(([, b]) => [fj.points[2 * b]! * s, fj.points[2 * b + 1]! * s]));
  const inl = new cv.Mat();
  let affine;
  try {
    affine = cv.estimateAffine2D(from, to, inl, cv.RANSAC, RANSAC_PX, 2000, 0.995, 10);
    if (affine.empty()) return null;
    return { affine: Array.from(affine.data64F as Float64Array), inliers: Array.from(inl.data as Uint8Array, (v) => v === 1) };
  } finally {
    from.delete(); to.delete(); inl.delete(); affine?.delete();
  }
}

/**
 * The affine transform [m00, m01, m02, m10, m11, m12] taking photo i's full-resolution pixels to photo
 * j's, from matches found with no placement guess (brute force over every `stride`-th keypoint of i:
 * all of j's keypoints stay candidates, so the match rate holds); null when too few agree. For photos
 * whose heading and height are unknown, so that GPS cannot guide the search.
 */
export async function unguidedMotion(fi: Features, ci: [number, number], fj: Features, stride: number): Promise<number[] | null> {
  const search = descriptorSearch(fi.count, fj.count);
  search.queries.set(fi.descriptors.subarray(0, 32 * fi.count));
  search.candidates.set(fj.descriptors.subarray(0, 32 * fj.count));
  const good: [number, number][] = [];
  for (let a = 0; a < fi.count; a += stride) {
    search.reset();
    search.search(a, 0, fj.count);
    const { best, second, bestIndex } = search;
    if (bestIndex >= 0 && best < 64 && best < RATIO * second) good.push([a, bestIndex]);
  }
  if (good.length < MIN_INLIERS) return null;
  const s = featureScale(ci[0] * 2, ci[1] * 2);
  const fit = await ransacAffine(fi, fj, good, s);
  if (!fit || fit.inliers.filter(Boolean).length < MIN_INLIERS) return null;
  const [m00, m01, m02, m10, m11, m12] = fit.affine as [number, number, number, number, number, number];
  return [m00, m01, m02 / s, m10, m11, m12 / s];
}

/** What finds a pair's motion without a placement guess (unguidedMotion), in this thread or another (threads.ts). */
export type MotionFinder = typeof unguidedMotion;

/**
 * Descriptor matches searched only near where GPS predicts each point in the other photo (ratio test
 * among those): far fewer comparisons than brute force, and repeated texture elsewhere cannot win.
 */
export function guidedMatches(
  fi: Features, pi: Placement, ci: [number, number], fj: Features, pj: Placement, cj: [number, number], radiusM: number,
): [number, number][] {
  if (!fi.count || !fj.count) return [];
  // Cells half the radius wide: a cell wholly inside the radius needs no test a keypoint, one wholly outside none at all.
  const cellM = radiusM / 2;
  const search = descriptorSearch(fi.count, fj.count);
  search.queries.set(fi.descriptors.subarray(0, 32 * fi.count));
  const { gw, gh, minE, minN, first, members } = groundCells(fj, pj, cj, cellM, search);
  const out: [number, number][] = [];
  const r2 = radiusM * radiusM;
  for (let a = 0; a < fi.count; a++) {
    const [e, n] = toGround(pi, ci[0], ci[1], fi.points[2 * a]!, fi.points[2 * a + 1]!);
    const ex = e - minE, ny = n - minN;
    const kx = Math.floor(ex / cellM), ky = Math.floor(ny / cellM);
    // Ties for the best fail the ratio test whatever the order, so cells may be visited in any order.
    search.reset();
    for (let y = Math.max(0, ky - 2); y <= Math.min(gh - 1, ky + 2); y++) {
      const nearY = Math.max(0, y * cellM - ny, ny - (y + 1) * cellM), farY = Math.max(ny - y * cellM, (y + 1) * cellM - ny);
      for (let x = Math.max(0, kx - 2); x <= Math.min(gw - 1, kx + 2); x++) {
        const nearX = Math.max(0, x * cellM - ex, ex - (x + 1) * cellM), farX = Math.max(ex - x * cellM, (x + 1) * cellM - ex);
        if (nearX * nearX + nearY * nearY > r2) continue;
        search.search(a, first[y * gw + x]!, first[y * gw + x + 1]!, e, n, r2, farX * farX + farY * farY <= r2);
      }
    }
    const { best, second, bestIndex } = search;
    if (bestIndex >= 0 && best < 64 && best < RATIO * second) out.push([a, members[bestIndex]!]);
  }
  return out;
}

/**
 * Keypoints of a photo on the ground, bucketed in cells `cellM` wide: cell c holds members[first[c]
 * .. first[c + 1]), in keypoint order. Their ground positions and descriptors are laid out in that
 * order in the search's candidates (member m's), so a cell's are read in one sweep.
 */
function groundCells(f: Features, p: Placement, c: [number, number], cellM: number, search: DescriptorSearch) {
  const ground = new Float64Array(f.count * 2);
  let minE = Infinity, minN = Infinity, maxE = -Infinity, maxN = -Infinity;
  for (let b = 0; b < f.count; b++) {
    const [e, n] = toGround(p, c[0], c[1], f.points[2 * b]!, f.points[2 * b + 1]!);
    ground[2 * b] = e; ground[2 * b + 1] = n;
    minE = Math.min(minE, e); minN = Math.min(minN, n); maxE = Math.max(maxE, e); maxN = Math.max(maxN, n);
  }
  const gw = Math.floor((maxE - minE) / cellM) + 1, gh = Math.floor((maxN - minN) / cellM) + 1;
  const cellOf = new Int32Array(f.count), first = new Int32Array(gw * gh + 1), members = new Int32Array(f.count);
  for (let b = 0; b < f.count; b++) {
    cellOf[b] = Math.floor((ground[2 * b + 1]! - minN) / cellM) * gw + Math.floor((ground[2 * b]! - minE) / cellM);
    first[cellOf[b]! + 1]!++;
  }
  for (let k = 0; k < gw * gh; k++) first[k + 1]! += first[k]!;
  const next = first.slice(0, gw * gh);
  for (let b = 0; b < f.count; b++) members[next[cellOf[b]!]!++] = b;
  for (let m = 0; m < f.count; m++) {
    const b = members[m]!;
    search.ground[2 * m] = ground[2 * b]!; search.ground[2 * m + 1] = ground[2 * b + 1]!;
    search.candidates.set(f.descriptors.subarray(32 * b, 32 * b + 32), 32 * m);
  }
  return { gw, gh, minE, minN, first, members };
}

export function median(values: ArrayLike<number>): number {
  const a = Float64Array.from(values).sort();
  if (!a.length) return NaN;
  const m = a.length >> 1;
  return a.length % 2 ? a[m]! : (a[m - 1]! + a[m]!) / 2;
}
