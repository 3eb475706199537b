// Orthomosaic: photos placed on a UTM grid from GPS, refined by image matching and a global
// adjustment on the relief the matches show (relief.ts), composited pixel by pixel from the photo
// nearest nadir with feathered seams and per-photo exposure gains, written as a tiled, compressed
// GeoTIFF (GDAL) plus a WGS84 web preview.
import { execFile } from 'node:child_process';
import { mkdir, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Polygon } from 'geojson';
import sharp from 'sharp';
import { AppError } from '@/lib/errors';
import { adjustPlacements, exposureGains, gpsBlockFit } from './adjust';
import type { DronePhoto } from './exif';
import type { Features, PairMatch } from './features';
import { detectFeatures, FEATURE_SIDE, featureScale, matchPair, median, orbFeatures } from './features';
import type { Placement, UtmFrame } from './frame';
import { footprint, gpsPlacement, groundSampleM, headingDeg, heightM, recordsHeading, recordsHeight, toGround, TYPICAL_FOV_H, utmFrame } from './frame';
import type { ReliefGrid, TiePoints } from './relief';
import { heightsAlongRow, onRelief, reliefFactors, reliefGrid, ringOnRelief, tiePointHeights } from './relief';
import type { LevelledPhoto } from './radiometry';
import { levelled, levelledBytes, surveyScale } from './radiometry';
import { orthomosaicPath } from './files';
import { decodingPhoto } from './photo-decode';
import type { GridWindow, SeamCheck } from './seams';
import { rematchSeams } from './seams';
import type { Capture } from './survey';
import { groupCaptures, otherFlights } from './survey';
import { flightOrder, trackPriors } from './track';

const run = promisify(execFile);

export type DroneStep = 'stitching' | 'index' | 'classification' | 'done';
export type StitchReason = 'no_matches' | 'too_little_overlap' | 'mixed_flights' | 'disconnected';

/** Stitching failure: message key `errors.drone_stitch_failed`, `params.reason` one of StitchReason. */
export class StitchError extends AppError {
  constructor(readonly reason: StitchReason, detail = '') {
    super('unprocessable', 'drone_stitch_failed', { reason, ...(detail ? { detail } : {}) });
  }
}

export interface Mosaic {
  geotiffPath: string;
  previewPng: string;
  /** [west, south, east, north] of the preview image. */
  boundsWgs84: [number, number, number, number];
  footprintWgs84: Polygon;
  /** "EPSG:326zz" / "EPSG:327zz". */
  crs: string;
  gsdM: number;
  photoCount: number;
  /** Median distance between matched features of overlapping photos along the seams, as composited, in output pixels. */
  medianMisalignmentPx: number;
  /** The same measured on the output by re-matching features (only with BuildOptions.rematchSeams). */
  rematchedSeams?: SeamCheck;
  width: number;
  height: number;
  /** Band names in file order ("red", "green", "blue" or multispectral names lower-cased); alpha follows. */
  bands: string[];
  /** GDAL geotransform [x0, gsd, 0, y0, 0, -gsd] in the CRS. */
  geoTransform: [number, number, number, number, number, number];
  /** Pixel-interleaved raw copy (bands + alpha, 8 bit) the analysis reads without decoding the GeoTIFF. */
  rawPath: string;
  /** The raw copy and its GDAL header: four times the GeoTIFF's size, removed once the analysis is done. */
  scratchPaths: string[];
  /** Final placement of each capture's centre, [lon, lat], in input order of captures. */
  photoCentresWgs84: [number, number][];
}

export interface BuildOptions {
  workDir: string;
  onProgress?: (percent: number, step: DroneStep) => void;
  /** Output size cap in pixels; the ground resolution is coarsened to fit. */
  maxPixels?: number;
  /** Budget for decoded full-resolution photos held at once. */
  cacheBytes?: number;
  /** Also re-match features along the seams in the output (rematchSeams): a check for tests and benchmarks, seconds more. */
  rematchSeams?: boolean;
}

export const DEFAULT_MAX_PIXELS = 25_000_000;
const GPS_SIGMA_M = 3;
/** Take-off-relative height over uneven ground (a few metres at 40 m) and a calibrated compass. */
const BLOCK_PRIOR_SIGMA = { scale: 0.05, headingRad: (3 * Math.PI) / 180 };
/**
 * Headings and heights taken from the track (track.ts) come from the very GPS positions the block is
 * laid on: no second opinion, so they count as a guess would and those positions decide.
 */
const TRACK_PRIOR_SIGMA = { scale: 1, headingRad: Math.PI };
const MIN_OVERLAP = 0.2;
/** Seam feathering: weight falls by e per this many metres of extra distance from nadir. */
const FEATHER_M = 0.6;
/** Photo edges fade over this many pixels so a neighbour can take over smoothly. */
const EDGE_FEATHER_PX = 60;
const BLOCK_ROWS = 128;
/** Relief grid cell: trees and banks are resolved, single noisy tie points are not. */
const RELIEF_CELL_M = 2;
/** Adjustments on the relief of the previous one (heights and placements settle together). */
const RELIEF_ROUNDS = 2;
/** Points per side of a footprint traced over the relief (bounds of the output grid and of each photo). */
const FOOTPRINT_POINTS_PER_SIDE = 16;

const MS_BANDS = ['blue', 'green', 'red', 'rededge', 'nir'];

function bandsOf(captures: Capture[]): string[] {
  const ms = captures[0]!.photos.filter((p) => p.bandName);
  if (!ms.length) return ['red', 'green', 'blue'];
  const names = [...new Set(ms.map((p) => p.bandName!.toLowerCase().replace(/[^a-z]/g, '')))];
  return names.sort((x, y) => (MS_BANDS.indexOf(x) + 99) % 99 - (MS_BANDS.indexOf(y) + 99) % 99);
}

/** Area of the intersection of two convex rings (Sutherland–Hodgman), m². */
function convexOverlap(a: [number, number][], b: [number, number][]): number {
  let out = a.slice(0, -1);
  const clip = b.slice(0, -1);
  const sign = Math.sign(ringArea(b));
  for (let k = 0; k < clip.length && out.length; k++) {
    const [p, q] = [clip[k]!, clip[(k + 1) % clip.length]!];
    const inside = (v: [number, number]) => sign * ((q[0] - p[0]) * (v[1] - p[1]) - (q[1] - p[1]) * (v[0] - p[0])) >= 0;
    const input = out;
    out = [];
    for (let i = 0; i < input.length; i++) {
      const cur = input[i]!, prev = input[(i + input.length - 1) % input.length]!;
      const cross = (): [number, number] => {
        const d1 = [cur[0] - prev[0], cur[1] - prev[1]], d2 = [q[0] - p[0], q[1] - p[1]];
        const t = ((p[0] - prev[0]) * d2[1]! - (p[1] - prev[1]) * d2[0]!) / (d1[0]! * d2[1]! - d1[1]! * d2[0]!);
        return [prev[0] + t * d1[0]!, prev[1] + t * d1[1]!];
      };
      if (inside(cur)) {
        if (!inside(prev)) out.push(cross());
        out.push(cur);
      } else if (inside(prev)) out.push(cross());
    }
  }
  return out.length < 3 ? 0 : Math.abs(ringArea([...out, out[0]!]));
}

function ringArea(r: [number, number][]): number {
  let s = 0;
  for (let i = 0; i + 1 < r.length; i++) s += r[i]![0] * r[i + 1]![1] - r[i + 1]![0] * r[i]![1];
  return s / 2;
}

function convexHull(points: [number, number][]): [number, number][] {
  const p = points.slice().sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const cross = (o: [number, number], a: [number, number], b: [number, number]) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const lower: [number, number][] = [];
  for (const q of p) { while (lower.length >= 2 && cross(lower.at(-2)!, lower.at(-1)!, q) <= 0) lower.pop(); lower.push(q); }
  const upper: [number, number][] = [];
  for (const q of p.reverse()) { while (upper.length >= 2 && cross(upper.at(-2)!, upper.at(-1)!, q) <= 0) upper.pop(); upper.push(q); }
  const hull = [...lower.slice(0, -1), ...upper.slice(0, -1)];
  return [...hull, hull[0]!];
}

/** The placement turned by 180° about its centre when `flip`. */
const turned = (p: Placement, flip: boolean): Placement => (flip ? { ...p, a: -p.a, b: -p.b } : p);

/** Connected groups of photos through accepted pairs. */
function components(n: number, pairs: { i: number; j: number }[]): number[][] {
  const parent = Array.from({ length: n }, (_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  for (const { i, j } of pairs) parent[find(i)] = find(j);
  const groups = new Map<number, number[]>();
  for (let i = 0; i < n; i++) groups.set(find(i), [...(groups.get(find(i)) ?? []), i]);
  return [...groups.values()];
}

interface Placed {
  capture: Capture;
  width: number;
  height: number;
  centre: [number, number];
  gsd: number;
  /** Height above ground the prior's scale `gsd` was derived from (m). */
  heightM: number;
  /** Camera heading of the prior (degrees clockwise from north). */
  headingDeg: number;
  prior: Placement;
}

const EMPTY = new Uint8Array(0);

/**
 * The coarsest decoding of the photos (JPEG decoders shrink by 2, 4 and 8 almost for free) whose
 * pixels are still no more than about 10 % coarser than the output grid's.
 */
export function decodeScale(nativeGsd: number, outputGsd: number): number {
  let scale = 1;
  while (scale > 1 / 8 && scale / 2 >= (0.9 * nativeGsd) / outputGsd) scale /= 2;
  return scale;
}

/** Decoded pixels of captures, least recently used dropped beyond the byte budget. */
class PhotoCache {
  private readonly items = new Map<number, Uint8Array>();
  private bytes = 0;
  constructor(
    private readonly placed: Placed[], private readonly bands: string[], private readonly budget: number,
    /** Decoding scale (1, 1/2, 1/4 or 1/8, see decodeScale): a coarser output grid does not need every source pixel. */
    private readonly scale: number,
    /** Common 8-bit factor of calibrated bands and 16-bit photos (radiometry.ts). */
    private readonly radiometricScale: number,
  ) {}

  async get(i: number): Promise<Uint8Array> {
    const hit = this.items.get(i);
    if (hit) {
      this.items.delete(i);
      this.items.set(i, hit);
      return hit;
    }
    const px = await this.decode(this.placed[i]!);
    this.items.set(i, px);
    this.bytes += px.length;
    for (const [k, v] of this.items) {
      if (this.bytes <= this.budget || k === i) break;
      this.items.delete(k);
      this.bytes -= v.length;
    }
    return px;
  }

  /** Forgets a photo that no later part of the mosaic needs. */
  release(i: number): void {
    const px = this.items.get(i);
    if (!px) return;
    this.items.delete(i);
    this.bytes -= px.length;
  }

  /** Pixel-interleaved bands in `this.bands` order. */
  private async decode(p: Placed): Promise<Uint8Array> {
    const nb = this.bands.length;
    const { capture } = p;
    const width = Math.round(p.width * this.scale), height = Math.round(p.height * this.scale);
    if (!capture.main.bandName) {
      const main = levelled(capture.main);
      if (main) return levelledBytes(main, width, height, this.radiometricScale);
      const img = sharp(capture.main.path).removeAlpha().toColourspace('srgb');
      const { data, info } = await decodingPhoto(capture.main.file, () => (this.scale < 1 ? img.resize(width, height, { fit: 'fill' }) : img).raw().toBuffer({ resolveWithObject: true }));
      if (info.width !== width || info.height !== height) throw new StitchError('no_matches', `size of ${capture.main.file}`);
      return new Uint8Array(data.buffer, data.byteOffset, data.length);
    }
    const out = new Uint8Array(width * height * nb);
    for (const photo of capture.photos) {
      const b = this.bands.indexOf((photo.bandName ?? '').toLowerCase().replace(/[^a-z]/g, ''));
      if (b < 0) continue;
      const band = levelled(photo);
      const data = band
        ? await levelledBytes(band, width, height, this.radiometricScale)
        : (await decodingPhoto(photo.file, () => sharp(photo.path).extractChannel(0).resize(width, height, { fit: 'fill' }).raw().toBuffer({ resolveWithObject: true }))).data;
      for (let k = 0, o = b; k < data.length; k++, o += nb) out[o] = data[k]!;
    }
    return out;
  }
}

/**
 * Builds the orthomosaic of one flight. Throws StitchError (`errors.drone_stitch_failed`, reason in
 * params) when the photos cannot be tied together; expects photos that passed checkSurvey.
 */
export async function buildOrthomosaic(photos: DronePhoto[], opts: BuildOptions): Promise<Mosaic> {
  const progress = (p: number) => opts.onProgress?.(Math.round(p), 'stitching');
  progress(0);
  if (otherFlights(photos).length) throw new StitchError('mixed_flights');
  const captures = groupCaptures(photos.filter((p) => p.gps));
  if (captures.length < 2) throw new StitchError('too_little_overlap');
  await mkdir(opts.workDir, { recursive: true });

  const mains = captures.map((c) => c.main);
  const frame = utmFrame(median(mains.map((p) => p.gps!.lon)), median(mains.map((p) => p.gps!.lat)));

  // 1. Features on reduced copies, two photos at a time (sharp decodes on its own threads). A band photo
  // that records its calibration is calibrated first: raw counts sit in a narrow range above the black
  // level and darken towards the edges, which starves the detector and skews the exposure comparison.
  // Other 16-bit photos are written to 8 bits from the survey's range, as the compositing sees them.
  const radiometricScale = await radiometricScaleOf(captures);
  const features: Features[] = new Array(mains.length);
  let done = 0;
  const queue = mains.map((_, i) => i);
  await Promise.all([0, 1].map(async () => {
    for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
      const main = mains[i]!;
      const lv = levelled(main);
      features[i] = lv ? await levelledFeatures(lv, radiometricScale) : await detectFeatures(main.path, main.widthPx, main.heightPx);
      progress((35 * ++done) / mains.length);
    }
  }));

  // Placement priors: GPS position, height and heading as recorded; photos that record no heading or
  // height above take-off (no DJI XMP) take them from the flight track and the matches along it.
  const recorded = { heading: mains.every(recordsHeading), height: mains.every(recordsHeight) };
  const fromTrack = recorded.heading && recorded.height ? null : await trackPriors(mains, features, mains.map((p) => frame.toUtm(p.gps!.lon, p.gps!.lat)));
  const medianHeight = median(mains.map((p) => heightM(p, 100)));
  const placed: Placed[] = captures.map((capture, i) => {
    const p = capture.main;
    const h = heightM(p, fromTrack?.heightM?.[i] ?? medianHeight);
    const heading = recordsHeading(p) ? headingDeg(p) : fromTrack!.headingDeg[i]!;
    const gsd = groundSampleM(p, h) ?? (2 * h * Math.tan(TYPICAL_FOV_H / 2)) / p.widthPx;
    return { capture, width: p.widthPx, height: p.heightPx, centre: [p.widthPx / 2, p.heightPx / 2], gsd, heightM: h, headingDeg: heading, prior: gpsPlacement(p, frame, h, gsd, heading) };
  });

  // 2. Candidate pairs from the GPS footprints only: cost grows with the number of photos, not its square.
  const rings = placed.map((p) => footprint(p.prior, p.width, p.height));
  const candidates: [number, number][] = [];
  for (let i = 0; i < placed.length; i++) {
    const ai = Math.abs(ringArea(rings[i]!));
    for (let j = i + 1; j < placed.length; j++) {
      const ov = convexOverlap(rings[i]!, rings[j]!);
      if (ov > MIN_OVERLAP * Math.min(ai, Math.abs(ringArea(rings[j]!)))) candidates.push([i, j]);
    }
  }
  if (!candidates.length) throw new StitchError('too_little_overlap');
  const footprintSize = median(placed.map((p) => p.width * p.gsd));
  const match = (i: number, j: number, flipI: boolean, flipJ: boolean) =>
    matchPair(i, features[i]!, turned(placed[i]!.prior, flipI), placed[i]!.centre, j, features[j]!, turned(placed[j]!.prior, flipJ), placed[j]!.centre,
      4 * GPS_SIGMA_M + 0.1 * footprintSize, 4 * GPS_SIGMA_M);
  const inliers = (r: PairMatch | string) => (typeof r === 'object' ? r.pts.length / 4 : 0);

  // Recorded headings can be off by 180° on return lines (some DJI firmware logs the aircraft's turn
  // while the camera keeps facing the same way). Consecutive photos of a line decide, for each photo,
  // which of the two headings makes the image motion agree with the GPS motion.
  const isCandidate = new Set(candidates.map(([i, j]) => `${i}:${j}`));
  const order = flightOrder(mains);
  const votes = new Array<number>(placed.length).fill(0);
  const tried = new Map<string, { flip: boolean; result: PairMatch | string }>();
  for (let k = 0; k + 1 < order.length; k++) {
    const [i, j] = [Math.min(order[k]!, order[k + 1]!), Math.max(order[k]!, order[k + 1]!)];
    if (!isCandidate.has(`${i}:${j}`)) continue;
    const asLogged = await match(i, j, false, false);
    // A clear match as logged settles it; only doubtful pairs pay for the second hypothesis.
    const turnedBoth = inliers(asLogged) >= 60 ? 'no_matches' : await match(i, j, true, true);
    const vote = Math.sign(inliers(turnedBoth) - inliers(asLogged));
    votes[i] = votes[i]! + vote;
    votes[j] = votes[j]! + vote;
    tried.set(`${i}:${j}`, vote > 0 ? { flip: true, result: turnedBoth } : { flip: false, result: asLogged });
    progress(35 + (5 * (k + 1)) / order.length);
  }
  // Undecided photos (line ends, no overlap with the next shot) follow the nearest decided photo logged
  // with the same heading.
  const yaw = (i: number) => placed[i]!.headingDeg;
  const sameHeading = (x: number, y: number) => Math.abs((((yaw(x) - yaw(y)) % 360) + 540) % 360 - 180) < 30;
  const flipped = order.map(() => false);
  order.forEach((i, k) => {
    if (votes[i] !== 0) return void (flipped[i] = votes[i]! > 0);
    for (let d = 1; d < order.length; d++) {
      const near = [order[k - d], order[k + d]].find((x) => x !== undefined && votes[x] !== 0 && sameHeading(x, i));
      if (near !== undefined) return void (flipped[i] = votes[near]! > 0);
    }
  });
  placed.forEach((p, i) => (p.prior = turned(p.prior, flipped[i]!)));

  const pairs: PairMatch[] = [];
  let gpsRejected = 0;
  for (const [k, [i, j]] of candidates.entries()) {
    const known = tried.get(`${i}:${j}`);
    const r = known && known.flip === flipped[i] && known.flip === flipped[j] ? known.result : await match(i, j, false, false);
    if (typeof r === 'object') pairs.push(r);
    else if (r === 'gps_disagreement') gpsRejected++;
    progress(40 + (5 * (k + 1)) / candidates.length);
  }
  if (!pairs.length) throw new StitchError('no_matches', gpsRejected ? `${gpsRejected} pairs contradict GPS` : '');
  const groups = components(placed.length, pairs);
  if (groups.length > 1) {
    const linked = components(placed.length, candidates.map(([i, j]) => ({ i, j })));
    throw new StitchError(linked.length > 1 ? 'too_little_overlap' : 'disconnected', `${groups.length} groups`);
  }

  // 3. Global adjustment on flat ground, then on the relief its tie points show, twice.
  const matchSigmaM = median(placed.map((p) => (p.gsd * Math.max(p.width, p.height)) / FEATURE_SIDE));
  // Each adjustment is then laid on the GPS track (scale and heading as the GPS positions show them,
  // as photogrammetry georeferences a block), and the next one keeps that scale.
  const optics = placed.map((p) => p.prior), centres = placed.map((p) => p.centre);
  const gps = optics.map((p): [number, number] => [p.tx, p.ty]);
  let priors = optics;
  const blockPriorSigma = {
    scale: (recorded.height ? BLOCK_PRIOR_SIGMA : TRACK_PRIOR_SIGMA).scale,
    headingRad: (recorded.heading ? BLOCK_PRIOR_SIGMA : TRACK_PRIOR_SIGMA).headingRad,
  };
  const adjustOpts = { gpsSigmaM: GPS_SIGMA_M, matchSigmaM, scaleSigma: 0.3 };
  let factors: Float64Array[] | undefined; // none: flat ground
  let adj!: ReturnType<typeof adjustPlacements>, flyingHeightM!: number[], tie!: TiePoints, relief!: ReliefGrid;
  for (let round = 0; round <= RELIEF_ROUNDS; round++) {
    adj = adjustPlacements(priors, centres, pairs, adjustOpts, factors);
    const block = gpsBlockFit(adj.placements, optics, gps, GPS_SIGMA_M, blockPriorSigma);
    adj = { ...adj, placements: adj.placements.map(block.apply) };
    const [zr, zi] = block.total;
    priors = optics.map((p) => ({ ...p, a: zr * p.a - zi * p.b, b: zi * p.a + zr * p.b }));
    flyingHeightM = flyingHeights(placed, adj.placements);
    tie = tiePointHeights(pairs, adj.placements, centres, flyingHeightM);
    relief = reliefGrid(tie, RELIEF_CELL_M);
    if (round < RELIEF_ROUNDS) factors = reliefFactors(pairs, tie, relief, flyingHeightM);
  }
  progress(48);

  // 4. Output grid, from the photos' footprints as they lie on the relief.
  const finalRings = placed.map((p, i) => {
    const q = adj.placements[i]!;
    return ringOnRelief(relief, footprint(q, p.width, p.height), [q.tx, q.ty], flyingHeightM[i]!, FOOTPRINT_POINTS_PER_SIDE);
  });
  const all = finalRings.flat();
  const minE = Math.min(...all.map((q) => q[0])), maxE = Math.max(...all.map((q) => q[0]));
  const minN = Math.min(...all.map((q) => q[1])), maxN = Math.max(...all.map((q) => q[1]));
  const nativeGsd = median(adj.placements.map((p, i) => Math.hypot(p.a, p.b) || placed[i]!.gsd));
  const maxPixels = opts.maxPixels ?? DEFAULT_MAX_PIXELS;
  const gsd = Math.max(nativeGsd, Math.sqrt(((maxE - minE) * (maxN - minN)) / maxPixels));
  const x0 = Math.floor(minE / gsd) * gsd, y0 = Math.ceil(maxN / gsd) * gsd;
  const W = Math.ceil((maxE - x0) / gsd), H = Math.ceil((y0 - minN) / gsd);
  const bands = bandsOf(captures);
  const nb = bands.length;
  const stride = nb + 1;
  const gains = exposureGains(placed.length, features[0]!.channels, pairs);

  const scale = decodeScale(nativeGsd, gsd);
  const sources: Sources = {
    placed, placements: adj.placements, flyingHeightM, relief, gains, nb, scale,
    bbox: finalRings.map((r) => [Math.min(...r.map((q) => q[0])), Math.max(...r.map((q) => q[0])), Math.min(...r.map((q) => q[1])), Math.max(...r.map((q) => q[1]))]),
    cache: new PhotoCache(placed, bands, opts.cacheBytes ?? 900 * 1024 * 1024, scale, radiometricScale),
  };
  const out = await composite(sources, { x0, y0, gsd, W, H }, null, (row) => progress(48 + (42 * row) / H));
  const rematchedSeams = opts.rematchSeams
    ? await rematchSeams({ rings: finalRings, bbox: sources.bbox, nadirs: adj.placements.map((p) => [p.tx, p.ty]), nb, render: (win, i) => composite(sources, win, [i]) }, { x0, y0, gsd, W, H }, pairs)
    : undefined;

  // 5. Files: raw + VRT -> tiled, compressed GeoTIFF through GDAL; preview in WGS84.
  const rawPath = join(opts.workDir, 'mosaic.raw');
  const vrtPath = join(opts.workDir, 'mosaic.vrt');
  const geotiffPath = orthomosaicPath(opts.workDir);
  const previewPng = join(opts.workDir, 'preview.png');
  const geoTransform: Mosaic['geoTransform'] = [x0, gsd, 0, y0, 0, -gsd];
  await writeFile(rawPath, out);
  await writeFile(vrtPath, rawVrt('mosaic.raw', W, H, [...bands, 'alpha'], frame, geoTransform));
  await unlink(geotiffPath).catch(() => undefined);
  await run('gdal_translate', ['-q', '-of', 'GTiff', '-co', 'TILED=YES', '-co', 'COMPRESS=DEFLATE', '-co', 'PREDICTOR=2', '-co', 'ZLEVEL=3', '-co', 'BIGTIFF=IF_SAFER', '-co', 'NUM_THREADS=2', vrtPath, geotiffPath]);
  progress(96);
  const boundsWgs84 = await writePreview(out, W, H, stride, nb, bands, frame, geoTransform, previewPng);

  const hull = convexHull(all).map(([e, n]) => frame.toWgs84(e, n));
  const mosaic: Mosaic = {
    geotiffPath,
    previewPng,
    boundsWgs84,
    footprintWgs84: { type: 'Polygon', coordinates: [hull] },
    crs: `EPSG:${frame.epsg}`,
    gsdM: gsd,
    photoCount: captures.length,
    medianMisalignmentPx: seamMisalignmentM(pairs, tie, adj.placements, centres, flyingHeightM) / gsd,
    ...(rematchedSeams ? { rematchedSeams } : {}),
    width: W,
    height: H,
    bands,
    geoTransform,
    rawPath,
    scratchPaths: [rawPath, vrtPath],
    photoCentresWgs84: adj.placements.map((p, i) => {
      const [e, n] = toGround(p, placed[i]!.centre[0], placed[i]!.centre[1], placed[i]!.centre[0], placed[i]!.centre[1]);
      return frame.toWgs84(e, n);
    }),
  };
  progress(100);
  return mosaic;
}

/** What compositing draws from: the photos as finally placed on the relief. */
interface Sources {
  placed: Placed[];
  placements: Placement[];
  flyingHeightM: number[];
  relief: ReliefGrid;
  /** Per-photo exposure gains, per channel. */
  gains: number[][];
  /** Bands (alpha follows in the output). */
  nb: number;
  /** Decoding scale of the photos (decodeScale). */
  scale: number;
  /** Each photo's [minE, maxE, minN, maxN] on the relief. */
  bbox: number[][];
  cache: PhotoCache;
}

/**
 * Pixel-interleaved bands + alpha of a window of the mosaic, each pixel from the photo nearest nadir
 * there with feathered seams, drawn from `only` these photos (null: all of them).
 */
async function composite(src: Sources, grid: GridWindow, only: number[] | null, onRows?: (rowsDone: number) => void): Promise<Uint8Array> {
  const { placed, placements, relief, gains, nb, scale, bbox, cache } = src;
  const { x0, y0, gsd, W, H } = grid;
  const stride = nb + 1;
  const out = new Uint8Array(W * H * stride);
  // Inverse placements: pixel = centre + M · (ground - t), M = inverse of [[a, -b], [b, a]] with y flipped.
  const inv = placements.map((p, i) => {
    const k = p.a * p.a + p.b * p.b;
    return { p, cx: placed[i]!.centre[0], cy: placed[i]!.centre[1], ia: p.a / k, ib: p.b / k };
  });
  // Decoded-pixel coordinates of each photo's centre (pixel centres scale about the corner), its height.
  const cxd = Float64Array.from(placed, (p) => (p.centre[0] + 0.5) * scale - 0.5), cyd = Float64Array.from(placed, (p) => (p.centre[1] + 0.5) * scale - 0.5);
  const flyH = Float64Array.from(src.flyingHeightM);
  const cutoff = 6 * FEATHER_M;
  const acc = new Float64Array(nb);
  const nCap = placed.length;
  // Per-row state of each candidate photo: pixel position at column 0 and its step per column.
  const u0 = new Float64Array(nCap), v0 = new Float64Array(nCap), du = new Float64Array(nCap), dv = new Float64Array(nCap);
  const cu = new Float64Array(nCap), cvv = new Float64Array(nCap), cd = new Float64Array(nCap), ce = new Float64Array(nCap);
  const cand = new Int32Array(nCap);
  const rowHeights = new Float64Array(W);
  const imgs: Uint8Array[] = new Array<Uint8Array>(nCap).fill(EMPTY);
  const widths = Int32Array.from(placed.map((p) => Math.round(p.width * scale))), heights = Int32Array.from(placed.map((p) => Math.round(p.height * scale)));
  for (let row0 = 0; row0 < H; row0 += BLOCK_ROWS) {
    const row1 = Math.min(H, row0 + BLOCK_ROWS);
    const nTop = y0 - row0 * gsd, nBottom = y0 - row1 * gsd;
    const inBlock = (only ?? placed.map((_, i) => i)).filter((i) =>
      bbox[i]![3]! >= nBottom && bbox[i]![2]! <= nTop && bbox[i]![1]! >= x0 && bbox[i]![0]! <= x0 + W * gsd);
    const px = await Promise.all(inBlock.map((i) => cache.get(i)));
    // Only this block's photos stay referenced here, so that the cache's evictions free memory.
    imgs.fill(EMPTY);
    inBlock.forEach((i, k) => (imgs[i] = px[k]!));
    for (let row = row0; row < row1; row++) {
      const n = y0 - (row + 0.5) * gsd;
      const rowCands = inBlock.filter((i) => bbox[i]![3]! >= n && bbox[i]![2]! <= n);
      heightsAlongRow(relief, n, x0 + 0.5 * gsd, gsd, rowHeights);
      for (const i of rowCands) {
        const { p, cx, cy, ia, ib } = inv[i]!;
        const dx = x0 + 0.5 * gsd - p.tx, dy = n - p.ty;
        // Decoded-pixel coordinates on flat ground.
        u0[i] = (cx + ia * dx + ib * dy + 0.5) * scale - 0.5;
        v0[i] = (cy + ib * dx - ia * dy + 0.5) * scale - 0.5;
        du[i] = ia * gsd * scale;
        dv[i] = ib * gsd * scale;
      }
      const rowOut = row * W * stride;
      for (let col = 0; col < W; col++) {
        let dmin = Infinity;
        let nc = 0;
        const z = rowHeights[col]!;
        for (let k = 0; k < rowCands.length; k++) {
          const i = rowCands[k]!;
          // Flat-ground pixel moved out from the centre by H / (H - h) at this spot's height.
          const spread = flyH[i]! / (flyH[i]! - z);
          const u = cxd[i]! + (u0[i]! + du[i]! * col - cxd[i]!) * spread, v = cyd[i]! + (v0[i]! + dv[i]! * col - cyd[i]!) * spread;
          const w = widths[i]! - 1, h = heights[i]! - 1;
          if (u < 0 || v < 0 || u >= w || v >= h) continue;
          const ex = x0 + (col + 0.5) * gsd - inv[i]!.p.tx, ey = n - inv[i]!.p.ty;
          const d = Math.sqrt(ex * ex + ey * ey);
          cu[i] = u; cvv[i] = v; cd[i] = d;
          const edge = Math.min(u, v, w - u, h - v) + 1;
          ce[i] = edge < EDGE_FEATHER_PX * scale ? edge / (EDGE_FEATHER_PX * scale) : 1;
          cand[nc++] = i;
          if (d < dmin) dmin = d;
        }
        if (!nc) continue;
        const o = rowOut + col * stride;
        if (nc === 1) {
          // Inside a single photo (most of the mosaic): no blending needed.
          const i = cand[0]!;
          const img = imgs[i]!, w = widths[i]!, g = gains[i]!;
          const u = cu[i]!, v = cvv[i]!;
          const ui = u | 0, vi = v | 0;
          const fu = u - ui, fv = v - vi;
          const o00 = (vi * w + ui) * nb, o01 = o00 + w * nb;
          for (let b = 0; b < nb; b++) {
            const val = (img[o00 + b]! * (1 - fu) + img[o00 + nb + b]! * fu) * (1 - fv) + (img[o01 + b]! * (1 - fu) + img[o01 + nb + b]! * fu) * fv;
            out[o + b] = Math.min(255, Math.round(val * (g[b] ?? g[0]!)));
          }
          out[o + nb] = 255;
          continue;
        }
        acc.fill(0);
        let wsum = 0;
        for (let k = 0; k < nc; k++) {
          const i = cand[k]!;
          const excess = cd[i]! - dmin;
          if (excess > cutoff) continue;
          const wt = (excess === 0 ? 1 : Math.exp(-excess / FEATHER_M)) * ce[i]!;
          const img = imgs[i]!;
          const w = widths[i]!;
          const u = cu[i]!, v = cvv[i]!;
          const ui = u | 0, vi = v | 0;
          const fu = u - ui, fv = v - vi;
          const w00 = (1 - fu) * (1 - fv), w10 = fu * (1 - fv), w01 = (1 - fu) * fv, w11 = fu * fv;
          const o00 = (vi * w + ui) * nb, o01 = o00 + w * nb;
          const g = gains[i]!;
          for (let b = 0; b < nb; b++) {
            const val = img[o00 + b]! * w00 + img[o00 + nb + b]! * w10 + img[o01 + b]! * w01 + img[o01 + nb + b]! * w11;
            acc[b] = acc[b]! + wt * val * (g[b] ?? g[0]!);
          }
          wsum += wt;
        }
        for (let b = 0; b < nb; b++) out[o + b] = Math.min(255, Math.round(acc[b]! / wsum));
        out[o + nb] = 255;
      }
    }
    // Rows go north to south: a photo that ends above this block is done with (on the whole grid).
    if (!only) for (const i of inBlock) if (bbox[i]![2]! > nBottom) cache.release(i);
    onRows?.(row1);
  }
  return out;
}

/**
 * The one 8-bit factor for every calibrated band and 16-bit photo of the survey, from the capture
 * nearest the middle of the flight (1 when all are 8-bit). One for all, not one per photo: a factor of
 * its own would brighten each photo differently (seams) and each band (NDVI).
 */
async function radiometricScaleOf(captures: Capture[]): Promise<number> {
  const withLevels = captures.map((c) => c.photos.map(levelled).filter((p): p is LevelledPhoto => p !== null)).filter((c) => c.length);
  const middle = withLevels[withLevels.length >> 1];
  return middle ? surveyScale(middle) : 1;
}

/** ORB features of a calibrated or 16-bit photo on a copy reduced to FEATURE_SIDE, written to 8 bits with the survey's factor. */
async function levelledFeatures(photo: LevelledPhoto, radiometricScale: number): Promise<Features> {
  const s = featureScale(photo.widthPx, photo.heightPx);
  const w = Math.round(photo.widthPx * s), h = Math.round(photo.heightPx * s);
  return orbFeatures(await levelledBytes(photo, w, h, radiometricScale), w, h, photo.channels, w / photo.widthPx);
}

/** Height of each photo above the reference plane: its GPS/optics height, rescaled with its adjusted scale. */
function flyingHeights(placed: Placed[], placements: Placement[]): number[] {
  return placed.map((p, i) => (p.heightM * Math.hypot(placements[i]!.a, placements[i]!.b)) / p.gsd);
}

/**
 * Median ground distance between matched features of two photos where the output switches between
 * them (both about equally far from nadir), each feature where the compositing puts it on the relief:
 * the misalignment a person sees along seams. Cross-fitted: the features are split in two halves, and
 * each half is placed on the relief grid of the other half only, so that no feature's own height
 * (which would realign it perfectly) flatters the figure.
 */
function seamMisalignmentM(pairs: PairMatch[], tie: TiePoints, placements: Placement[], centres: [number, number][], flyingHeightM: number[]): number {
  const halves: [ReliefGrid, ReliefGrid] = [reliefGrid(tie, RELIEF_CELL_M, (k) => k % 2 === 1), reliefGrid(tie, RELIEF_CELL_M, (k) => k % 2 === 0)];
  const res: number[] = [];
  let k = 0;
  for (const { i, j, pts } of pairs) {
    const [pi, pj] = [placements[i]!, placements[j]!];
    const ti: [number, number] = [pi.tx, pi.ty], tj: [number, number] = [pj.tx, pj.ty];
    for (let q = 0; q < pts.length; q += 4, k++) {
      const relief = halves[k % 2]!;
      const [e1, n1] = onRelief(relief, ti, flyingHeightM[i]!, ...toGround(pi, centres[i]![0], centres[i]![1], pts[q]!, pts[q + 1]!));
      const [e2, n2] = onRelief(relief, tj, flyingHeightM[j]!, ...toGround(pj, centres[j]![0], centres[j]![1], pts[q + 2]!, pts[q + 3]!));
      const di = Math.hypot(e1 - pi.tx, n1 - pi.ty), dj = Math.hypot(e2 - pj.tx, n2 - pj.ty);
      if (Math.abs(di - dj) < 3 * FEATHER_M) res.push(Math.hypot(e1 - e2, n1 - n2));
    }
  }
  return res.length ? median(res) : NaN;
}

function rawVrt(file: string, W: number, H: number, names: string[], frame: UtmFrame, gt: number[]): string {
  const interp: Record<string, string> = { red: 'Red', green: 'Green', blue: 'Blue', alpha: 'Alpha' };
  const bandsXml = names.map((name, b) => `  <VRTRasterBand dataType="Byte" band="${b + 1}" subClass="VRTRawRasterBand">
    <Description>${name}</Description>
    <ColorInterp>${interp[name] ?? 'Undefined'}</ColorInterp>
    <SourceFilename relativeToVRT="1">${file}</SourceFilename>
    <ImageOffset>${b}</ImageOffset>
    <PixelOffset>${names.length}</PixelOffset>
    <LineOffset>${names.length * W}</LineOffset>
  </VRTRasterBand>`).join('\n');
  return `<VRTDataset rasterXSize="${W}" rasterYSize="${H}">
  <SRS>EPSG:${frame.epsg}</SRS>
  <GeoTransform>${gt.join(', ')}</GeoTransform>
${bandsXml}
</VRTDataset>
`;
}

const PREVIEW_MAX = 2048;

/**
 * Preview resampled onto a lon/lat grid, so a web map can lay it over its WGS84 bounds unrotated.
 * Over a field-sized area the UTM -> lon/lat mapping is affine to well under a pixel.
 */
async function writePreview(
  px: Uint8Array, W: number, H: number, stride: number, nb: number, bands: string[], frame: UtmFrame,
  gt: number[], path: string,
): Promise<[number, number, number, number]> {
  const [x0, gsd, , y0] = gt as [number, number, number, number];
  const corners = [[x0, y0], [x0 + W * gsd, y0], [x0, y0 - H * gsd], [x0 + W * gsd, y0 - H * gsd]].map(([e, n]) => frame.toWgs84(e!, n!));
  const west = Math.min(...corners.map((c) => c[0])), east = Math.max(...corners.map((c) => c[0]));
  const south = Math.min(...corners.map((c) => c[1])), north = Math.max(...corners.map((c) => c[1]));
  const midLat = ((south + north) / 2) * (Math.PI / 180);
  const aspect = ((east - west) * Math.cos(midLat)) / (north - south);
  const pw = aspect >= 1 ? PREVIEW_MAX : Math.max(1, Math.round(PREVIEW_MAX * aspect));
  const ph = aspect >= 1 ? Math.max(1, Math.round(PREVIEW_MAX / aspect)) : PREVIEW_MAX;
  const [oE, oN] = frame.toUtm(west, north);
  const [eE, eN] = frame.toUtm(east, north);
  const [sE, sN] = frame.toUtm(west, south);
  const dEx = (eE - oE) / pw, dNx = (eN - oN) / pw, dEy = (sE - oE) / ph, dNy = (sN - oN) / ph;
  const rgb = ['red', 'green', 'blue'].map((n) => bands.indexOf(n));
  const chans = rgb.every((k) => k >= 0) ? rgb : [0, 0, 0].map((_, k) => Math.min(k, nb - 1));
  const img = Buffer.alloc(pw * ph * 4);
  for (let y = 0; y < ph; y++) {
    for (let x = 0; x < pw; x++) {
      const e = oE + (x + 0.5) * dEx + (y + 0.5) * dEy, n = oN + (x + 0.5) * dNx + (y + 0.5) * dNy;
      const c = Math.floor((e - x0) / gsd), r = Math.floor((y0 - n) / gsd);
      if (c < 0 || r < 0 || c >= W || r >= H) continue;
      const o = (r * W + c) * stride;
      const t = (y * pw + x) * 4;
      img[t] = px[o + chans[0]!]!; img[t + 1] = px[o + chans[1]!]!; img[t + 2] = px[o + chans[2]!]!; img[t + 3] = px[o + nb]!;
    }
  }
  await sharp(img, { raw: { width: pw, height: ph, channels: 4 } }).png({ compressionLevel: 6 }).toFile(path);
  return [west, south, east, north];
}
