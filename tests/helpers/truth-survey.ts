// Drone surveys with known truth, rendered through a pinhole camera over relief (issue 38, point 4).
// The world is a real NAIP tile (RGB, each 5 m pixel taken as 0.85 m), enlarged and given fine
// texture (the same for every photo that sees a spot, so that features match), draped over a height
// field: a 15 m Gaussian hill and a tree line 10-15 m high with soft edges. Each photo has a known pose
// (position, yaw, pitch, roll); each of its pixels is a ray cut with the height field and the world
// sampled there. The photos are DJI JPEGs whose EXIF/XMP tell what a drone would: GPS with noise (the
// vertical error in the relative altitude too), the yaw with an error, and no tilt (the gimbal says
// straight down). The truth: poses, checkpoints on the ground, and the floor the recorded data allow
// (the true block fitted to the noisy positions by a 3-D similarity whose tilt the gimbal's record
// holds, as any processor without ground control can at best do). Used by tests/unit/drone/drone-truth.test.ts and bench/drone-truth.ts.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { addLower, emptySkyline, solveSkyline } from '@/lib/drone/cholesky';
import { seededRandom } from '@/lib/drone/crop-set';
import { utmFrame } from '@/lib/drone/frame';

/** The camera the photos claim (a Phantom 4 Pro): its sensor width is in lib/drone/exif.ts's table. */
const CAMERA_MODEL = 'FC6310';
const FOCAL_MM = 8.8;
const SENSOR_W_MM = 13.2;
/** World metres per NAIP pixel: the tile is taken as a finer image of a smaller area. */
const NAIP_PIXEL_M = 0.85;
/** Scale (m) of the fine texture laid over the enlarged tile: visible at the photos' 5-15 cm. */
const TEXTURE_M = 0.12;
/** Spread of that texture about mid-grey (overlay blend): fields show features, the tile still shows through. */
const TEXTURE_CONTRAST = 40;
/** Highest point of the relief (m): the top of the ray search. */
const RELIEF_TOP_M = 16;
/** The take-off point's height above the sea (GPS altitude = this + height above take-off). */
const TAKE_OFF_ALT_M = 150;

export interface TruthSurveyOptions {
  naipPath: string;
  dir: string;
  seed?: number;
  lines?: number;
  photosPerLine?: number;
  /** Photo size in pixels; the width is the long side. */
  photoWidthPx?: number;
  photoHeightPx?: number;
  /** Flying height above the take-off ground (m). */
  heightM?: number;
  forwardOverlap?: number;
  sideOverlap?: number;
  /** Unrecorded pitch and roll, each uniform in ±tiltDeg. */
  tiltDeg?: number;
  /** Recorded yaw = true yaw + uniform ±yawErrorDeg. */
  yawErrorDeg?: number;
  /** Where the photo's long side lies: across the flight line (DJI's default) or along it. */
  longSide?: 'across' | 'along';
  /** GPS noise: horizontal σ (radial RMS, σ/√2 on each axis) and vertical σ (m). */
  gpsSigmaM?: { horizontal: number; vertical: number };
  /** The hill and the tree line; without it the ground is flat. */
  relief?: boolean;
  /** Checkpoint grid spacing over the block's interior (m). */
  checkpointSpacingM?: number;
}

/** A camera pose in the world frame: east, north of the world's north-west corner and height above take-off (m). */
export interface CameraPose {
  x: number;
  y: number;
  z: number;
  /** Degrees clockwise from north: where the top of the photo points. */
  yawDeg: number;
  pitchDeg: number;
  rollDeg: number;
}

/** A checkpoint: UTM east and north, and its height above the take-off ground (m). */
export interface Checkpoint {
  e: number;
  n: number;
  h: number;
}

export interface GpsFloor {
  /** RMSE at the checkpoints of the fitted transform applied to the true checkpoints (m). */
  horizontalM: number;
  verticalM: number;
  /** The fitted similarity: scale - 1, rotation (small angles, rad) and translation (m). */
  scaleMinusOne: number;
  rotationRad: [number, number, number];
  translationM: [number, number, number];
  /** Where the fit moves each checkpoint (east, north; m): the offsets a mosaic at the floor would show. */
  offsetsM: [number, number][];
}

/** RGB world raster: pixel (c, r) centre at E0 + (c + 0.5)·P, N0 - (r + 0.5)·P. */
export interface TruthWorld {
  rgb: Uint8Array;
  width: number;
  height: number;
  E0: number;
  N0: number;
  P: number;
}

export interface TruthSurvey {
  dir: string;
  files: string[];
  epsg: number;
  /** Photos' nadir ground resolution over flat ground (m). */
  gsdM: number;
  /** The pinhole: focal length in pixels, principal point at the photo's centre, no distortion. */
  focalPx: number;
  photoPx: [number, number];
  /** Camera poses in the world frame (x east, y north of the world's north-west corner E0, N0; z above take-off). */
  poses: CameraPose[];
  /** Recorded (noisy) camera positions in the world frame, as the photos' GPS says. */
  gpsPositions: [number, number, number][];
  checkpoints: Checkpoint[];
  /** The block's interior the checkpoints lie in: [minE, minN, maxE, maxN] (UTM). */
  interior: [number, number, number, number];
  /** The floor for a block whose tilt the gimbal's record holds (gimbalFloor): what the targets are set against. */
  floor: GpsFloor;
  /** The floor for a block known to be level (levelFloor), and for one free to tilt (helmertFloor), for comparison. */
  floorLevel: GpsFloor;
  floorTilted: GpsFloor;
  world: TruthWorld;
  /** The height field over the world frame. */
  relief: Relief;
  /** Ground height above take-off at UTM (e, n). */
  reliefAt(e: number, n: number): number;
  /** Grey (mean of RGB) of the world at UTM (e, n), bilinear. */
  greyAt(e: number, n: number): number;
  /** Seconds spent generating. */
  seconds: number;
}

/** Why a truth survey cannot be written here, or undefined. */
export function missingExiftool(): string | undefined {
  try {
    execFileSync('exiftool', ['-ver']);
    return undefined;
  } catch {
    return 'exiftool not installed (apt-get install libimage-exiftool-perl): truth survey cannot be written';
  }
}

type Rand = ReturnType<typeof seededRandom>;
const uniformIn = (rand: Rand, half: number) => (2 * rand.uniform() - 1) * half;
const rad = (deg: number) => (deg * Math.PI) / 180;
const smoothstep = (t: number) => (t <= 0 ? 0 : t >= 1 ? 1 : t * t * (3 - 2 * t));

/** Height field (m above take-off) over world-frame x east, y north: a Gaussian hill and a tree line. */
export interface Relief {
  at(x: number, y: number): number;
}

function makeRelief(centreX: number, centreY: number, spanX: number, spanY: number, on: boolean): Relief {
  if (!on) return { at: () => 0 };
  const hill = { x: centreX + 0.22 * spanX, y: centreY - 0.15 * spanY, sigma: 28, top: 15 };
  // The tree line crosses the flight lines, 20° off north, a third of the way along the block.
  const tree = { x: centreX - 0.2 * spanX, y: centreY, dirX: Math.sin(rad(20)), dirY: Math.cos(rad(20)), halfWidth: 5, edge: 3 };
  return {
    at(x, y) {
      const dx = x - hill.x, dy = y - hill.y;
      const h = hill.top * Math.exp(-(dx * dx + dy * dy) / (2 * hill.sigma * hill.sigma));
      const ax = x - tree.x, ay = y - tree.y;
      const across = Math.abs(ax * tree.dirY - ay * tree.dirX);
      if (across >= tree.halfWidth + tree.edge) return h;
      const along = ax * tree.dirX + ay * tree.dirY;
      const crown = 12.5 + 2.5 * Math.sin((2 * Math.PI * along) / 47);
      const t = crown * smoothstep((tree.halfWidth + tree.edge - across) / (2 * tree.edge));
      return Math.max(h, t);
    },
  };
}

/** The NAIP tile's centre cut to `widthM` x `heightM`, enlarged to `P` metres a pixel, with fine texture. */
async function makeWorld(naipPath: string, widthM: number, heightM: number, P: number, seed: number): Promise<Omit<TruthWorld, 'E0' | 'N0'>> {
  const naip = await sharp(naipPath).raw().toBuffer({ resolveWithObject: true });
  const { width: nw, height: nh, channels } = naip.info;
  const cw = Math.ceil(widthM / NAIP_PIXEL_M), ch = Math.ceil(heightM / NAIP_PIXEL_M);
  if (cw > nw || ch > nh) throw new Error(`survey of ${widthM.toFixed(0)} x ${heightM.toFixed(0)} m does not fit the NAIP tile`);
  const left = (nw - cw) >> 1, top = (nh - ch) >> 1;
  // NAIP's fourth band (NIR) would read as alpha: keep red, green and blue.
  const rgb = Buffer.alloc(cw * ch * 3);
  for (let r = 0; r < ch; r++) for (let c = 0; c < cw; c++) for (let b = 0; b < 3; b++) {
    rgb[(r * cw + c) * 3 + b] = naip.data[((r + top) * nw + c + left) * channels + b]!;
  }
  const width = Math.round((cw * NAIP_PIXEL_M) / P), height = Math.round((ch * NAIP_PIXEL_M) / P);
  const raw = (w: number, h: number) => ({ raw: { width: w, height: h, channels: 3 as const } });
  const enlarged = await sharp(rgb, raw(cw, ch)).resize(width, height, { kernel: 'cubic' }).raw().toBuffer();
  const noise = Buffer.alloc(width * height * 3);
  const rand = seededRandom(seed * 7919 + 1);
  for (let i = 0; i < noise.length; i += 3) noise[i] = noise[i + 1] = noise[i + 2] = Math.max(0, Math.min(255, 128 + 60 * rand.normal()));
  const texture = await sharp(noise, raw(width, height)).blur(Math.max(0.3, TEXTURE_M / P)).raw().toBuffer();
  stretchAboutGrey(texture, TEXTURE_CONTRAST);
  const out = await sharp(enlarged, raw(width, height)).composite([{ input: texture, ...raw(width, height), blend: 'overlay' }]).removeAlpha().raw().toBuffer();
  return { rgb: new Uint8Array(out.buffer, out.byteOffset, out.length), width, height, P };
}

/** Blurring white noise leaves little of its spread: bring it back to `std` about mid-grey. */
function stretchAboutGrey(px: Buffer, std: number): void {
  let ss = 0;
  for (let i = 0; i < px.length; i += 3) ss += (px[i]! - 128) ** 2;
  const k = std / Math.sqrt(ss / (px.length / 3) || 1);
  for (let i = 0; i < px.length; i++) px[i] = Math.max(0, Math.min(255, Math.round(128 + (px[i]! - 128) * k)));
}

/** Bilinear RGB of the world at world-frame (x, y) into out[o..o+2]; black outside. */
function sampleWorld(w: TruthWorld, x: number, y: number, out: Uint8Array, o: number, gain: number): void {
  const fx = x / w.P - 0.5, fy = -y / w.P - 0.5;
  const c = Math.floor(fx), r = Math.floor(fy);
  if (c < 0 || r < 0 || c + 1 >= w.width || r + 1 >= w.height) {
    out[o] = out[o + 1] = out[o + 2] = 0;
    return;
  }
  const ax = fx - c, ay = fy - r;
  const i00 = (r * w.width + c) * 3, i01 = i00 + 3, i10 = i00 + w.width * 3, i11 = i10 + 3;
  const px = w.rgb;
  for (let b = 0; b < 3; b++) {
    const v = (px[i00 + b]! * (1 - ax) + px[i01 + b]! * ax) * (1 - ay) + (px[i10 + b]! * (1 - ax) + px[i11 + b]! * ax) * ay;
    out[o + b] = Math.min(255, Math.round(v * gain));
  }
}

/** Camera-to-world rotation (columns: image right, image down, optical axis) of a pose. */
export function cameraRotation(p: CameraPose): number[] {
  const s = Math.sin(rad(p.yawDeg)), c = Math.cos(rad(p.yawDeg));
  // Straight down with the top of the image towards the yaw: columns right (c, -s, 0), down (-s, -c, 0), axis (0, 0, -1).
  const N = [[c, -s, 0], [-s, -c, 0], [0, 0, -1]];
  const cp = Math.cos(rad(p.pitchDeg)), sp = Math.sin(rad(p.pitchDeg)), cr = Math.cos(rad(p.rollDeg)), sr = Math.sin(rad(p.rollDeg));
  // Pitch about the image x axis, then roll about the image y axis.
  const T = [[cr, 0, sr], [sp * sr, cp, -sp * cr], [-cp * sr, sp, cp * cr]];
  const R: number[] = [];
  for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) R.push(N[i]![0]! * T[0]![j]! + N[i]![1]! * T[1]![j]! + N[i]![2]! * T[2]![j]!);
  return R;
}

/**
 * Where the ray from (cx, cy, cz) along d (dz < 0) meets the relief: fixed-point steps, which settle
 * on gentle slopes; where they do not (a tree line's edge seen aslant), a march down the ray and a bisection.
 */
function hitGround(relief: Relief, cx: number, cy: number, cz: number, dx: number, dy: number, dz: number, out: Float64Array): void {
  let h = 0, t = 0;
  for (let k = 0; k < 6; k++) {
    t = (cz - h) / -dz;
    const h2 = relief.at(cx + t * dx, cy + t * dy);
    if (Math.abs(h2 - h) < 0.005) {
      out[0] = cx + t * dx;
      out[1] = cy + t * dy;
      return;
    }
    h = h2;
  }
  let lo = (cz - RELIEF_TOP_M) / -dz, hi = lo;
  const step = 0.25 / -dz;
  while (cz + hi * dz > relief.at(cx + hi * dx, cy + hi * dy)) {
    lo = hi;
    hi += step;
  }
  for (let k = 0; k < 12; k++) {
    const mid = (lo + hi) / 2;
    if (cz + mid * dz > relief.at(cx + mid * dx, cy + mid * dy)) lo = mid;
    else hi = mid;
  }
  t = (lo + hi) / 2;
  out[0] = cx + t * dx;
  out[1] = cy + t * dy;
}

/**
 * Pixel (u, v) (from the photo's top-left corner, pixel centres at +0.5) where the world-frame point
 * (x, y, z) appears in a photo taken from `pose` through a pinhole of `focalPx`, principal point at the
 * photo's centre; null behind the camera.
 */
export function projectToPhoto(pose: CameraPose, focalPx: number, W: number, H: number, x: number, y: number, z: number): [number, number] | null {
  const R = cameraRotation(pose);
  const [dx, dy, dz] = [x - pose.x, y - pose.y, z - pose.z];
  // Rᵀ·d: the camera frame's right, down and axis components.
  const cx = R[0]! * dx + R[3]! * dy + R[6]! * dz, cy = R[1]! * dx + R[4]! * dy + R[7]! * dz, cz = R[2]! * dx + R[5]! * dy + R[8]! * dz;
  return cz > 0 ? [W / 2 + (focalPx * cx) / cz, H / 2 + (focalPx * cy) / cz] : null;
}

/** World-frame ground point (x, y) the pixel (u, v) of a photo from `pose` sees. */
export function pixelToGround(relief: Relief, pose: CameraPose, focalPx: number, W: number, H: number, u: number, v: number): [number, number] {
  const R = cameraRotation(pose);
  const ix = (u - W / 2) / focalPx, iy = (v - H / 2) / focalPx;
  const hit = new Float64Array(2);
  hitGround(relief, pose.x, pose.y, pose.z, R[0]! * ix + R[1]! * iy + R[2]!, R[3]! * ix + R[4]! * iy + R[5]!, R[6]! * ix + R[7]! * iy + R[8]!, hit);
  return [hit[0]!, hit[1]!];
}

/** One photo (RGB, row-major) of the world from `pose` through a pinhole of `focalPx`. */
function renderPhoto(world: TruthWorld, relief: Relief, pose: CameraPose, W: number, H: number, focalPx: number, gain: number): Uint8Array {
  const R = cameraRotation(pose);
  const out = new Uint8Array(W * H * 3);
  const hit = new Float64Array(2);
  for (let v = 0; v < H; v++) {
    const iy = (v + 0.5 - H / 2) / focalPx;
    for (let u = 0; u < W; u++) {
      const ix = (u + 0.5 - W / 2) / focalPx;
      const dx = R[0]! * ix + R[1]! * iy + R[2]!, dy = R[3]! * ix + R[4]! * iy + R[5]!, dz = R[6]! * ix + R[7]! * iy + R[8]!;
      hitGround(relief, pose.x, pose.y, pose.z, dx, dy, dz, hit);
      sampleWorld(world, hit[0]!, hit[1]!, out, (v * W + u) * 3, gain);
    }
  }
  return out;
}

/** The planned and true camera poses of a serpentine flight of east-west lines (world frame). */
function flightPlan(o: Required<Omit<TruthSurveyOptions, 'naipPath' | 'dir'>>, gsd: number, rand: Rand) {
  const across = o.longSide === 'across';
  const footAlong = (across ? o.photoHeightPx : o.photoWidthPx) * gsd, footAcross = (across ? o.photoWidthPx : o.photoHeightPx) * gsd;
  const step = footAlong * (1 - o.forwardOverlap), lineGap = footAcross * (1 - o.sideOverlap);
  const spanX = (o.photosPerLine - 1) * step, spanY = (o.lines - 1) * lineGap;
  const reach = Math.hypot(footAlong, footAcross) / 2 + o.heightM * Math.tan(rad(o.tiltDeg * 1.5)) + 15;
  const poses: CameraPose[] = [];
  const recordedYaw: number[] = [];
  const flightYaw: number[] = [];
  for (let line = 0; line < o.lines; line++) {
    for (let i = 0; i < o.photosPerLine; i++) {
      const track = line % 2 ? 270 : 90;
      const camera = across ? track : track + 90;
      const yawDeg = camera + uniformIn(rand, 1);
      const yawError = uniformIn(rand, o.yawErrorDeg);
      poses.push({
        x: reach + (line % 2 ? o.photosPerLine - 1 - i : i) * step + uniformIn(rand, 0.5),
        y: -(reach + line * lineGap) + uniformIn(rand, 0.5),
        z: o.heightM + uniformIn(rand, 0.5),
        yawDeg, pitchDeg: uniformIn(rand, o.tiltDeg), rollDeg: uniformIn(rand, o.tiltDeg),
      });
      recordedYaw.push(yawDeg + yawError);
      flightYaw.push(yawDeg - (camera - track) + yawError);
    }
  }
  return { poses, recordedYaw, flightYaw, spanX, spanY, reach, footAlong, footAcross };
}

const DEFAULTS: Required<Omit<TruthSurveyOptions, 'naipPath' | 'dir'>> = {
  seed: 38, lines: 3, photosPerLine: 6, photoWidthPx: 1000, photoHeightPx: 750, heightM: 80,
  forwardOverlap: 0.7, sideOverlap: 0.65, tiltDeg: 2, yawErrorDeg: 2, longSide: 'across',
  gpsSigmaM: { horizontal: 2, vertical: 3 }, relief: true, checkpointSpacingM: 20,
};

export async function makeTruthSurvey(options: TruthSurveyOptions): Promise<TruthSurvey> {
  const t0 = performance.now();
  const o = { ...DEFAULTS, ...options };
  const rand = seededRandom(o.seed);
  const focalPx = (FOCAL_MM / SENSOR_W_MM) * o.photoWidthPx;
  const gsd = o.heightM / focalPx;
  const plan = flightPlan(o, gsd, rand);
  const worldW = plan.spanX + 2 * plan.reach, worldH = plan.spanY + 2 * plan.reach;
  const P = Math.min(0.1, Math.max(0.03, gsd / 2));
  const frame = utmFrame(17.1, 48.1);
  const [E0, N0] = frame.toUtm(17.1, 48.1);
  const world: TruthWorld = { ...(await makeWorld(o.naipPath, worldW, worldH, P, o.seed)), E0, N0 };
  const relief = makeRelief(plan.reach + plan.spanX / 2, -(plan.reach + plan.spanY / 2), plan.spanX, plan.spanY, o.relief);

  const gps = gpsPositions(plan.poses, o.gpsSigmaM, rand);
  const files = await writePhotos({ dir: o.dir, world, relief, poses: plan.poses, W: o.photoWidthPx, H: o.photoHeightPx, focalPx, rand }, (k, file) => {
    const [lon, lat] = frame.toWgs84(E0 + gps[k]![0], N0 + gps[k]![1]);
    return photoTags(file, k, lon, lat, gps[k]![2], plan.recordedYaw[k]!, plan.flightYaw[k]!, o.dir);
  });

  const inset = Math.min(plan.footAlong, plan.footAcross) / 4;
  const interiorLocal: [number, number, number, number] = [plan.reach - inset, -(plan.reach + plan.spanY + inset), plan.reach + plan.spanX + inset, -(plan.reach - inset)];
  const checkpoints = placeCheckpoints(world, relief, interiorLocal, o.checkpointSpacingM, rand);
  const truePositions = plan.poses.map((p) => [p.x, p.y, p.z]), truePoints = checkpoints.map((c) => [c.x, c.y, relief.at(c.x, c.y)]);
  return {
    dir: o.dir, files, epsg: frame.epsg, gsdM: gsd, focalPx, photoPx: [o.photoWidthPx, o.photoHeightPx], poses: plan.poses, relief, gpsPositions: gps,
    checkpoints: checkpoints.map((c) => ({ e: E0 + c.x, n: N0 + c.y, h: relief.at(c.x, c.y) })),
    interior: [E0 + interiorLocal[0], N0 + interiorLocal[1], E0 + interiorLocal[2], N0 + interiorLocal[3]],
    floor: gimbalFloor(truePositions, gps, truePoints, { axes: plan.poses.map(opticalAxis), tiltSigmaRad: tiltSpreadRad(o.tiltDeg), gpsSigmaM: o.gpsSigmaM }),
    floorLevel: levelFloor(truePositions, gps, truePoints), floorTilted: helmertFloor(truePositions, gps, truePoints), world,
    reliefAt: (e, n) => relief.at(e - E0, n - N0),
    greyAt: (e, n) => {
      const rgb = new Uint8Array(3);
      sampleWorld(world, e - E0, n - N0, rgb, 0, 1);
      return (rgb[0]! + rgb[1]! + rgb[2]!) / 3;
    },
    seconds: (performance.now() - t0) / 1000,
  };
}

interface PhotoSet {
  dir: string;
  world: TruthWorld;
  relief: Relief;
  poses: CameraPose[];
  W: number;
  H: number;
  focalPx: number;
  rand: Rand;
}

/** Each pose's photo as a JPEG (each with its own exposure), then their tags (`tags`: exiftool arguments of photo k) in one exiftool run. */
async function writePhotos(set: PhotoSet, tags: (k: number, file: string) => string[]): Promise<string[]> {
  rmSync(set.dir, { recursive: true, force: true });
  mkdirSync(set.dir, { recursive: true });
  const files: string[] = [];
  const args: string[] = [];
  for (const [k, pose] of set.poses.entries()) {
    const gain = 0.92 + 0.16 * set.rand.uniform();
    const px = renderPhoto(set.world, set.relief, pose, set.W, set.H, set.focalPx, gain);
    const file = join(set.dir, `DJI_${String(k + 1).padStart(4, '0')}.JPG`);
    await sharp(px, { raw: { width: set.W, height: set.H, channels: 3 } }).jpeg({ quality: 90 }).toFile(file);
    files.push(file);
    args.push(...tags(k, file));
  }
  const argfile = join(set.dir, 'exiftool.args');
  writeFileSync(argfile, args.join('\n') + '\n');
  execFileSync('exiftool', ['-q', '-q', '-@', argfile], { stdio: 'pipe' });
  for (const f of ['exiftool.args', ...set.poses.map((_, k) => `x${k}.xmp`)]) rmSync(join(set.dir, f));
  return files;
}

/** Recorded positions: the true ones with GPS noise (σ/√2 on each horizontal axis, σ vertically). */
function gpsPositions(poses: CameraPose[], sigma: { horizontal: number; vertical: number }, rand: Rand): [number, number, number][] {
  const h = sigma.horizontal / Math.SQRT2;
  return poses.map((p) => [p.x + h * rand.normal(), p.y + h * rand.normal(), p.z + sigma.vertical * rand.normal()]);
}

/** exiftool arguments for photo k: EXIF GPS, the camera, and the DJI XMP (gimbal straight down: the tilt is not recorded). */
function photoTags(file: string, k: number, lon: number, lat: number, z: number, gimbalYaw: number, flightYaw: number, dir: string): string[] {
  const xmp = join(dir, `x${k}.xmp`);
  const deg = (a: number) => (((a + 180) % 360) + 360) % 360 - 180;
  writeFileSync(xmp, `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:drone-dji="http://www.dji.com/drone-dji/1.0/"
 drone-dji:RelativeAltitude="${z >= 0 ? '+' : ''}${z.toFixed(2)}" drone-dji:GimbalYawDegree="${deg(gimbalYaw).toFixed(2)}" drone-dji:GimbalPitchDegree="-90.0"
 drone-dji:GimbalRollDegree="0.0" drone-dji:FlightYawDegree="${deg(flightYaw).toFixed(2)}" drone-dji:FlightPitchDegree="0.0" drone-dji:FlightRollDegree="0.0"/>
</rdf:RDF></x:xmpmeta><?xpacket end="w"?>`);
  const sec = String(k % 60).padStart(2, '0'), min = String(10 + Math.floor(k / 60)).padStart(2, '0');
  return [`-XMP<=${xmp}`, '-Make=DJI', `-Model=${CAMERA_MODEL}`, `-DateTimeOriginal=2024:06:15 10:${min}:${sec}`,
    `-GPSLatitude=${lat}`, '-GPSLatitudeRef=N', `-GPSLongitude=${lon}`, '-GPSLongitudeRef=E',
    `-GPSAltitude=${(TAKE_OFF_ALT_M + z).toFixed(2)}`, '-GPSAltitudeRef=0', `-FocalLength=${FOCAL_MM}`, '-FocalLengthIn35mmFormat=24',
    '-overwrite_original', file, '-execute'];
}

/** Grey texture (variance) of the world in a 3 m square around (x, y), sampled every 15 cm. */
function textureScore(world: TruthWorld, x: number, y: number): number {
  const rgb = new Uint8Array(3);
  let s = 0, ss = 0, n = 0;
  for (let dy = -1.5; dy <= 1.5; dy += 0.15) for (let dx = -1.5; dx <= 1.5; dx += 0.15) {
    sampleWorld(world, x + dx, y + dy, rgb, 0, 1);
    const g = rgb[0]! + rgb[1]! + rgb[2]!;
    s += g;
    ss += g * g;
    n++;
  }
  return ss / n - (s / n) ** 2;
}

/** Steepest slope of the relief within 6 m of (x, y): a checkpoint is put on open ground, off a tree line's edge. */
function steepestSlope(relief: Relief, x: number, y: number): number {
  let worst = 0;
  for (let r = 0; r <= 6; r += 2) for (let a = 0; a < 8; a++) {
    const px = x + r * Math.cos((a * Math.PI) / 4), py = y + r * Math.sin((a * Math.PI) / 4);
    const gx = (relief.at(px + 0.5, py) - relief.at(px - 0.5, py)), gy = (relief.at(px, py + 0.5) - relief.at(px, py - 0.5));
    worst = Math.max(worst, Math.hypot(gx, gy));
  }
  return worst;
}

/** Checkpoints on a grid over the interior, each the most textured of nine spots near its node, off steep ground. */
function placeCheckpoints(world: TruthWorld, relief: Relief, [x0, y0, x1, y1]: [number, number, number, number], spacing: number, rand: Rand) {
  const out: { x: number; y: number }[] = [];
  const nx = Math.max(1, Math.floor((x1 - x0) / spacing)), ny = Math.max(1, Math.floor((y1 - y0) / spacing));
  const sx = (x1 - x0) / nx, sy = (y1 - y0) / ny;
  for (let j = 0; j <= ny; j++) for (let i = 0; i <= nx; i++) {
    let best: { x: number; y: number; score: number } | null = null;
    for (let k = 0; k < 9; k++) {
      const x = Math.min(x1, Math.max(x0, x0 + i * sx + uniformIn(rand, sx / 4)));
      const y = Math.min(y1, Math.max(y0, y0 + j * sy + uniformIn(rand, sy / 4)));
      if (steepestSlope(relief, x, y) > 0.6) continue;
      const score = textureScore(world, x, y);
      if (!best || score > best.score) best = { x, y, score };
    }
    if (best) out.push({ x: best.x, y: best.y });
  }
  return out;
}

/**
 * The floor the GPS noise allows, for a block known to be level: the 2-D similarity and vertical shift
 * taking the true camera positions to the recorded ones (least squares), applied to the true
 * checkpoints; its RMSE there. It takes the block's tilt as known, which no processor knows: the
 * unrecorded tilts do not average out exactly over a finite block (gimbalFloor).
 */
export function levelFloor(truePositions: number[][], recorded: number[][], checkpoints: number[][]): GpsFloor {
  const n = truePositions.length;
  const { a, b, t: [tx, ty] } = similarity2d(truePositions, recorded);
  const dz = recorded.reduce((s, p) => s + p[2]!, 0) / n - truePositions.reduce((s, p) => s + p[2]!, 0) / n;
  const R = [a, -b, 0, b, a, 0, 0, 0, 1];
  const scale = Math.hypot(a, b);
  const t: [number, number, number] = [tx, ty, dz];
  return floorAt(checkpoints, (p) => [a * p[0]! - b * p[1]! + tx, b * p[0]! + a * p[1]! + ty, p[2]! + dz], scale, R.map((r) => r / scale), t);
}

/** Least-squares 2-D similarity to ≈ [a -b; b a]·from + t over the points' first two coordinates. */
export function similarity2d(from: ArrayLike<number>[], to: ArrayLike<number>[]): { a: number; b: number; t: [number, number] } {
  const n = from.length;
  const mean = (ps: ArrayLike<number>[], k: number) => { let s = 0; for (const p of ps) s += p[k]!; return s / n; };
  const [ax, ay, bx, by] = [mean(from, 0), mean(from, 1), mean(to, 0), mean(to, 1)];
  let dot = 0, cross = 0, aa = 0;
  for (let i = 0; i < n; i++) {
    const [px, py] = [from[i]![0]! - ax, from[i]![1]! - ay], [qx, qy] = [to[i]![0]! - bx, to[i]![1]! - by];
    dot += px * qx + py * qy;
    cross += px * qy - py * qx;
    aa += px * px + py * py;
  }
  const [a, b] = [dot / aa, cross / aa];
  return { a, b, t: [bx - (a * ax - b * ay), by - (b * ax + a * ay)] };
}

/**
 * The floor the recorded data allow: the 3-D similarity taking the true camera positions to the
 * recorded ones (σ_h/√2 an axis horizontally, σ_v vertically), its tilt held by each gimbal's record of
 * straight down at the spread of the unrecorded tilt (`noise.tiltSigmaRad`; `noise.axes` the true optical axes).
 * The mean unrecorded tilt of a finite block is not zero, and nothing recorded shows it: the ground
 * moves sideways by it times the height, which the level floor leaves out. Small angles, least squares.
 */
export function gimbalFloor(truePositions: number[][], recorded: number[][], checkpoints: number[][], noise: { axes: number[][]; tiltSigmaRad: number; gpsSigmaM: { horizontal: number; vertical: number } }): GpsFloor {
  const { axes, tiltSigmaRad, gpsSigmaM: gps } = noise;
  const m = [0, 1, 2].map((k) => truePositions.reduce((s, p) => s + p[k]!, 0) / truePositions.length);
  // Unknowns: shift (3), small rotation ω (3), scale - 1; a point p moves by t + ω × (p - m) + ds·(p - m).
  const moved = (a: number[]) => [[1, 0, 0, 0, a[2]!, -a[1]!, a[0]!], [0, 1, 0, -a[2]!, 0, a[0]!, a[1]!], [0, 0, 1, a[1]!, -a[0]!, 0, a[2]!]];
  const rows: number[][] = [], rhs: number[] = [];
  const sigma = [gps.horizontal / Math.SQRT2, gps.horizontal / Math.SQRT2, gps.vertical];
  truePositions.forEach((p, i) => {
    moved(p.map((v, k) => v - m[k]!)).forEach((row, k) => {
      rows.push(row.map((v) => v / sigma[k]!));
      rhs.push((recorded[i]![k]! - p[k]!) / sigma[k]!);
    });
    // The axis turned by ω: its horizontal part, which the gimbal records as zero.
    const d = axes[i]!;
    rows.push([0, 0, 0, 0, d[2]!, -d[1]!, 0].map((v) => v / tiltSigmaRad), [0, 0, 0, -d[2]!, 0, d[0]!, 0].map((v) => v / tiltSigmaRad));
    rhs.push(-d[0]! / tiltSigmaRad, -d[1]! / tiltSigmaRad);
  });
  const u = leastSquares(rows, rhs);
  const R = [1, -u[5]!, u[4]!, u[5]!, 1, -u[3]!, -u[4]!, u[3]!, 1];
  const fitted = (p: number[]) => {
    const shift = moved(p.map((v, k) => v - m[k]!)).map((row) => row.reduce((s, v, k) => s + v * u[k]!, 0));
    return p.map((v, k) => v + shift[k]!);
  };
  return floorAt(checkpoints, fitted, 1 + u[6]!, R, [u[0]!, u[1]!, u[2]!]);
}

/** The standard deviation of a tilt uniform in ±tiltDeg (rad), kept above zero for the fit's weights. */
const tiltSpreadRad = (tiltDeg: number) => rad(Math.max(tiltDeg, 0.01) / Math.sqrt(3));

/** A pose's optical axis in the world frame. */
const opticalAxis = (p: CameraPose) => {
  const R = cameraRotation(p);
  return [R[2]!, R[5]!, R[8]!];
};

/** Least squares of a small system by its normal equations. */
function leastSquares(rows: number[][], rhs: number[]): Float64Array {
  const n = rows[0]!.length;
  const N = emptySkyline(new Int32Array(n)), r = new Float64Array(n);
  rows.forEach((row, k) => row.forEach((a, i) => {
    r[i] = r[i]! + a * rhs[k]!;
    row.forEach((b, j) => { if (j <= i) addLower(N, i, j, a * b); });
  }));
  return solveSkyline(N, r);
}

/**
 * The floor with the block free to tilt: the 3-D similarity (Helmert) taking the true camera
 * positions to the recorded ones. The GPS heights' noise then tilts the block, and the ground 80 m
 * below the cameras moves sideways by the tilt times the height.
 */
export function helmertFloor(truePositions: number[][], recorded: number[][], checkpoints: number[][]): GpsFloor {
  const { scale, R, t } = similarityFit(truePositions, recorded);
  return floorAt(checkpoints, (p) => applySimilarity(scale, R, t, p), scale, R, t);
}

function floorAt(checkpoints: number[][], fitted: (p: number[]) => number[], scale: number, R: number[], t: [number, number, number]): GpsFloor {
  let h2 = 0, v2 = 0;
  const offsetsM: [number, number][] = [];
  for (const p of checkpoints) {
    const q = fitted(p);
    offsetsM.push([q[0]! - p[0]!, q[1]! - p[1]!]);
    h2 += (q[0]! - p[0]!) ** 2 + (q[1]! - p[1]!) ** 2;
    v2 += (q[2]! - p[2]!) ** 2;
  }
  return {
    horizontalM: Math.sqrt(h2 / checkpoints.length), verticalM: Math.sqrt(v2 / checkpoints.length),
    scaleMinusOne: scale - 1, rotationRad: [(R[7]! - R[5]!) / 2, (R[2]! - R[6]!) / 2, (R[3]! - R[1]!) / 2], translationM: t, offsetsM,
  };
}

const applySimilarity = (s: number, R: number[], t: [number, number, number], p: number[]) =>
  [0, 1, 2].map((i) => s * (R[3 * i]! * p[0]! + R[3 * i + 1]! * p[1]! + R[3 * i + 2]! * p[2]!) + t[i]!);

/** Least-squares b ≈ s·R·a + t (Horn 1987: the rotation's quaternion is the top eigenvector of a 4x4 matrix). */
export function similarityFit(a: number[][], b: number[][]): { scale: number; R: number[]; t: [number, number, number] } {
  const mean = (ps: number[][]) => [0, 1, 2].map((k) => ps.reduce((s, p) => s + p[k]!, 0) / ps.length);
  const ma = mean(a), mb = mean(b);
  const S = new Array<number>(9).fill(0);
  let aa = 0;
  for (let i = 0; i < a.length; i++) {
    const pa = [0, 1, 2].map((k) => a[i]![k]! - ma[k]!), pb = [0, 1, 2].map((k) => b[i]![k]! - mb[k]!);
    for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) S[3 * r + c]! += pa[r]! * pb[c]!;
    aa += pa[0]! ** 2 + pa[1]! ** 2 + pa[2]! ** 2;
  }
  const [xx, xy, xz, yx, yy, yz, zx, zy, zz] = S as [number, number, number, number, number, number, number, number, number];
  const N = [
    [xx + yy + zz, yz - zy, zx - xz, xy - yx],
    [yz - zy, xx - yy - zz, xy + yx, zx + xz],
    [zx - xz, xy + yx, -xx + yy - zz, yz + zy],
    [xy - yx, zx + xz, yz + zy, -xx - yy + zz],
  ];
  const [w, x, y, z] = topEigenvector(N) as [number, number, number, number];
  const R = [
    w * w + x * x - y * y - z * z, 2 * (x * y - w * z), 2 * (x * z + w * y),
    2 * (x * y + w * z), w * w - x * x + y * y - z * z, 2 * (y * z - w * x),
    2 * (x * z - w * y), 2 * (y * z + w * x), w * w - x * x - y * y + z * z,
  ];
  // s = Σ b'·R a' / Σ |a'|²  =  trace(Rᵀ-weighted cross-covariance) / Σ |a'|².
  let num = 0;
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) num += R[3 * r + c]! * S[3 * c + r]!;
  const scale = num / aa;
  const Rma = applySimilarity(scale, R, [0, 0, 0], ma);
  return { scale, R, t: [mb[0]! - Rma[0]!, mb[1]! - Rma[1]!, mb[2]! - Rma[2]!] };
}

/** Eigenvector of the largest eigenvalue of a small symmetric matrix (cyclic Jacobi rotations). */
function topEigenvector(M: number[][]): number[] {
  const n = M.length;
  const A = M.map((r) => r.slice());
  const V: number[][] = A.map((_, i) => A.map((__, j) => (i === j ? 1 : 0)));
  for (let sweep = 0; sweep < 50; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += A[p]![q]! ** 2;
    if (off < 1e-22) break;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) {
      if (Math.abs(A[p]![q]!) < 1e-300) continue;
      const theta = (A[q]![q]! - A[p]![p]!) / (2 * A[p]![q]!);
      const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
      const c = 1 / Math.sqrt(t * t + 1), s = t * c;
      for (let k = 0; k < n; k++) {
        const akp = A[k]![p]!, akq = A[k]![q]!;
        A[k]![p] = c * akp - s * akq;
        A[k]![q] = s * akp + c * akq;
      }
      for (let k = 0; k < n; k++) {
        const apk = A[p]![k]!, aqk = A[q]![k]!;
        A[p]![k] = c * apk - s * aqk;
        A[q]![k] = s * apk + c * aqk;
      }
      for (let k = 0; k < n; k++) {
        const vkp = V[k]![p]!, vkq = V[k]![q]!;
        V[k]![p] = c * vkp - s * vkq;
        V[k]![q] = s * vkp + c * vkq;
      }
    }
  }
  let top = 0;
  for (let i = 1; i < n; i++) if (A[i]![i]! > A[top]![top]!) top = i;
  return V.map((row) => row[top]!);
}
