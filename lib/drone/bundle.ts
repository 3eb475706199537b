// Bundle adjustment: every photo's pose (camera.ts) and every tie point's ground position settle
// together so that each point projects onto the pixels where the matches saw it. Sparse
// Levenberg–Marquardt as OpenSfM and Ceres do it: the point blocks (3×3) are eliminated first (Schur
// complement), leaving a system in the 6 pose parameters per photo, solved by Cholesky within its
// envelope (cholesky.ts). Soft
// priors on GPS position, recorded heading and gimbal tilt set the datum and keep poorly seen photos
// in place; the tilt's prior is loose, so unrecorded gimbal tilt of a few degrees is left to the tie
// points to show. Reprojection residuals are reweighted (Huber) and gross outliers dropped.
import type { Camera } from './camera';
import { pixelRayToGround, projectToPixel, rotation } from './camera';
import { median } from './features';
import { type Skyline, at, blockSkyline, factorSkyline, substituteRows } from './cholesky';
import type { ReliefGrid } from './relief';
import type { Tracks } from './tracks';

/** Tie points' ground positions (E, N, h), three per track. */
export type Points = Float64Array;

/** Each track's point: the mean of its rays' hits on the relief under the initial cameras. */
export function triangulateOnRelief(tracks: Tracks, cameras: Camera[], relief: ReliefGrid): Points {
  const nt = tracks.start.length - 1;
  const X = new Float64Array(3 * nt);
  const R = cameras.map((c) => rotation(c.yaw, c.pitch, c.roll));
  for (let t = 0; t < nt; t++) {
    const a = tracks.start[t]!, b = tracks.start[t + 1]!;
    for (let o = a; o < b; o++) {
      const c = tracks.cam[o]!;
      const g = pixelRayToGround(cameras[c]!, tracks.u[o]!, tracks.v[o]!, relief, R[c]);
      for (let k = 0; k < 3; k++) X[3 * t + k] = X[3 * t + k]! + g[k]! / (b - a);
    }
  }
  return X;
}

/** Soft priors of one photo's pose; null where nothing is known. */
export interface PosePrior {
  /** GPS position (m) and its horizontal standard deviation. */
  E: number;
  N: number;
  horizontalSigmaM: number;
  /** Height above the reference (m) and its standard deviation. */
  Z: number;
  verticalSigmaM: number;
  yaw: number;
  yawSigmaRad: number;
  pitch: number;
  roll: number;
  tiltSigmaRad: number;
}

export interface BundleOptions {
  /** Standard deviation of a match's pixel position (full-resolution pixels). */
  obsSigmaPx: number;
  maxIterations?: number;
  /**
   * Self-calibration: photos with the same `group` (one camera model) share one focal length, held to
   * its starting value with standard deviation `sigmaShare` of it, and, with `k1Sigma`, one radial k1
   * held to its starting value with that standard deviation. Absent: the intrinsics stay fixed.
   */
  focal?: { group: ArrayLike<number>; sigmaShare: number; k1Sigma?: number };
}

export interface BundleResult {
  cameras: Camera[];
  points: Points;
  /** Per observation: whether it was kept (not a gross outlier) in the final pass. */
  inlier: Uint8Array;
  /** Root mean square reprojection error of the kept observations (pixels). */
  rmsPx: number;
  iterations: number;
}

const POSE = 6;
/** Parameters a single observation touches in the reduced system: its photo's pose, its focal and k1. */
const EXT = POSE + 2;
/** Intrinsic parameters per camera group: focal, k1. */
const INTR = 2;
const STEP_K1 = 1e-5;
const wrap = (a: number) => a - 2 * Math.PI * Math.round(a / (2 * Math.PI));
/** Huber threshold and outlier cut, in robust standard deviations of the reprojection error. */
const HUBER_K = 2;
const OUTLIER_K = 6;
/** A step that lowers the cost by less than this share ends the adjustment. */
const CONVERGED_GAIN = 1e-7;

const poseOf = (c: Camera) => [c.E, c.N, c.Z, c.yaw, c.pitch, c.roll];
const withPose = (c: Camera, p: ArrayLike<number>): Camera => ({ ...c, E: p[0]!, N: p[1]!, Z: p[2]!, yaw: p[3]!, pitch: p[4]!, roll: p[5]! });

/**
 * The shared intrinsics: which photos share which, their prior values and sigmas, INTR per group
 * (focal, k1). A k1 that is not adjusted keeps a zero Jacobian and so never moves.
 */
interface Focals {
  group: Int32Array;
  prior: Float64Array;
  sigma: Float64Array;
  k1Free: boolean;
}

function focalsOf(cameras: Camera[], opts: BundleOptions): Focals {
  if (!opts.focal) return { group: new Int32Array(cameras.length).fill(-1), prior: new Float64Array(0), sigma: new Float64Array(0), k1Free: false };
  const group = Int32Array.from(opts.focal.group);
  const n = Math.max(0, ...group) + 1;
  const prior = new Float64Array(INTR * n), sigma = new Float64Array(INTR * n);
  cameras.forEach((c, k) => {
    const g = group[k]!;
    prior[INTR * g] = c.f; prior[INTR * g + 1] = c.k1;
    sigma[INTR * g] = c.f * opts.focal!.sigmaShare; sigma[INTR * g + 1] = opts.focal!.k1Sigma ?? 1;
  });
  return { group, prior, sigma, k1Free: opts.focal.k1Sigma !== undefined };
}

/** Prior residuals (whitened) of a pose, in POSE order. */
function priorResiduals(p: ArrayLike<number>, q: PosePrior): number[] {
  return [
    (p[0]! - q.E) / q.horizontalSigmaM, (p[1]! - q.N) / q.horizontalSigmaM, (p[2]! - q.Z) / q.verticalSigmaM,
    wrap(p[3]! - q.yaw) / q.yawSigmaRad, (p[4]! - q.pitch) / q.tiltSigmaRad, (p[5]! - q.roll) / q.tiltSigmaRad,
  ];
}
const priorSigmas = (q: PosePrior) => [q.horizontalSigmaM, q.horizontalSigmaM, q.verticalSigmaM, q.yawSigmaRad, q.tiltSigmaRad, q.tiltSigmaRad];

/** Whitened reprojection residuals of every observation (NaN-free: a point behind a camera counts as far off). */
function reprojection(tracks: Tracks, cameras: Camera[], X: Points, sigma: number, out: Float64Array): void {
  const R = cameras.map((c) => rotation(c.yaw, c.pitch, c.roll));
  const nt = tracks.start.length - 1;
  for (let t = 0; t < nt; t++) {
    for (let o = tracks.start[t]!; o < tracks.start[t + 1]!; o++) {
      const c = tracks.cam[o]!;
      const [u, v] = projectToPixel(cameras[c]!, X[3 * t]!, X[3 * t + 1]!, X[3 * t + 2]!, R[c]);
      out[2 * o] = Number.isFinite(u) ? (u - tracks.u[o]!) / sigma : 1e6;
      out[2 * o + 1] = Number.isFinite(v) ? (v - tracks.v[o]!) / sigma : 1e6;
    }
  }
}

/** Huber weights of the observations around a robust scale; gross outliers get 0. */
function robustWeights(res: Float64Array, n: number): Float64Array<ArrayBuffer> {
  const norms = new Float64Array(n);
  for (let o = 0; o < n; o++) norms[o] = Math.hypot(res[2 * o]!, res[2 * o + 1]!);
  // The whitened residuals' scale: no smaller than the stated pixel sigma (1 after whitening).
  const scale = Math.max(1, 1.4826 * median(Array.from(norms)) / Math.SQRT2);
  return norms.map((e) => (e > OUTLIER_K * scale * Math.SQRT2 ? 0 : e <= HUBER_K * scale ? 1 : (HUBER_K * scale) / e));
}

function cost(res: Float64Array, w: Float64Array, cameras: Camera[], priors: PosePrior[], focals: Focals, f: Float64Array): number {
  let s = 0;
  for (let o = 0; o < w.length; o++) s += w[o]! * (res[2 * o]! ** 2 + res[2 * o + 1]! ** 2);
  cameras.forEach((c, k) => { for (const r of priorResiduals(poseOf(c), priors[k]!)) s += r * r; });
  f.forEach((v, g) => { s += ((v - focals.prior[g]!) / focals.sigma[g]!) ** 2; });
  return s;
}

/** Finite-difference steps of the pose (m, m, m, rad, rad, rad) and of a point (m). */
const STEP_POSE = [1e-3, 1e-3, 1e-3, 1e-6, 1e-6, 1e-6];

/**
 * Normal equations of the reprojection terms, per photo (U: 7×7 over pose and focal, g: 7), per point
 * (V: 3×3, gp: 3) and per observation (W: 7×3), from forward-difference Jacobians (the focal's is
 * exact). g = −Jᵀr. The focal rows are zero when the focal is fixed.
 */
function normalEquations(tracks: Tracks, cameras: Camera[], X: Points, sigma: number, res: Float64Array, w: Float64Array, focalFree: boolean, k1Free: boolean) {
  const nc = cameras.length, nt = tracks.start.length - 1, no = tracks.cam.length;
  const U = new Float64Array(nc * EXT * EXT), g = new Float64Array(nc * EXT);
  const V = new Float64Array(nt * 9), gp = new Float64Array(nt * 3), W = new Float64Array(no * EXT * 3);
  const ne = { U, g, V, gp, W };
  const R = cameras.map((c) => rotation(c.yaw, c.pitch, c.roll));
  const lin: Linearisation = { cameras, R, Rd: steppedRotations(cameras), sigma, focalFree, k1Free, Jc: new Float64Array(2 * EXT), Jp: new Float64Array(6) };
  for (let t = 0; t < nt; t++) {
    const x = X[3 * t]!, y = X[3 * t + 1]!, z = X[3 * t + 2]!;
    for (let o = tracks.start[t]!; o < tracks.start[t + 1]!; o++) {
      const wo = w[o]!;
      if (wo === 0) continue;
      const k = tracks.cam[o]!;
      if (!observationJacobians(lin, k, x, y, z)) continue;
      addObservation(ne, lin.Jc, lin.Jp, res, wo, k, t, o);
    }
  }
  return ne;
}

/** Rotations with each angle stepped, per photo, for the angle derivatives. */
function steppedRotations(cameras: Camera[]): Float64Array[][] {
  return cameras.map((c) => [3, 4, 5].map((d) => {
    const h = STEP_POSE[d]!;
    return rotation(c.yaw + (d === 3 ? h : 0), c.pitch + (d === 4 ? h : 0), c.roll + (d === 5 ? h : 0));
  }));
}

/**
 * What an observation's Jacobians are taken with, and where they are written (reused buffers: one
 * observation at a time). Jc: 2 × EXT over pose, focal and k1; Jp: 2 × 3 over the point.
 */
interface Linearisation {
  cameras: Camera[];
  R: Float64Array[];
  Rd: Float64Array[][];
  sigma: number;
  focalFree: boolean;
  k1Free: boolean;
  Jc: Float64Array;
  Jp: Float64Array;
}

/** Writes the Jacobians of point (x, y, z) seen by photo k into lin.Jc and lin.Jp; false when it does not project. */
function observationJacobians(lin: Linearisation, k: number, x: number, y: number, z: number): boolean {
  const { Jc, Jp, sigma } = lin, cam = lin.cameras[k]!, R = lin.R[k];
  const [u0, v0] = projectToPixel(cam, x, y, z, R);
  if (!Number.isFinite(u0)) return false;
  // Point derivatives; the camera centre's are their negatives.
  for (let d = 0; d < 3; d++) {
    const h = STEP_POSE[d]!;
    const [u, v] = projectToPixel(cam, x + (d === 0 ? h : 0), y + (d === 1 ? h : 0), z + (d === 2 ? h : 0), R);
    Jp[2 * d] = (u - u0) / h / sigma; Jp[2 * d + 1] = (v - v0) / h / sigma;
    Jc[2 * d] = -Jp[2 * d]!; Jc[2 * d + 1] = -Jp[2 * d + 1]!;
  }
  for (let d = 3; d < 6; d++) {
    const h = STEP_POSE[d]!;
    const [u, v] = projectToPixel(cam, x, y, z, lin.Rd[k]![d - 3]);
    Jc[2 * d] = (u - u0) / h / sigma; Jc[2 * d + 1] = (v - v0) / h / sigma;
  }
  // u = cx + f·x·d: the focal scales the offset from the principal point.
  Jc[12] = lin.focalFree ? (u0 - cam.cx) / cam.f / sigma : 0;
  Jc[13] = lin.focalFree ? (v0 - cam.cy) / cam.f / sigma : 0;
  if (lin.k1Free) {
    const [u, v] = projectToPixel({ ...cam, k1: cam.k1 + STEP_K1 }, x, y, z, R);
    Jc[14] = (u - u0) / STEP_K1 / sigma; Jc[15] = (v - v0) / STEP_K1 / sigma;
  } else {
    Jc[14] = 0; Jc[15] = 0;
  }
  return true;
}

/** Adds observation o (photo k, track t, weight wo) to the photo's U and g, the point's V and gp, and sets its W. */
function addObservation(ne: NormalEquations, Jc: Float64Array, Jp: Float64Array, res: Float64Array, wo: number, k: number, t: number, o: number): void {
  const { U, g, V, gp, W } = ne;
  const ru = res[2 * o]!, rv = res[2 * o + 1]!;
  for (let a = 0; a < EXT; a++) {
    const ja = Jc[2 * a]!, jb = Jc[2 * a + 1]!;
    g[k * EXT + a] = g[k * EXT + a]! - wo * (ja * ru + jb * rv);
    for (let b = 0; b < EXT; b++) U[(k * EXT + a) * EXT + b] = U[(k * EXT + a) * EXT + b]! + wo * (ja * Jc[2 * b]! + jb * Jc[2 * b + 1]!);
    for (let b = 0; b < 3; b++) W[(o * EXT + a) * 3 + b] = wo * (ja * Jp[2 * b]! + jb * Jp[2 * b + 1]!);
  }
  for (let a = 0; a < 3; a++) {
    const ja = Jp[2 * a]!, jb = Jp[2 * a + 1]!;
    gp[t * 3 + a] = gp[t * 3 + a]! - wo * (ja * ru + jb * rv);
    for (let b = 0; b < 3; b++) V[t * 9 + a * 3 + b] = V[t * 9 + a * 3 + b]! + wo * (ja * Jp[2 * b]! + jb * Jp[2 * b + 1]!);
  }
}

/** Inverse of a symmetric 3×3 block at `off` (adjugate); zeros when singular. */
function inverse3(M: Float64Array, off: number): Float64Array {
  const a = M[off]!, b = M[off + 1]!, c = M[off + 2]!, d = M[off + 3]!, e = M[off + 4]!, f = M[off + 5]!, g = M[off + 6]!, h = M[off + 7]!, i = M[off + 8]!;
  const A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g;
  const det = a * A + b * B + c * C, inv = new Float64Array(9);
  if (!(Math.abs(det) > 1e-300)) return inv;
  inv[0] = A / det; inv[1] = -(b * i - c * h) / det; inv[2] = (b * f - c * e) / det;
  inv[3] = B / det; inv[4] = (a * i - c * g) / det; inv[5] = -(a * f - c * d) / det;
  inv[6] = C / det; inv[7] = -(a * h - b * g) / det; inv[8] = (a * e - b * d) / det;
  return inv;
}

/** S -= W_o V⁻¹ W_o2ᵀ over the two observations' parameters in the reduced system (WV = W_o V⁻¹, 8×3). */
function subtractBlock(S: Skyline, index: Int32Array, W: Float64Array, WV: Float64Array, o: number, o2: number): void {
  const w2 = o2 * EXT * 3;
  for (let r = 0; r < EXT; r++) {
    const i = index[o * EXT + r]!;
    if (i < 0) continue;
    const f = S.first[i]!, row = S.start[i]! - f, x = WV[r * 3]!, y = WV[r * 3 + 1]!, z = WV[r * 3 + 2]!;
    for (let c = 0; c < EXT; c++) {
      const j = index[o2 * EXT + c]!;
      if (j < 0 || j > i) continue;
      if (j < f) throw new RangeError(`entry (${i}, ${j}) lies outside the envelope`);
      S.values[row + j] = S.values[row + j]! - (x * W[w2 + c * 3]! + y * W[w2 + c * 3 + 1]! + z * W[w2 + c * 3 + 2]!);
    }
  }
}

/**
 * One damped step: the Schur complement of the point blocks, the photos' step (poses, then the shared
 * focals) by Cholesky, then each point's step. Returns null when the reduced system is not positive
 * definite.
 */
function dampedStep(tracks: Tracks, nc: number, layout: ReducedLayout, ne: NormalEquations, priorU: Float64Array, priorG: Float64Array, focals: Focals, lambda: number) {
  // The elimination and the points' steps work in the system's rows; the photos' step goes back by unknown.
  const { S, index } = layout;
  S.values.fill(0);
  const b = cameraBlocks(S, nc, ne, priorU, priorG, focals, lambda);
  const Vinv = eliminatePoints(S, b, tracks, ne, index, lambda);
  let dcRows: Float64Array;
  try {
    factorSkyline(S);
    dcRows = substituteRows(S, b);
  } catch {
    return null;
  }
  return { dc: Float64Array.from(S.row, (r) => dcRows[r]!), dp: pointSteps(tracks, ne, index, Vinv, dcRows) };
}

/** The reduced system's shape, the same in every step: its envelope (refilled each step) and each observation's rows. */
interface ReducedLayout {
  S: Skyline;
  index: Int32Array;
}

function reducedLayout(tracks: Tracks, nc: number, focals: Focals): ReducedLayout {
  const S = reducedSystem(tracks, nc, focals);
  return { S, index: reducedIndex(tracks, nc, focals, S.row) };
}

type NormalEquations = ReturnType<typeof normalEquations>;

/** Index in the reduced system of parameter a (0..6, 6 = focal) of photo k; -1 for a fixed focal. */
const reducedPlace = (nc: number, focals: Focals) => (k: number, a: number) =>
  a < POSE ? k * POSE + a : focals.group[k]! < 0 ? -1 : nc * POSE + INTR * focals.group[k]! + a - POSE;

/**
 * Each observation's parameters' rows in the reduced system (poses, then the shared focals; -1 for a
 * fixed focal), looked up once: the elimination meets every pair of a track's observations.
 */
function reducedIndex(tracks: Tracks, nc: number, focals: Focals, row: Int32Array): Int32Array {
  const place = reducedPlace(nc, focals);
  const index = new Int32Array(tracks.cam.length * EXT);
  for (let o = 0; o < tracks.cam.length; o++) {
    for (let a = 0; a < EXT; a++) {
      const k = place(tracks.cam[o]!, a);
      index[o * EXT + a] = k < 0 ? -1 : row[k]!;
    }
  }
  return index;
}

/**
 * The reduced system, empty: a photo's pose is coupled with every photo it shares a track with (the
 * points' elimination couples them), the shared focals with every photo.
 */
function reducedSystem(tracks: Tracks, nc: number, focals: Focals): Skyline {
  const groups = Array.from({ length: tracks.start.length - 1 }, (_, t) => tracks.cam.subarray(tracks.start[t]!, tracks.start[t + 1]!));
  return blockSkyline(nc, POSE, groups, focals.prior.length);
}

/** Adds the photo blocks (U and g) and the priors, damped by `lambda`, to S; returns g (by row) before the points are eliminated. */
function cameraBlocks(S: Skyline, nc: number, ne: NormalEquations, priorU: Float64Array, priorG: Float64Array, focals: Focals, lambda: number): Float64Array {
  const place = reducedPlace(nc, focals), b = new Float64Array(S.m);
  for (let k = 0; k < nc; k++) {
    for (let a = 0; a < EXT; a++) {
      const i = place(k, a);
      if (i < 0) continue;
      const ri = S.row[i]!;
      b[ri] = b[ri]! + ne.g[k * EXT + a]!;
      for (let c = 0; c < EXT; c++) {
        const j = place(k, c), rj = j < 0 ? -1 : S.row[j]!;
        if (rj >= 0 && rj <= ri) S.values[at(S, ri, rj)] = S.values[at(S, ri, rj)]! + ne.U[(k * EXT + a) * EXT + c]!;
      }
    }
  }
  for (let i = 0; i < S.m; i++) {
    const ri = S.row[i]!, d = at(S, ri, ri);
    b[ri] = b[ri]! + priorG[i]!;
    S.values[d] = (S.values[d]! + priorU[i]!) * (1 + lambda) + 1e-9;
  }
  return b;
}

/** Subtracts each track's point block from (S, b) (the Schur complement); returns the damped point blocks' inverses. */
function eliminatePoints(S: Skyline, b: Float64Array, tracks: Tracks, ne: NormalEquations, index: Int32Array, lambda: number): Float64Array[] {
  const Vinv: Float64Array[] = [];
  const WV = new Float64Array(EXT * 3);
  const W = (o: number, r: number, c: number) => ne.W[(o * EXT + r) * 3 + c]!;
  for (let t = 0; t < tracks.start.length - 1; t++) {
    const Vt = ne.V.slice(t * 9, t * 9 + 9);
    for (let a = 0; a < 3; a++) Vt[a * 4] = Vt[a * 4]! * (1 + lambda) + 1e-9;
    const vi = inverse3(Vt, 0);
    Vinv.push(vi);
    const a0 = tracks.start[t]!, a1 = tracks.start[t + 1]!;
    const gpt = [0, 1, 2].map((k) => ne.gp[t * 3 + k]!);
    const viG = [0, 1, 2].map((r) => vi[r * 3]! * gpt[0]! + vi[r * 3 + 1]! * gpt[1]! + vi[r * 3 + 2]! * gpt[2]!);
    for (let o = a0; o < a1; o++) {
      // WV = W_o · V⁻¹ (8×3)
      for (let r = 0; r < EXT; r++) {
        const i = index[o * EXT + r]!;
        if (i < 0) continue;
        for (let c = 0; c < 3; c++) WV[r * 3 + c] = W(o, r, 0) * vi[c]! + W(o, r, 1) * vi[3 + c]! + W(o, r, 2) * vi[6 + c]!;
        b[i] = b[i]! - (W(o, r, 0) * viG[0]! + W(o, r, 1) * viG[1]! + W(o, r, 2) * viG[2]!);
      }
      for (let o2 = a0; o2 < a1; o2++) subtractBlock(S, index, ne.W, WV, o, o2);
    }
  }
  return Vinv;
}

/** Each track point's step from the photos' step `dc` (back-substitution through its block's inverse). */
function pointSteps(tracks: Tracks, ne: NormalEquations, index: Int32Array, Vinv: Float64Array[], dc: Float64Array): Float64Array {
  const nt = tracks.start.length - 1;
  const W = (o: number, r: number, c: number) => ne.W[(o * EXT + r) * 3 + c]!;
  const dp = new Float64Array(nt * 3);
  for (let t = 0; t < nt; t++) {
    const rhs = [0, 1, 2].map((k) => ne.gp[t * 3 + k]!);
    for (let o = tracks.start[t]!; o < tracks.start[t + 1]!; o++) {
      for (let c = 0; c < 3; c++) {
        let s = 0;
        for (let r = 0; r < EXT; r++) {
          const i = index[o * EXT + r]!;
          if (i >= 0) s += W(o, r, c) * dc[i]!;
        }
        rhs[c] = rhs[c]! - s;
      }
    }
    const vi = Vinv[t]!;
    for (let r = 0; r < 3; r++) dp[t * 3 + r] = vi[r * 3]! * rhs[0]! + vi[r * 3 + 1]! * rhs[1]! + vi[r * 3 + 2]! * rhs[2]!;
  }
  return dp;
}

/**
 * Adjusts `cameras` and the tracks' `points` (from triangulateOnRelief) against the tracks' pixels and
 * each photo's `priors`. The pose always moves; the focal length too when `opts.focal` asks for it
 * and radial k1 (shared within a group); the principal point and k2 stay.
 */
export function bundleAdjust(cameras: Camera[], tracks: Tracks, points: Points, priors: PosePrior[], opts: BundleOptions): BundleResult {
  const no = tracks.cam.length, sigma = opts.obsSigmaPx;
  const focals = focalsOf(cameras, opts);
  let state: BundleState = { cams: cameras.map((c) => ({ ...c })), f: Float64Array.from(focals.prior), X: Float64Array.from(points) };
  const res = new Float64Array(2 * no);
  const layout = reducedLayout(tracks, cameras.length, focals);
  let lambda = 1e-3, iterations = 0;
  let converged = false;
  while (!converged && iterations < (opts.maxIterations ?? 20)) {
    iterations++;
    reprojection(tracks, state.cams, state.X, sigma, res);
    const w = robustWeights(res, no);
    const before = cost(res, w, state.cams, priors, focals, state.f);
    const ne = normalEquations(tracks, state.cams, state.X, sigma, res, w, focals.prior.length > 0, focals.k1Free);
    const { priorU, priorG } = priorTerms(state, priors, focals);
    let improved = false;
    for (let attempt = 0; attempt < 8 && !improved; attempt++) {
      const step = dampedStep(tracks, state.cams.length, layout, ne, priorU, priorG, focals, lambda);
      const next = step && stepped(state, step, focals);
      const after = next ? costAt(tracks, next, w, priors, focals, sigma) : Infinity;
      if (next && after < before) {
        improved = true;
        state = next;
        lambda = Math.max(1e-7, lambda / 3);
        converged = (before - after) / before < CONVERGED_GAIN;
      }
      if (!improved) lambda *= 8;
    }
    if (!improved) converged = true;
  }
  return bundleResult(tracks, state, sigma, iterations);
}

/** What the adjustment moves: the cameras, the shared intrinsics of the groups (f, k1 per group) and the track points. */
interface BundleState {
  cams: Camera[];
  f: Float64Array;
  X: Float64Array;
}

/** The priors' terms of the normal equations: diagonal, each one parameter's own residual (poses, then the shared focals). */
function priorTerms({ cams, f }: BundleState, priors: PosePrior[], focals: Focals) {
  const np = cams.length * POSE, nf = focals.prior.length;
  const priorU = new Float64Array(np + nf), priorG = new Float64Array(np + nf);
  cams.forEach((c, k) => {
    const r = priorResiduals(poseOf(c), priors[k]!), s = priorSigmas(priors[k]!);
    for (let a = 0; a < 6; a++) { priorU[k * 6 + a] = 1 / s[a]! ** 2; priorG[k * 6 + a] = -r[a]! / s[a]!; }
  });
  f.forEach((v, g) => {
    const s = focals.sigma[g]!;
    priorU[np + g] = 1 / s ** 2; priorG[np + g] = -(v - focals.prior[g]!) / s ** 2;
  });
  return { priorU, priorG };
}

/** The state moved by a step (dc: poses then shared intrinsics; dp: the points). */
function stepped({ cams, f, X }: BundleState, step: { dc: Float64Array; dp: Float64Array }, focals: Focals): BundleState {
  const np = cams.length * POSE;
  const fn = f.map((v, g) => v + step.dc[np + g]!);
  const next = cams.map((c, k) => {
    const moved = withPose(c, poseOf(c).map((v, a) => v + step.dc[k * 6 + a]!));
    const g = focals.group[k]!;
    return g >= 0 ? { ...moved, f: fn[INTR * g]!, k1: fn[INTR * g + 1]! } : moved;
  });
  return { cams: next, f: fn, X: X.map((v, k) => v + step.dp[k]!) };
}

/** The cost of a state under the weights of the iteration that made it. */
function costAt(tracks: Tracks, state: BundleState, w: Float64Array, priors: PosePrior[], focals: Focals, sigma: number): number {
  const res = new Float64Array(2 * tracks.cam.length);
  reprojection(tracks, state.cams, state.X, sigma, res);
  return cost(res, w, state.cams, priors, focals, state.f);
}

/** The adjusted cameras and points, which observations are inliers, and their RMS reprojection error (pixels). */
function bundleResult(tracks: Tracks, { cams, X }: BundleState, sigma: number, iterations: number): BundleResult {
  const no = tracks.cam.length, res = new Float64Array(2 * no);
  reprojection(tracks, cams, X, sigma, res);
  const w = robustWeights(res, no);
  let s = 0, n = 0;
  for (let o = 0; o < no; o++) if (w[o]! > 0) { s += res[2 * o]! ** 2 + res[2 * o + 1]! ** 2; n++; }
  return { cameras: cams, points: X, inlier: Uint8Array.from(w, (v) => (v > 0 ? 1 : 0)), rmsPx: sigma * Math.sqrt(s / Math.max(1, n)), iterations };
}
