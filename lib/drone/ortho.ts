// Orthomosaic: photos placed on a UTM grid from GPS, refined by image matching and a global
// adjustment on the relief the matches show (relief.ts), composited band of rows by band of rows at
// the photos' own ground resolution (composite.ts), written as a Cloud-Optimized GeoTIFF (cog.ts)
// plus a WGS84 web preview. One function per step: features, priors, pairs, adjustment on relief,
// output grid, files.
import { mkdir, open, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Polygon } from 'geojson';
import { AppError } from '@/lib/errors';
import { convexHull } from '@/lib/geo/planar';
import { adjustPlacements, exposureGains, gpsBlockFit } from './adjust';
import { allSettledOrThrow } from './all-settled';
import type { PosePrior } from './bundle';
import { bundleAdjust, triangulateOnRelief } from './bundle';
import type { Camera } from './camera';
import { cameraFromPlacement, centreOnGround, focalPx, intrinsics, pixelRayToGround, placementOfCamera, recordedTilt, rotation } from './camera';
import { isJpegMosaic, mosaicCogOptions, writeCog } from './cog';
import type { Sources } from './composite';
import { composite, compositeStrips, decodeScale, PhotoCache } from './composite';
import { EXIF_READS_AT_ONCE, mapBounded, type DronePhoto } from './exif';
import { bandPhotoCutShort } from './band-photos';
import { corruptImage } from './photo-decode';
import type { Features, PairMatch } from './features';
import { FEATURE_SIDE, median } from './features';
import { featuresInThread, matchInThread, motionInThread, renewDroneThreads } from './threads';
import { chainTracks } from './tracks';
import type { Placement, UtmFrame } from './frame';
import { utmFrame } from './frame';
import { orthomosaicPath } from './files';
import { ensureMosaicSpace, mosaicWorkBytes, PreviewSampler, rawVrt } from './mosaic-files';
import { OverviewFiles } from './overviews';
import { candidatePairs, GPS_SIGMA_M, matchedPairs, mayLeaveApart } from './pairs';
import { thinnedPairs } from './thinning';
import type { Placed, Recorded } from './placed';
import { placementPriors } from './placed';
import type { LevelledPhoto } from './radiometry';
import { levelled, surveyScale } from './radiometry';
import type { ReliefGrid, TiePoints } from './relief';
import { heightAt, reliefFactors, reliefGrid, tiePointHeights } from './relief';
import type { GridWindow, SeamCheck, SeamSources } from './seams';
import { rematchSeams } from './seams';
import { EnvelopeTooLarge } from './cholesky';
import { StitchError } from './stitch-error';
import type { Capture } from './survey';
import { groupCaptures, otherCameras, otherFlights } from './survey';

export { decodeScale } from './composite';
export { StitchError, type StitchReason } from './stitch-error';
export type DroneStep = 'stitching' | 'index' | 'classification' | 'done';

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
  /**
   * Median distance between the two photos' drawings of the same features along the seams, measured
   * on the output by the sampled seam check every mosaic gets (sampledSeamCheck), in output pixels.
   */
  medianMisalignmentPx: number;
  /** The sampled check in full (output pixels): its 95th percentile and worst seam rise when a seam breaks. */
  seams: SeamCheck;
  /** The full check, every seam at the output's resolution (only with BuildOptions.rematchSeams). */
  rematchedSeams?: SeamCheck;
  width: number;
  height: number;
  /** Band names in file order ("red", "green", "blue" or multispectral names lower-cased); alpha follows. */
  bands: string[];
  /** GDAL geotransform [x0, gsd, 0, y0, 0, -gsd] in the CRS. */
  geoTransform: [number, number, number, number, number, number];
  /** Pixel-interleaved raw copy (bands + alpha, 8 bit) the analysis reads without decoding the GeoTIFF. */
  rawPath: string;
  /** Strips of columns the mosaic was composited in (compositeStrips): 1 unless its photos outgrow the cache. */
  compositedStrips: number;
  /** The raw copy and its GDAL header: four times the GeoTIFF's size, removed once the analysis is done. */
  scratchPaths: string[];
  /** Final placement of each capture's centre, [lon, lat], in input order of captures. */
  photoCentresWgs84: [number, number][];
  /** Paths of the photos the mosaic does without (TiedSurvey.leftOut). */
  leftOut: string[];
}

export interface BuildOptions {
  workDir: string;
  onProgress?: (percent: number, step: DroneStep) => void;
  /**
   * Output ground resolution (m); only ever coarsens: the default, and anything finer, is the photos'
   * own median ground resolution.
   */
  resolutionM?: number;
  /** Budget for the decoded photos (or their parts a strip needs) held at once. */
  cacheBytes?: number;
  /** Widest strip of columns to composite in (compositeStrips; default: as wide as the cache allows). */
  maxStripColumns?: number;
  /** Also re-match features along the seams in the output (rematchSeams): a check for tests and benchmarks, seconds more. */
  rematchSeams?: boolean;
}

/** Take-off-relative height over uneven ground (a few metres at 40 m) and a calibrated compass. */
const BLOCK_PRIOR_SIGMA = { scale: 0.05, headingRad: (3 * Math.PI) / 180 };
/**
 * Headings and heights taken from the track (track.ts) come from the very GPS positions the block is
 * laid on: no second opinion, so they count as a guess would and those positions decide.
 */
const TRACK_PRIOR_SIGMA = { scale: 1, headingRad: Math.PI };
/** Relief grid cell: trees and banks are resolved, single noisy tie points are not. */
const RELIEF_CELL_M = 2;
/** Adjustments on the relief of the previous one (heights and placements settle together). */
const RELIEF_ROUNDS = 2;
/** Pose priors of the bundle adjustment beyond GPS_SIGMA_M: recorded height, compass, gimbal tilt (docs/drone.md). */
const POSE_PRIOR_SIGMA = { recordedHeightM: 3, guessedHeightShare: 0.3, headingRad: (3 * Math.PI) / 180, tiltRad: (1.2 * Math.PI) / 180 };
/** Tracks kept a photo in the bundle adjustment (longest first): plenty for 6 pose parameters, and bounded work. */
const TRACKS_PER_PHOTO = 600;
/** Points per side of a footprint traced over the relief (bounds of the output grid and of each photo). */
const FOOTPRINT_POINTS_PER_SIDE = 16;
const DEFAULT_CACHE_BYTES = 900 * 1024 * 1024;
/** The sampled seam check (sampledSeamCheck): its coarsest pixel, window side, search distance and decoded photos held. */
const CHECK_MAX_GSD_M = 0.1;
const CHECK_SIDE_PX = 512;
const CHECK_SEARCH_M = 8;
const CHECK_CACHE_BYTES = 128 * 1024 * 1024;

const MS_BANDS = ['blue', 'green', 'red', 'rededge', 'nir'];

function bandsOf(captures: Capture[]): string[] {
  const ms = captures[0]!.photos.filter((p) => p.bandName);
  if (!ms.length) return ['red', 'green', 'blue'];
  const names = [...new Set(ms.map((p) => p.bandName!.toLowerCase().replace(/[^a-z]/g, '')))];
  return names.sort((x, y) => (MS_BANDS.indexOf(x) + 99) % 99 - (MS_BANDS.indexOf(y) + 99) % 99);
}

/**
 * The block as adjusted on its relief. Each photo's camera is its placement (the similarity standing
 * for it: placementOfCamera), its height and its tilt from nadir: camerasOf makes the cameras.
 */
export interface Adjusted {
  placements: Placement[];
  /** Each photo's height above the reference plane (m). */
  flyingHeightM: number[];
  /** Each photo's tilt from nadir (radians; camera.ts). */
  tilts: { pitch: number; roll: number }[];
  /** Each photo's focal length (pixels) and radial k1 as the bundle adjustment left them; else the EXIF's and DewarpData's. */
  lenses?: { f: number; k1: number }[];
  relief: ReliefGrid;
}

/** Each photo's camera as `adjusted` places it. */
export function camerasOf(placed: Placed[], adjusted: Adjusted): Camera[] {
  return placed.map((p, i) => {
    const intr = intrinsics(p.width, p.height, p.capture.main.dewarp), lens = adjusted.lenses?.[i];
    return cameraFromPlacement(adjusted.placements[i]!, adjusted.flyingHeightM[i]!, 0, lens?.f ?? focalPx(p.heightM, p.gsd), adjusted.tilts[i]!, lens ? { ...intr, k1: lens.k1 } : intr);
  });
}

/** The output grid and each photo's footprint on the relief (closed ring) and its [minE, maxE, minN, maxN]. */
export interface OutputGrid extends GridWindow {
  nativeGsd: number;
  rings: [number, number][][];
  bbox: number[][];
}

/** The raster a composited mosaic has before its COG is written: what the index and the row pattern read. */
export type MosaicRaster = Pick<Mosaic, 'width' | 'height' | 'bands' | 'geoTransform' | 'crs' | 'rawPath' | 'geotiffPath'>;

/** A mosaic composited into its raw copy, its COG and seam figures still to come (finishOrthomosaic). */
export interface CompositedMosaic {
  /** All the mosaic is but its seam figures. */
  mosaic: Omit<Mosaic, 'medianMisalignmentPx' | 'seams' | 'rematchedSeams'>;
  survey: TiedSurvey;
  grid: OutputGrid;
  sources: Sources;
  vrtPath: string;
  rematchSeams: boolean;
}

/**
 * Builds the orthomosaic of one flight. Throws StitchError (`errors.drone_stitch_failed`, reason in
 * params) when the photos cannot be tied together; expects photos that passed checkSurvey.
 */
export async function buildOrthomosaic(photos: DronePhoto[], opts: BuildOptions): Promise<Mosaic> {
  return finishOrthomosaic(await compositeOrthomosaic(photos, opts), opts.onProgress);
}

/**
 * The steps of buildOrthomosaic up to the raw copy (progress 0-89 %): what the analysis reads is then
 * on disk, and can be read beside finishOrthomosaic, whose GDAL process and seam check leave a core idle.
 */
export async function compositeOrthomosaic(photos: DronePhoto[], opts: BuildOptions): Promise<CompositedMosaic> {
  const progress = (p: number) => opts.onProgress?.(Math.round(p), 'stitching');
  progress(0);
  const survey = await tieSurvey(photos, (p) => progress(48 * p));
  await mkdir(opts.workDir, { recursive: true });
  const { captures, placed, adjusted, bands, frame } = survey;
  const grid = outputGrid(placed, adjusted, opts.resolutionM);
  if (!plausibleGrid(grid, placed)) throw new StitchError('no_scale', `${grid.W} x ${grid.H} px at ${grid.gsd} m`);
  await ensureMosaicSpace(opts.workDir, mosaicWorkBytes(grid.W, grid.H, bands.length + 1));
  const cacheBytes = opts.cacheBytes ?? DEFAULT_CACHE_BYTES;
  const sources = mosaicSources(survey, adjusted, decodeScale(grid.nativeGsd, grid.gsd), grid, cacheBytes);
  const strips = compositeStrips(sources, grid, cacheBytes, opts.maxStripColumns);
  const { vrtPath, ...files } = await writeMosaicFiles(sources, grid, strips, bands, frame, opts.workDir, (p) => progress(48 + 41 * p));
  // The decoded photos are not drawn from again (the full check decodes what it needs anew): their
  // buffers must not stay through the COG, the analysis and the zones while the caller holds this.
  sources.cache.clear();
  const hull = convexHull(grid.rings.flat()).map(([e, n]) => frame.toWgs84(e, n));
  const mosaic: CompositedMosaic['mosaic'] = {
    ...files,
    footprintWgs84: { type: 'Polygon', coordinates: [hull] },
    crs: `EPSG:${frame.epsg}`,
    gsdM: grid.gsd,
    photoCount: captures.length,
    leftOut: survey.leftOut.map((p) => p.path),
    width: grid.W,
    height: grid.H,
    bands,
    photoCentresWgs84: camerasOf(placed, adjusted).map((c) => {
      const [e, n] = centreOnGround(c, adjusted.relief);
      return frame.toWgs84(e, n);
    }),
  };
  return { mosaic, survey, grid, sources, vrtPath, rematchSeams: opts.rematchSeams ?? false };
}

/** The COG and the sampled seam check of a composited mosaic (progress 98 and 100 %), and what it is. */
export async function finishOrthomosaic(composited: CompositedMosaic, onProgress?: BuildOptions['onProgress']): Promise<Mosaic> {
  const { mosaic, survey, grid, sources, vrtPath } = composited;
  // GDAL writes the COG in its own process while the seams are checked here, on this process's threads.
  const [seams] = await allSettledOrThrow([sampledSeamCheck(survey, survey.adjusted, grid), writeCog(vrtPath, mosaic.geotiffPath, mosaicCogOptions(mosaic.bands))]);
  onProgress?.(98, 'stitching');
  const rematchedSeams = composited.rematchSeams ? await rematchSeams(seamSources(sources, grid), grid, survey.pairs) : undefined;
  onProgress?.(100, 'stitching');
  return { ...mosaic, medianMisalignmentPx: seams.medianPx, seams, ...(rematchedSeams ? { rematchedSeams } : {}) };
}

/** A survey's photos tied into one block: what every later step (grid, compositing, checks) starts from. */
export interface TiedSurvey {
  captures: Capture[];
  frame: UtmFrame;
  bands: string[];
  radiometricScale: number;
  features: Features[];
  placed: Placed[];
  pairs: PairMatch[];
  adjusted: Adjusted;
  /**
   * Photos the mosaic does without: another camera's (otherCameras), and up to mayLeaveApart photos
   * damaged past their head or left apart from the block by the matches.
   */
  leftOut: DronePhoto[];
}

/**
 * Features, placement priors, candidate and matched pairs, and the adjustment on relief. Throws
 * StitchError (`errors.drone_stitch_failed`, reason in params) when the photos cannot be tied
 * together; another camera's photos, and a few photos left apart, are left out (`leftOut`).
 * `progress` gets the share done, 0..1.
 */
export async function tieSurvey(photos: DronePhoto[], report: (share: number) => void = () => {}): Promise<TiedSurvey> {
  // Tying again without photos left apart repeats the matching's progress: the share never goes back.
  let reached = 0;
  const progress = (share: number) => report((reached = Math.max(reached, share)));
  if (otherFlights(photos).length) throw new StitchError('mixed_flights');
  const located = photos.filter((p) => p.gps);
  // The upload leaves them out already (checkSurvey); photos given here directly are treated alike.
  const otherCamera = new Set(otherCameras(located));
  const captures = groupCaptures(located.filter((p) => !otherCamera.has(p)));
  if (captures.length < 2) throw new StitchError('too_little_overlap');
  const tied = await tieReadableCaptures(captures, progress);
  return otherCamera.size ? { ...tied, leftOut: [...otherCamera, ...tied.leftOut] } : tied;
}

/** The captures' features; a capture whose photo does not decode is left out as one left apart is, and the rest tied. */
async function tieReadableCaptures(captures: Capture[], progress: (share: number) => void): Promise<TiedSurvey> {
  const mains = captures.map((c) => c.main);
  const frame = utmFrame(median(mains.map((p) => p.gps!.lon)), median(mains.map((p) => p.gps!.lat)));
  const radiometricScale = await radiometricScaleOf(captures);
  // A photo damaged past its head (a download cut short): the main photo fails its decoding, a band photo its strips.
  const [read, cutBand] = await Promise.all([
    surveyFeatures(mains, radiometricScale, (p) => progress((35 / 48) * p)),
    mapBounded(captures, EXIF_READS_AT_ONCE, bandPhotoCutShort),
  ]);
  const unreadable = read.map((f, i) => (f instanceof AppError ? f : cutBand[i] ? corruptImage(cutBand[i]) : null));
  const damaged = unreadable.filter((e): e is AppError => e !== null);
  const leaveApart = mayLeaveApart(captures.length);
  if (damaged.length > leaveApart || captures.length - damaged.length < 2) throw damaged[0]!;
  const survey = { captures, frame, radiometricScale, features: read as Features[] };
  const readable = unreadable.flatMap((e, i) => (e ? [] : [i]));
  return damaged.length ? tieCapturesOf(survey, readable, leaveApart - damaged.length, progress) : tieCaptures(survey, leaveApart, progress);
}

type UntiedSurvey = Pick<TiedSurvey, 'captures' | 'frame' | 'radiometricScale' | 'features'>;

/** The survey's captures at `keep` tied (tieCaptures); the others are left out, named in its leftOut. */
async function tieCapturesOf(survey: UntiedSurvey, keep: number[], leaveApart: number, progress: (share: number) => void): Promise<TiedSurvey> {
  const kept = { ...survey, captures: keep.map((i) => survey.captures[i]!), features: keep.map((i) => survey.features[i]!) };
  const tied = await tieCaptures(kept, leaveApart, progress);
  const inKeep = new Set(keep);
  const out = survey.captures.filter((_, i) => !inKeep.has(i)).flatMap((c) => c.photos);
  return { ...tied, leftOut: [...out, ...tied.leftOut] };
}

/**
 * tieSurvey from the captures' features on: the block, less up to `leaveApart` captures the matches
 * leave apart, which are left out and the rest tied again (their priors and pairs without them).
 */
async function tieCaptures(survey: UntiedSurvey, leaveApart: number, progress: (share: number) => void): Promise<TiedSurvey> {
  const { captures, frame, features } = survey;
  const mains = captures.map((c) => c.main);
  const { placed, recorded } = await placementPriors(captures, features, frame, motionInThread);
  const { pairs, matchedPoints, apart } = await matchedPairs(placed, features, mains, candidatePairs(placed), (p) => progress((35 + p / 10) / 48), matchInThread, leaveApart);
  if (apart.length) {
    const left = new Set(apart);
    return tieCapturesOf(survey, captures.flatMap((_, i) => (left.has(i) ? [] : [i])), leaveApart - apart.length, progress);
  }
  const gps = mains.map((p) => frame.toUtm(p.gps!.lon, p.gps!.lat));
  const tiePairs = thinnedPairs(pairs, mains.length, matchedPoints);
  // The worker's opencv.js heap is not needed again: a fresh thread loads, for compositing's rows, while the adjustment runs here.
  await renewDroneThreads();
  const adjusted = withinEnvelope(mains.length, () => bundleOnRelief(placed, tiePairs, recorded, adjustOnRelief(placed, tiePairs, recorded), gps));
  progress(1);
  return { ...survey, bands: bandsOf(captures), placed, pairs, adjusted, leftOut: [] };
}

/**
 * The adjustments, their systems past the memory bound (photos that all see one another: cholesky.ts)
 * answered as the survey's own final error rather than a crash retried.
 */
export function withinEnvelope<T>(photos: number, adjust: () => T): T {
  try {
    return adjust();
  } catch (err) {
    if (err instanceof EnvelopeTooLarge) throw new AppError('unprocessable', 'drone_photos_overlap_too_much', { photos });
    throw err;
  }
}

/** What compositing draws from, with photos decoded at `scale` (cut to the parts asked for, or whole) and at most `cacheBytes` of them held. */
function mosaicSources(survey: TiedSurvey, adjusted: Adjusted, scale: number, grid: OutputGrid, cacheBytes: number, cutToParts = true): Sources {
  const { placed, bands, features, pairs, radiometricScale } = survey;
  return {
    placed, cameras: camerasOf(placed, adjusted), relief: adjusted.relief,
    gains: exposureGains(placed.length, features[0]!.channels, pairs), nb: bands.length, scale, bbox: grid.bbox,
    cache: new PhotoCache(placed, bands, cacheBytes, scale, radiometricScale, cutToParts),
  };
}

/**
 * ORB features of every capture's main photo (photoFeatures) on the feature threads
 * (threads.ts): this thread and one more, two photos each at a time. A photo that does not decode
 * gives its `drone_corrupt_image` error in its place. `progress` gets the share done, 0..1.
 */
async function surveyFeatures(mains: DronePhoto[], radiometricScale: number, progress: (share: number) => void): Promise<(Features | AppError)[]> {
  let done = 0;
  return Promise.all(mains.map(async (main) => {
    const features = await featuresInThread(main, radiometricScale).catch((err: unknown) => {
      if (err instanceof AppError && err.key === 'drone_corrupt_image') return err;
      throw err;
    });
    progress(++done / mains.length);
    return features;
  }));
}

/**
 * Global adjustment on flat ground, then on the relief its tie points show, twice. Each adjustment is
 * then laid on the GPS track (scale and heading as the GPS positions show them, as photogrammetry
 * georeferences a block), and the next one keeps that scale.
 */
function adjustOnRelief(placed: Placed[], pairs: PairMatch[], recorded: Recorded): Adjusted {
  const matchSigmaM = median(placed.map((p) => (p.gsd * Math.max(p.width, p.height)) / FEATURE_SIDE));
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
  return { placements: adj.placements, flyingHeightM, tilts: placed.map((p) => recordedTilt(p.capture.main)), relief };
}

/**
 * The bundle adjustment (bundle.ts) from the similarity block: cameras from the placements, the
 * matches chained into tracks and cast onto the relief, then poses and points adjusted together
 * against GPS, height, compass and gimbal priors. The relief is then the adjusted points' own.
 */
function bundleOnRelief(placed: Placed[], pairs: PairMatch[], recorded: Recorded, similar: Adjusted, gps: [number, number][]): Adjusted {
  const tracks = chainTracks(pairs, TRACKS_PER_PHOTO);
  if (tracks.start.length < 2) return similar;
  const start = placed.map((p, i) => {
    const q = similar.placements[i]!;
    return cameraFromPlacement(q, similar.flyingHeightM[i]!, heightAt(similar.relief, q.tx, q.ty), focalPx(p.heightM, p.gsd), similar.tilts[i]!, intrinsics(p.width, p.height, p.capture.main.dewarp));
  });
  const s = POSE_PRIOR_SIGMA;
  const priors = placed.map((p, i): PosePrior => ({
    E: gps[i]![0], N: gps[i]![1], horizontalSigmaM: GPS_SIGMA_M,
    Z: recorded.height ? p.heightM : start[i]!.Z, verticalSigmaM: recorded.height ? s.recordedHeightM : s.guessedHeightShare * start[i]!.Z,
    // The heading as the similarity block settled it: the compass weighed against the GPS track as a whole (gpsBlockFit).
    yaw: start[i]!.yaw, yawSigmaRad: recorded.heading ? s.headingRad : Math.PI,
    ...similar.tilts[i]!, tiltSigmaRad: s.tiltRad,
  }));
  const obsSigmaPx = median(placed.map((p) => Math.max(p.width, p.height) / FEATURE_SIDE));
  const result = bundleAdjust(start, tracks, triangulateOnRelief(tracks, start, similar.relief), priors, { obsSigmaPx });
  const { points } = result;
  const kept: number[] = [];
  for (let t = 0; t + 1 < tracks.start.length; t++) {
    let seen = 0;
    for (let o = tracks.start[t]!; o < tracks.start[t + 1]!; o++) seen += result.inlier[o]!;
    if (seen >= 2) kept.push(t);
  }
  const tie: TiePoints = { e: Float64Array.from(kept, (t) => points[3 * t]!), n: Float64Array.from(kept, (t) => points[3 * t + 1]!), z: Float64Array.from(kept, (t) => points[3 * t + 2]!) };
  return {
    placements: result.cameras.map(placementOfCamera), flyingHeightM: result.cameras.map((c) => c.Z),
    tilts: result.cameras.map((c) => ({ pitch: c.pitch, roll: c.roll })), lenses: result.cameras.map((c) => ({ f: c.f, k1: c.k1 })), relief: reliefGrid(tie, RELIEF_CELL_M),
  };
}

/**
 * The output grid (north-up, on whole multiples of its pixel size) over the photos' footprints as
 * they lie on the relief; its pixel is the photos' median ground resolution, or `resolutionM` when
 * that is coarser.
 */
export function outputGrid(placed: Placed[], adjusted: Adjusted, resolutionM = 0): OutputGrid {
  const { placements, relief } = adjusted;
  const cameras = camerasOf(placed, adjusted);
  const rings = placed.map((p, i) => footprintOnRelief(cameras[i]!, p.width, p.height, relief));
  const bbox = rings.map((r) => [Math.min(...r.map((q) => q[0])), Math.max(...r.map((q) => q[0])), Math.min(...r.map((q) => q[1])), Math.max(...r.map((q) => q[1]))]);
  const minE = Math.min(...bbox.map((b) => b[0]!)), maxE = Math.max(...bbox.map((b) => b[1]!));
  const minN = Math.min(...bbox.map((b) => b[2]!)), maxN = Math.max(...bbox.map((b) => b[3]!));
  const nativeGsd = median(placements.map((p, i) => Math.hypot(p.a, p.b) || placed[i]!.gsd));
  const gsd = Math.max(nativeGsd, resolutionM);
  const x0 = Math.floor(minE / gsd) * gsd, y0 = Math.ceil(maxN / gsd) * gsd;
  return { x0, y0, gsd, W: Math.ceil((maxE - x0) / gsd), H: Math.ceil((y0 - minN) / gsd), nativeGsd, rings, bbox };
}

/**
 * Output pixels a mosaic may hold for each pixel of its photos. At the photos' median ground resolution
 * a mosaic holds about as many as they do, fewer where they overlap (brighton_beach: 0.54): many times
 * more means the block's scale collapsed. 300 photos of one spot 3.5 m apart with no camera data had
 * shrunk to a pixel of 51 µm, a grid of 2.9 T pixels that asked for 21,000 GB of disk (their headings,
 * taken from GPS noise, were 90-180° apart; track.ts now takes them from the turns between photos).
 */
const MAX_GRID_PER_PHOTO_PIXEL = 16;

/** Whether the output grid holds a plausible number of pixels for the photos' own (MAX_GRID_PER_PHOTO_PIXEL). */
export function plausibleGrid(grid: Pick<GridWindow, 'W' | 'H'>, placed: Pick<Placed, 'width' | 'height'>[]): boolean {
  const photoPixels = placed.reduce((sum, p) => sum + p.width * p.height, 0);
  return grid.W * grid.H <= MAX_GRID_PER_PHOTO_PIXEL * photoPixels;
}

/** A photo's frame traced over the relief through its camera (closed ring), FOOTPRINT_POINTS_PER_SIDE points a side. */
function footprintOnRelief(c: Camera, width: number, height: number, relief: ReliefGrid): [number, number][] {
  const corners = [[0, 0], [width, 0], [width, height], [0, height]] as const;
  const R = rotation(c.yaw, c.pitch, c.roll);
  const ring: [number, number][] = [];
  for (let k = 0; k < 4; k++) {
    const [a, b] = [corners[k]!, corners[(k + 1) % 4]!];
    for (let s = 0; s < FOOTPRINT_POINTS_PER_SIDE; s++) {
      const f = s / FOOTPRINT_POINTS_PER_SIDE;
      const [e, n] = pixelRayToGround(c, a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f, relief, R);
      ring.push([e, n]);
    }
  }
  return [...ring, ring[0]!];
}

/** What the seam checks draw: each photo alone, through the same compositing as the mosaic. */
function seamSources(sources: Sources, grid: OutputGrid): SeamSources {
  return { rings: grid.rings, bbox: grid.bbox, nadirs: sources.cameras.map((c) => [c.E, c.N]), nb: sources.nb, render: (win, i) => composite(sources, win, [i]) };
}

/** The sampled check's pixel: about four of the photos' own (a quarter-size decoding), at most 10 cm, never finer than the output's. */
const checkGsd = (grid: OutputGrid) => Math.max(grid.gsd, Math.min(4 * grid.nativeGsd, CHECK_MAX_GSD_M));

/**
 * The seam check every mosaic gets, cheap enough to always run: for each photo the seam it shares with
 * its best-matched neighbour (so a photo out of place breaks at least one sampled seam), drawn from
 * quarter-size decodings on a grid of about four photo pixels, windows of at most CHECK_SIDE_PX a
 * side, matches searched up to CHECK_SEARCH_M apart; offsets in output pixels. `adjusted`: the
 * survey's block as placed (a test moves one photo).
 */
export async function sampledSeamCheck(survey: TiedSurvey, adjusted: Adjusted, grid: OutputGrid): Promise<SeamCheck> {
  const { pairs } = survey;
  const best = new Map<number, PairMatch>();
  for (const p of pairs) {
    for (const k of [p.i, p.j]) if ((best.get(k)?.pts.length ?? 0) < p.pts.length) best.set(k, p);
  }
  const sample = [...new Set(best.values())].sort((a, b) => a.i - b.i || a.j - b.j);
  const gsd = checkGsd(grid);
  const x0 = Math.floor(grid.x0 / gsd) * gsd, y0 = Math.ceil(grid.y0 / gsd) * gsd;
  const coarse: GridWindow = { x0, y0, gsd, W: Math.ceil((grid.x0 + grid.W * grid.gsd - x0) / gsd), H: Math.ceil((y0 - grid.y0 + grid.H * grid.gsd) / gsd) };
  // Each photo is drawn for two seams or more: held whole from one decoding, and decoded ahead as room allows.
  const sources = mosaicSources(survey, adjusted, decodeScale(grid.nativeGsd, gsd), grid, CHECK_CACHE_BYTES, false);
  sources.cache.prefetch([...new Set(sample.flatMap((p) => [p.i, p.j]))], undefined, 1);
  const check = await rematchSeams(seamSources(sources, grid), coarse, sample, {
    maxSidePx: CHECK_SIDE_PX, searchPx: Math.max(64, Math.ceil(CHECK_SEARCH_M / gsd)),
  });
  const k = gsd / grid.gsd;
  return { ...check, medianPx: check.medianPx * k, p95Px: check.p95Px * k, worstSeamPx: check.worstSeamPx * k };
}

/**
 * Bands of rows of each strip of columns composited straight into the raw copy (and sampled for the
 * preview), so that no whole mosaic is ever held in memory, and the VRT that GDAL reads the raw copy
 * through (for the Cloud-Optimized GeoTIFF at `geotiffPath`, written after).
 */
async function writeMosaicFiles(
  sources: Sources, grid: GridWindow, strips: [number, number][], bands: string[], frame: UtmFrame, workDir: string, progress: (share: number) => void,
): Promise<Pick<Mosaic, 'geotiffPath' | 'previewPng' | 'boundsWgs84' | 'geoTransform' | 'rawPath' | 'scratchPaths' | 'compositedStrips'> & { vrtPath: string }> {
  const { x0, y0, gsd, W, H } = grid;
  const nb = bands.length, stride = nb + 1;
  const rawPath = join(workDir, 'mosaic.raw');
  const vrtPath = join(workDir, 'mosaic.vrt');
  const geotiffPath = orthomosaicPath(workDir);
  const previewPng = join(workDir, 'preview.png');
  const geoTransform: Mosaic['geoTransform'] = [x0, gsd, 0, y0, 0, -gsd];
  const preview = new PreviewSampler(W, H, frame, geoTransform);
  const rgb = ['red', 'green', 'blue'].map((n) => bands.indexOf(n));
  const chans = rgb.every((k) => k >= 0) ? rgb : [0, 0, 0].map((_, k) => Math.min(k, nb - 1));
  const overviews = await OverviewFiles.create((k) => join(workDir, `mosaic.ovr${k}.raw`), W, H, stride);
  const raw = await open(rawPath, 'w');
  try {
    for (const [s, [c0, c1]] of strips.entries()) {
      const Ws = c1 - c0, rowBytes = Ws * stride;
      await composite(sources, { ...grid, x0: x0 + c0 * gsd, W: Ws, inMosaic: { x0, col0: c0 } }, null, async (rows, row0, row1, halved) => {
        if (Ws === W) await raw.write(rows, 0, rows.length, row0 * W * stride);
        else for (let r = row0; r < row1; r++) await raw.write(rows, (r - row0) * rowBytes, rowBytes, (r * W + c0) * stride);
        preview.take(rows, row0, row1, stride, [...chans, nb], c0);
        await overviews.take(halved, row0, row1, c0, Ws);
        progress((s + row1 / H) / strips.length);
      });
    }
  } finally {
    await raw.close();
    await overviews.close();
  }
  await overviews.finish();
  const names = [...bands, 'alpha'], layout = { alphaAsMask: isJpegMosaic(bands) };
  const overviewVrts = overviews.paths.map((p) => p.replace(/\.raw$/, '.vrt'));
  await Promise.all(overviews.sizes.map(([w, h], k) => writeFile(overviewVrts[k]!, rawVrt(basename(overviews.paths[k]!), w, h, names, frame, [x0, (gsd * W) / w, 0, y0, 0, (-gsd * H) / h], layout))));
  await writeFile(vrtPath, rawVrt('mosaic.raw', W, H, names, frame, geoTransform, { ...layout, overviews: overviewVrts.map((p) => basename(p)) }));
  await preview.write(previewPng);
  const scratchPaths = [rawPath, vrtPath, ...overviews.paths, ...overviewVrts];
  return { geotiffPath, vrtPath, previewPng, boundsWgs84: preview.boundsWgs84, geoTransform, rawPath, scratchPaths, compositedStrips: strips.length };
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

/** Height of each photo above the reference plane: its GPS/optics height, rescaled with its adjusted scale. */
function flyingHeights(placed: Placed[], placements: Placement[]): number[] {
  return placed.map((p, i) => (p.heightM * Math.hypot(placements[i]!.a, placements[i]!.b)) / p.gsd);
}


