// One global least-squares adjustment of all photo placements: matched points must land on the same
// ground spot, GPS positions and GPS-derived scale/heading act as soft priors. The similarity model is
// linear in (a, b, tx, ty), so each iteration is one linear solve; a few reweighting passes (Huber)
// damp the matches RANSAC let through on relief (trees, roofs). Every match counts alike: the seams
// run through the big overlaps of neighbouring photos, which a per-pair cap would under-weight. Given
// the relief (relief.ts), a match's offsets from each photo's centre shrink by (1 - h/H), which keeps
// the problem linear.
import type { Placement } from './frame';
import type { PairMatch } from './features';
import { median } from './features';
import { type Skyline, addLower, at, blockSkyline, factorSkyline, solveSkyline, substituteSkyline } from './cholesky';

export interface AdjustOptions {
  /** GPS horizontal standard deviation (m). */
  gpsSigmaM: number;
  /** Standard deviation of a match on the ground (m): about one reduced-copy pixel. */
  matchSigmaM: number;
  /** Relative standard deviation of the GPS-derived scale and heading. */
  scaleSigma: number;
}

export interface Adjustment {
  placements: Placement[];
  /** Ground distance (m) between matched points after adjustment, one per used match. */
  residualsM: Float64Array;
}

/** A pair's matches as the adjustment reads them: the photos, the points and each point's relief factors. */
interface MatchObservations {
  i: number;
  j: number;
  pts: Float64Array;
  relief: Float64Array;
}

/**
 * `centres[i]` is photo i's image centre (cx, cy) in pixels; `priors` its GPS placement.
 * `reliefFactors[k]` holds, for each match of `pairs[k]`, the factors (1 - h/H) of photos i and j at
 * the match's height h (none: flat ground).
 */
export function adjustPlacements(
  priors: Placement[], centres: [number, number][], pairs: PairMatch[], opts: AdjustOptions, reliefFactors?: Float64Array[],
): Adjustment {
  const obs: MatchObservations[] = pairs.map((p, k) => ({ i: p.i, j: p.j, pts: p.pts, relief: reliefFactors?.[k] ?? new Float64Array(p.pts.length / 2).fill(1) }));
  let weights: Float64Array[] = obs.map((o) => new Float64Array(o.pts.length / 4).fill(1));
  let x: Float64Array = new Float64Array(priors.flatMap((p) => [p.a, p.b, p.tx, p.ty]));
  let residuals = new Float64Array(0);
  // The system's shape is the pairs': laid out once, filled again at each reweighting.
  const A = blockSkyline(priors.length, 4, obs.map((o) => [o.i, o.j]));
  for (let iter = 0; iter < 4; iter++) {
    x = solveWithMeanScale(normalEquations(A, priors, centres, obs, weights, opts));
    const perObs = obs.map((o) => matchResiduals(o, centres, x));
    residuals = Float64Array.from(perObs.flatMap((res) => Array.from(res)));
    weights = huberWeights(perObs, residuals, opts.matchSigmaM);
  }
  const placements = priors.map((_, i) => ({ a: x[4 * i]!, b: x[4 * i + 1]!, tx: x[4 * i + 2]!, ty: x[4 * i + 3]! }));
  return { placements, residualsM: residuals };
}

/**
 * The normal equations of the priors and the weighted matches, written into A (emptied first) and r,
 * unknowns (a, b, tx, ty) per photo, and the mean-scale constraint apart (wFix (cᵀx - total)²): it couples every photo's scale
 * with every other's, which would fill A's envelope (solveWithMeanScale).
 */
function normalEquations(A: Skyline, priors: Placement[], centres: [number, number][], obs: MatchObservations[], weights: Float64Array[], opts: AdjustOptions): PlacementSystem {
  A.values.fill(0);
  const r = new Float64Array(A.m);
  const add = (idx: number[], coef: number[], rhs: number, w: number) => {
    for (let u = 0; u < idx.length; u++) {
      r[idx[u]!] = r[idx[u]!]! + w * coef[u]! * rhs;
      for (let v = 0; v < idx.length; v++) if (idx[v]! <= idx[u]!) addLower(A, idx[u]!, idx[v]!, w * coef[u]! * coef[v]!);
    }
  };
  priors.forEach((p, i) => {
    const s = Math.hypot(p.a, p.b);
    const wAb = 1 / (opts.scaleSigma * s) ** 2;
    const wT = 1 / opts.gpsSigmaM ** 2;
    add([4 * i], [1], p.a, wAb);
    add([4 * i + 1], [1], p.b, wAb);
    add([4 * i + 2], [1], p.tx, wT);
    add([4 * i + 3], [1], p.ty, wT);
  });
  const wm = 1 / opts.matchSigmaM ** 2;
  obs.forEach((o, k) => {
    const [cxi, cyi] = centres[o.i]!;
    const [cxj, cyj] = centres[o.j]!;
    const I = 4 * o.i, J = 4 * o.j;
    for (let q = 0; q < o.pts.length / 4; q++) {
      const w = wm * weights[k]![q]!;
      if (w === 0) continue;
      const [ki, kj] = [o.relief[2 * q]!, o.relief[2 * q + 1]!];
      const x1 = ki * (o.pts[4 * q]! - cxi), y1 = ki * (cyi - o.pts[4 * q + 1]!);
      const x2 = kj * (o.pts[4 * q + 2]! - cxj), y2 = kj * (cyj - o.pts[4 * q + 3]!);
      add([I, I + 1, I + 2, J, J + 1, J + 2], [x1, -y1, 1, -x2, y2, -1], 0, w);
      add([I, I + 1, I + 3, J, J + 1, J + 3], [y1, x1, 1, -y2, -x2, -1], 0, w);
    }
  });
  return { A, r, ...meanScale(priors, A) };
}

/** The placements' system: A x = r, with wFix (cᵀx - total)² added (the mean scale). */
interface PlacementSystem {
  A: Skyline;
  r: Float64Array;
  c: Float64Array;
  total: number;
  wFix: number;
}

/**
 * The mean scale stays that of the GPS/optics priors (to first order; heading stays free): otherwise
 * shrinking every photo would "explain" parallax on trees and roofs better than the true scale does.
 */
function meanScale(priors: Placement[], A: Skyline): Pick<PlacementSystem, 'c' | 'total' | 'wFix'> {
  let maxDiagonal = 0;
  for (let i = 0; i < A.m; i++) maxDiagonal = Math.max(maxDiagonal, A.values[at(A, i, i)]!);
  const c = new Float64Array(A.m);
  let total = 0;
  priors.forEach((p, i) => {
    const s0 = Math.hypot(p.a, p.b);
    c[4 * i] = p.a / s0;
    c[4 * i + 1] = p.b / s0;
    total += s0;
  });
  return { c, total, wFix: 1e6 * maxDiagonal };
}

/**
 * x of (A + wFix c cᵀ) x = r + wFix·total·c by Sherman–Morrison: A factored once, solved for r and
 * for c; written so that the large wFix never meets a difference of large numbers.
 */
function solveWithMeanScale({ A, r, c, total, wFix }: PlacementSystem): Float64Array {
  factorSkyline(A);
  const y = substituteSkyline(A, r), z = substituteSkyline(A, c);
  let cy = 0, cz = 0;
  for (let k = 0; k < A.m; k++) {
    cy += c[k]! * y[k]!;
    cz += c[k]! * z[k]!;
  }
  const f = (wFix * (total - cy)) / (1 + wFix * cz);
  return y.map((v, k) => v + f * z[k]!);
}

/** Ground distance (m) between each match's two points as the placements `x` put them. */
function matchResiduals(o: MatchObservations, centres: [number, number][], x: Float64Array): Float64Array {
  const [cxi, cyi] = centres[o.i]!;
  const [cxj, cyj] = centres[o.j]!;
  const [a1, b1, tx1, ty1] = x.subarray(4 * o.i, 4 * o.i + 4);
  const [a2, b2, tx2, ty2] = x.subarray(4 * o.j, 4 * o.j + 4);
  const res = new Float64Array(o.pts.length / 4);
  for (let q = 0; q < res.length; q++) {
    const [ki, kj] = [o.relief[2 * q]!, o.relief[2 * q + 1]!];
    const x1 = ki * (o.pts[4 * q]! - cxi), y1 = ki * (cyi - o.pts[4 * q + 1]!);
    const x2 = kj * (o.pts[4 * q + 2]! - cxj), y2 = kj * (cyj - o.pts[4 * q + 3]!);
    const dx = a1! * x1 - b1! * y1 + tx1! - (a2! * x2 - b2! * y2 + tx2!);
    const dy = b1! * x1 + a1! * y1 + ty1! - (b2! * x2 + a2! * y2 + ty2!);
    res[q] = Math.hypot(dx, dy);
  }
  return res;
}

/** Huber weights around a robust scale of all residuals; far outliers (relief, moving objects) drop out entirely. */
function huberWeights(perObs: Float64Array[], all: Float64Array, matchSigmaM: number): Float64Array[] {
  const scale = Math.max(median(all) * 1.5, matchSigmaM);
  return perObs.map((res) => res.map((e) => (e > 6 * scale ? 0 : e <= scale ? 1 : scale / e)));
}

/**
 * Per-photo exposure gains (per channel, multiplicative) that make overlapping photos agree, with a
 * weak pull towards 1 so the survey keeps its overall brightness.
 */
export function exposureGains(n: number, channels: number, pairs: PairMatch[]): number[][] {
  const gains: number[][] = [];
  for (let c = 0; c < channels; c++) {
    // Unknown g_i = log gain; each pair says g_i - g_j = -logRatio (so that g_i·I_i = g_j·I_j).
    const N = blockSkyline(n, 1, pairs.map((p) => [p.i, p.j]));
    const r = new Float64Array(n);
    const inc = (a: Float64Array, k: number, v: number) => (a[k] = a[k]! + v);
    for (let i = 0; i < n; i++) addLower(N, i, i, 0.01);
    for (const p of pairs) {
      const w = Math.min(1, p.pts.length / 4 / 50);
      const lr = p.logRatio[c] ?? 0;
      addLower(N, p.i, p.i, w); addLower(N, p.j, p.j, w);
      addLower(N, Math.max(p.i, p.j), Math.min(p.i, p.j), -w);
      inc(r, p.i, -w * lr); inc(r, p.j, w * lr);
    }
    const g = solveSkyline(N, r);
    const mean = g.reduce((s, v) => s + v, 0) / n;
    gains.push(Array.from(g, (v) => Math.exp(v - mean)));
  }
  return Array.from({ length: n }, (_, i) => gains.map((g) => g[i]!));
}

/** Uncertainty of the optics-derived scale (take-off-relative height over uneven ground) and of the compass heading. */
export interface BlockPriorSigma {
  scale: number;
  headingRad: number;
}

/**
 * The similarity (complex factor z = s·e^{iθ} about the block's centroid, then a shift) that lays an
 * adjusted block on its GPS positions, as photogrammetry georeferences a reconstruction on its camera
 * positions. Matches fix the block's shape; its overall size and turn are the GPS track's, weighed
 * against the optics and compass (`optics`: the placements before any adjustment) by their
 * uncertainties, so that a short track of noisy fixes barely moves a well-known camera. `total` is
 * the block's resulting size and turn relative to the optics, as a complex factor [re, im].
 */
export function gpsBlockFit(
  adjusted: Placement[], optics: Placement[], gps: [number, number][], gpsSigmaM: number, prior: BlockPriorSigma,
): { apply: (p: Placement) => Placement; total: [number, number] } {
  const n = adjusted.length;
  const cE = adjusted.reduce((s, p) => s + p.tx, 0) / n, cN = adjusted.reduce((s, p) => s + p.ty, 0) / n;
  const gE = gps.reduce((s, g) => s + g[0], 0) / n, gN = gps.reduce((s, g) => s + g[1], 0) / n;
  // Least-squares z mapping adjusted centres onto GPS (complex: z = Σ g·conj(c) / Σ |c|²).
  let re = 0, im = 0, spread = 0;
  adjusted.forEach((p, i) => {
    const x = p.tx - cE, y = p.ty - cN, u = gps[i]![0] - gE, v = gps[i]![1] - gN;
    re += u * x + v * y;
    im += v * x - u * y;
    spread += x * x + y * y;
  });
  // The block's present size and turn relative to the optics and compass (mean of a/optics in complex terms).
  let cr = 0, ci = 0;
  adjusted.forEach((p, i) => {
    const o = optics[i]!, k = o.a * o.a + o.b * o.b;
    cr += (p.a * o.a + p.b * o.b) / k / n;
    ci += (p.b * o.a - p.a * o.b) / k / n;
  });
  const current = { logS: Math.log(Math.hypot(cr, ci)), theta: Math.atan2(ci, cr) };
  const fitted = spread > 0 && re !== 0 ? { logS: Math.log(Math.hypot(re, im) / spread), theta: Math.atan2(im, re) } : { logS: 0, theta: 0 };
  // What the GPS says the block's total size and turn are, and its weight against the priors (1/σ²).
  const wGps = spread / gpsSigmaM ** 2;
  const blend = (gpsTotal: number, sigma: number) => (gpsTotal * wGps) / (wGps + 1 / sigma ** 2);
  const total = { logS: blend(current.logS + fitted.logS, prior.scale), theta: blend(current.theta + fitted.theta, prior.headingRad) };
  const logS = total.logS - current.logS, theta = total.theta - current.theta;
  const zr = Math.exp(logS) * Math.cos(theta), zi = Math.exp(logS) * Math.sin(theta);
  return {
    apply: (p) => {
      const x = p.tx - cE, y = p.ty - cN;
      return { a: zr * p.a - zi * p.b, b: zi * p.a + zr * p.b, tx: gE + zr * x - zi * y, ty: gN + zi * x + zr * y };
    },
    total: [Math.exp(total.logS) * Math.cos(total.theta), Math.exp(total.logS) * Math.sin(total.theta)],
  };
}
