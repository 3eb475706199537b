// Measures an orthomosaic against a truth survey (truth-survey.ts): each checkpoint is found in the
// mosaic by normalised cross-correlation of the world's patch around it (north-up, at the mosaic's
// ground resolution) within ±5 m, coarse then fine, to a fraction of a pixel. The offsets give the
// RMSE, and their means over 50 m cells how much neighbouring parts of the mosaic disagree.
import { readFileSync } from 'node:fs';
import type { Mosaic } from '@/lib/drone/ortho';
import { similarity2d, type Checkpoint, type TruthSurvey } from './truth-survey';

/** Side of the areas whose mean offsets are compared with their neighbours' (m). */
export const CELL_M = 50;
/** Half the side of the patch matched around a checkpoint, and how far it is searched (m). */
const TEMPLATE_HALF_M = 6;
const SEARCH_M = 5;
/** Finest measuring pixel (m): finer mosaics are sampled at this, box-averaged. */
const MIN_MEASURE_GSD_M = 0.1;
/** Correlation below which a checkpoint counts as not found. */
const MIN_SCORE = 0.5;

/** Grey (mean of RGB) at UTM (e, n); NaN where nothing is drawn. */
export type GreyAt = (e: number, n: number) => number;

export interface CheckpointOffset extends Checkpoint {
  /** Where the checkpoint's ground appears in the mosaic, minus where it is (m). */
  dE: number;
  dN: number;
  score: number;
}

export interface TruthMeasurement {
  checkpoints: number;
  found: CheckpointOffset[];
  /** Horizontal RMSE of the found checkpoints' offsets (m). */
  rmseM: number;
  /** Mean offset of all found checkpoints (a shift of the whole mosaic) (m). */
  meanOffsetM: [number, number];
  /** 95th percentile of the distance between neighbouring 50 m cells' mean offsets (m), and the pairs it is over. */
  neighbourP95M: number;
  neighbourPairs: number;
  /** The same once the 2-D similarity that fits the offsets best is taken out: how far the mosaic bends, not how it sits (m). */
  bendP95M: number;
}

/** The mosaic's raw copy (bands + alpha, 8 bit) as a bilinear grey sampler. */
export function mosaicGrey(m: Pick<Mosaic, 'rawPath' | 'width' | 'height' | 'bands' | 'geoTransform'>): GreyAt {
  const raw = readFileSync(m.rawPath);
  const stride = m.bands.length + 1;
  const rgb = ['red', 'green', 'blue'].map((b) => m.bands.indexOf(b)).filter((k) => k >= 0);
  const chans = rgb.length ? rgb : [0];
  const { width: W, height: H } = m;
  const grey = new Float32Array(W * H);
  for (let i = 0; i < W * H; i++) {
    const o = i * stride;
    let s = 0;
    for (const c of chans) s += raw[o + c]!;
    grey[i] = raw[o + stride - 1] ? s / chans.length : NaN;
  }
  const [x0, gsd, , y0] = m.geoTransform;
  return (e, n) => {
    const fx = (e - x0) / gsd - 0.5, fy = (y0 - n) / gsd - 0.5;
    const c = Math.floor(fx), r = Math.floor(fy);
    if (c < 0 || r < 0 || c + 1 >= W || r + 1 >= H) return NaN;
    const ax = fx - c, ay = fy - r, i = r * W + c;
    return (grey[i]! * (1 - ax) + grey[i + 1]! * ax) * (1 - ay) + (grey[i + W]! * (1 - ax) + grey[i + W + 1]! * ax) * ay;
  };
}

/** A north-up patch of (2·half + 1)² pixels of `g` metres centred on (e, n), each the mean of sub x sub samples. */
function patch(at: GreyAt, e: number, n: number, g: number, half: number, sub: number): Float64Array {
  const side = 2 * half + 1;
  const out = new Float64Array(side * side);
  for (let i = 0; i < side; i++) for (let j = 0; j < side; j++) {
    let s = 0;
    for (let a = 0; a < sub; a++) for (let b = 0; b < sub; b++) {
      s += at(e + (j - half + (b + 0.5) / sub - 0.5) * g, n - (i - half + (a + 0.5) / sub - 0.5) * g);
    }
    out[i * side + j] = s / (sub * sub);
  }
  return out;
}

/**
 * Normalised cross-correlation of `template` (side t) over every shift of ±reach pixels in `area`
 * (side t + 2·reach); scores row-major over the (2·reach + 1)² shifts, -1 where the area has a hole.
 */
function correlate(template: Float64Array, area: Float64Array, t: number, reach: number): Float64Array {
  const n = t * t;
  const mean = template.reduce((s, v) => s + v, 0) / n;
  const tz = template.map((v) => v - mean);
  const tNorm = Math.sqrt(tz.reduce((s, v) => s + v * v, 0));
  const side = t + 2 * reach, shifts = 2 * reach + 1;
  const scores = new Float64Array(shifts * shifts).fill(-1);
  for (let dr = 0; dr < shifts; dr++) for (let dc = 0; dc < shifts; dc++) {
    let s = 0, ss = 0, st = 0;
    for (let i = 0; i < t; i++) {
      const row = (dr + i) * side + dc;
      for (let j = 0; j < t; j++) {
        const v = area[row + j]!;
        s += v;
        ss += v * v;
        st += v * tz[i * t + j]!;
      }
    }
    const varM = ss - (s * s) / n;
    if (Number.isFinite(st) && varM > 1e-9 && tNorm > 1e-9) scores[dr * shifts + dc] = st / Math.sqrt(varM) / tNorm;
  }
  return scores;
}

/** The best shift (column, row, score), with a parabola's sub-pixel refinement on each axis. */
function peak(scores: Float64Array, shifts: number): [number, number, number] {
  let best = 0;
  for (let k = 1; k < scores.length; k++) if (scores[k]! > scores[best]!) best = k;
  const r = Math.floor(best / shifts), c = best % shifts;
  const refine = (lo: number | undefined, mid: number, hi: number | undefined) => {
    if (lo === undefined || hi === undefined || lo < -0.5 || hi < -0.5) return 0;
    const d = lo - 2 * mid + hi;
    return d < 0 ? Math.max(-0.5, Math.min(0.5, (lo - hi) / (2 * d))) : 0;
  };
  const dc = c > 0 && c < shifts - 1 ? refine(scores[best - 1], scores[best]!, scores[best + 1]) : 0;
  const dr = r > 0 && r < shifts - 1 ? refine(scores[best - shifts], scores[best]!, scores[best + shifts]) : 0;
  return [c + dc, r + dr, scores[best]!];
}

/** Whether a located checkpoint was found: a clear correlation within the search. */
export const isFound = (f: CheckpointOffset) => f.score >= MIN_SCORE && Math.hypot(f.dE, f.dN) <= SEARCH_M;

/** Where the world's patch around `cp` lies in the mosaic, relative to `cp`: a search at twice the pixel, then one at the pixel. */
export function locateCheckpoint(world: GreyAt, mosaic: GreyAt, cp: Checkpoint, gsd: number): CheckpointOffset {
  const g = Math.max(gsd, MIN_MEASURE_GSD_M);
  let [e, n] = [cp.e, cp.n];
  let score = 0;
  for (const [step, reachM, sub] of [[2 * g, SEARCH_M, 2], [g, 3 * g, 2]] as const) {
    const half = Math.round(TEMPLATE_HALF_M / step), reach = Math.ceil(reachM / step);
    const template = patch(world, cp.e, cp.n, step, half, sub);
    const area = patch(mosaic, e, n, step, half + reach, sub);
    const [c, r, s] = peak(correlate(template, area, 2 * half + 1, reach), 2 * reach + 1);
    [e, n, score] = [e + (c - reach) * step, n - (r - reach) * step, s];
  }
  return { ...cp, dE: e - cp.e, dN: n - cp.n, score };
}

/** 95th percentile (nearest rank). */
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil(0.95 * xs.length) - 1)] ?? NaN;

/** Distances between the mean offsets of 50 m cells that share a side (cells from the interior's south-west corner). */
export function neighbourDifferences(found: CheckpointOffset[], origin: [number, number]): number[] {
  const cells = new Map<string, { dE: number; dN: number; k: number }>();
  for (const f of found) {
    const key = `${Math.floor((f.e - origin[0]) / CELL_M)},${Math.floor((f.n - origin[1]) / CELL_M)}`;
    const c = cells.get(key) ?? { dE: 0, dN: 0, k: 0 };
    cells.set(key, { dE: c.dE + f.dE, dN: c.dN + f.dN, k: c.k + 1 });
  }
  const out: number[] = [];
  for (const [key, a] of cells) {
    const [i, j] = key.split(',').map(Number) as [number, number];
    for (const other of [`${i + 1},${j}`, `${i},${j + 1}`]) {
      const b = cells.get(other);
      if (b) out.push(Math.hypot(a.dE / a.k - b.dE / b.k, a.dN / a.k - b.dN / b.k));
    }
  }
  return out;
}

/**
 * The offsets less the 2-D similarity (shift, turn, scale) that fits them best: what is left bends
 * the mosaic. A block placed by GPS alone turns and scales as a whole by the GPS noise's fit.
 */
export function withoutSimilarity(found: CheckpointOffset[]): CheckpointOffset[] {
  const at = found.map((o) => [o.e, o.n]), seen = found.map((o) => [o.e + o.dE, o.n + o.dN]);
  const { a, b, t } = similarity2d(at, seen);
  return found.map((o) => ({ ...o, dE: o.e + o.dE - (a * o.e - b * o.n + t[0]), dN: o.n + o.dN - (b * o.e + a * o.n + t[1]) }));
}

/** Neighbouring cells' p95 for the offsets a mosaic at the floor would show (`truth.floor.offsetsM`). */
export function floorNeighbourP95(truth: Pick<TruthSurvey, 'checkpoints' | 'floor' | 'interior'>): number {
  const atFloor = truth.checkpoints.map((c, k) => ({ ...c, dE: truth.floor.offsetsM[k]![0], dN: truth.floor.offsetsM[k]![1], score: 1 }));
  return p95(neighbourDifferences(atFloor, [truth.interior[0], truth.interior[1]]));
}

/** Every checkpoint of `truth` located in `mosaic`: RMSE and the neighbouring cells' disagreement. */
export function measureMosaic(truth: Pick<TruthSurvey, 'checkpoints' | 'greyAt' | 'interior'>, mosaic: Pick<Mosaic, 'rawPath' | 'width' | 'height' | 'bands' | 'geoTransform' | 'gsdM'>): TruthMeasurement {
  const grey = mosaicGrey(mosaic);
  const found = truth.checkpoints.map((cp) => locateCheckpoint(truth.greyAt, grey, cp, mosaic.gsdM)).filter(isFound);
  const rmseM = Math.sqrt(found.reduce((s, f) => s + f.dE ** 2 + f.dN ** 2, 0) / found.length);
  const origin: [number, number] = [truth.interior[0], truth.interior[1]];
  const diffs = neighbourDifferences(found, origin);
  return {
    checkpoints: truth.checkpoints.length, found, rmseM,
    meanOffsetM: [found.reduce((s, f) => s + f.dE, 0) / found.length, found.reduce((s, f) => s + f.dN, 0) / found.length],
    neighbourP95M: p95(diffs), neighbourPairs: diffs.length, bendP95M: p95(neighbourDifferences(withoutSimilarity(found), origin)),
  };
}
