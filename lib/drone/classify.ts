// Crop classification from the three inputs the spec names: the index histogram against each crop's
// reference peak for the capture month (seasonality), and the row pattern of the field (rows vs
// uniform, from the directional spectrum of the mosaic). Scores become probabilities by a softmax
// whose temperature is fitted on the labelled set (bench/eval-crops.ts).
import type { IndexName, IndexStats } from './index';
import type { MosaicRaster } from './ortho';
import { open } from 'node:fs/promises';

import { CROPS, type Crop } from './crops';

/** Spec 2.6 reference table: peak NDVI, peak month (1-12), pattern. */
export const CROP_REFERENCE: Record<Crop, { peakNdvi: number; peakMonth: number; rows: boolean }> = {
  wheat: { peakNdvi: 0.75, peakMonth: 6, rows: false },
  corn: { peakNdvi: 0.85, peakMonth: 7, rows: true },
  sunflower: { peakNdvi: 0.65, peakMonth: 7, rows: true },
  soy: { peakNdvi: 0.55, peakMonth: 8, rows: true },
  rapeseed: { peakNdvi: 0.8, peakMonth: 5, rows: false },
  barley: { peakNdvi: 0.7, peakMonth: 6, rows: false },
  potato: { peakNdvi: 0.6, peakMonth: 7, rows: true },
  grass: { peakNdvi: 0.6, peakMonth: 6, rows: false },
};

/** Bare soil NDVI the season curve falls back to away from the peak. */
const SOIL_NDVI = 0.15;
/** Width (months) of the season curve around the peak. */
const SEASON_SIGMA_MONTHS = 1.5;
/** Spread of a field's mean NDVI around the curve (between fields and years). */
const NDVI_SIGMA = 0.07;
/** Softmax temperature from bench/eval-crops.ts (maximum likelihood on the labelled set). */
export const TEMPERATURE = 4;

export interface RowPattern {
  /** 0 = uniform texture, 1 = clear parallel rows. */
  rowScore: number;
  /** Row spacing (m) and the angle of the rows' normal from grid east, clockwise (0-180°). */
  spacingM: number | null;
  directionDeg: number | null;
}

export interface ClassifyInput {
  histogram: number[];
  stats: IndexStats;
  indexName: IndexName;
  /** 1-12 */
  captureMonth: number;
  rowPattern: RowPattern | null;
}

export interface Classification {
  crop_type: Crop;
  confidence: number;
  top_candidates: { crop: Crop; score: number }[];
}

/**
 * A guess too close to call: its score under twice what a blind pick among the crops would get, or
 * within 5 points of the next crop. The page and the report say so and ask for the crop to be
 * named, rather than show a near-guess as the answer.
 */
export function isUncertain(c: { top_candidates: ReadonlyArray<{ score: number }> }): boolean {
  const [first, second] = c.top_candidates;
  if (!first) return true;
  return first.score < 2 / c.top_candidates.length || (second !== undefined && first.score - second.score < 0.05);
}

/** NDVI a crop is expected to show in a month: soil level away from its season, its peak at the peak. */
export function expectedNdvi(crop: Crop, month: number): number {
  const ref = CROP_REFERENCE[crop];
  const dm = Math.min(Math.abs(month - ref.peakMonth), 12 - Math.abs(month - ref.peakMonth));
  return SOIL_NDVI + (ref.peakNdvi - SOIL_NDVI) * Math.exp(-0.5 * (dm / SEASON_SIGMA_MONTHS) ** 2);
}

/**
 * VARI reads lower than NDVI on the same canopy; a linear mapping (fitted on NAIP scenes where both
 * exist) puts it on the NDVI scale so the same reference table applies, with a wider spread.
 */
const variToNdvi = (v: number) => 0.3 + 1.4 * v;

/** Histogram-weighted upper part of the distribution: the crop canopy without headlands and gaps. */
function canopyLevel(histogram: number[]): number | null {
  const total = histogram.reduce((s, v) => s + v, 0);
  if (!total) return null;
  let acc = 0;
  for (let k = 0; k < histogram.length; k++) {
    acc += histogram[k]!;
    if (acc >= 0.6 * total) return -1 + ((k + 0.5) * 2) / histogram.length;
  }
  return null;
}

export function classifyCrop(input: ClassifyInput, temperature = TEMPERATURE): Classification {
  const toNdvi = input.indexName === 'NDVI' ? (v: number) => v : variToNdvi;
  const level = toNdvi(canopyLevel(input.histogram) ?? input.stats.median);
  const mean = toNdvi(input.stats.mean);
  const sigma = input.indexName === 'NDVI' ? NDVI_SIGMA : 1.6 * NDVI_SIGMA;
  const logLik = CROPS.map((crop) => {
    const exp = expectedNdvi(crop, input.captureMonth);
    let ll = -0.5 * ((level - exp) / sigma) ** 2 - 0.25 * ((mean - exp) / sigma) ** 2;
    if (input.rowPattern) {
      const p = 0.15 + 0.7 * input.rowPattern.rowScore;
      ll += Math.log(CROP_REFERENCE[crop].rows ? p : 1 - p);
    }
    return ll / temperature;
  });
  const max = Math.max(...logLik);
  const w = logLik.map((l) => Math.exp(l - max));
  const z = w.reduce((s, v) => s + v, 0);
  const top_candidates = CROPS.map((crop, k) => ({ crop, score: w[k]! / z })).sort((a, b) => b.score - a.score);
  return { crop_type: top_candidates[0]!.crop, confidence: top_candidates[0]!.score, top_candidates };
}

// ---- Row pattern -------------------------------------------------------------------------------

const FFT_SIZE = 256;
/** Rows are looked for at spacings of 0.3-1.2 m (cereal drills are finer and read as uniform). */
const ROW_SPACING_M: [number, number] = [0.3, 1.2];

function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) { [re[i], re[j]] = [re[j]!, re[i]!]; [im[i], im[j]] = [im[j]!, im[i]!]; }
  }
  for (let len = 2; len <= n; len <<= 1) {
    const ang = (-2 * Math.PI) / len;
    for (let i = 0; i < n; i += len) {
      for (let k = 0; k < len / 2; k++) {
        const wr = Math.cos(ang * k), wi = Math.sin(ang * k);
        const ar = re[i + k + len / 2]!, ai = im[i + k + len / 2]!;
        const xr = ar * wr - ai * wi, xi = ar * wi + ai * wr;
        re[i + k + len / 2] = re[i + k]! - xr; im[i + k + len / 2] = im[i + k]! - xi;
        re[i + k] = re[i + k]! + xr; im[i + k] = im[i + k]! + xi;
      }
    }
  }
}

/** 2-D power spectrum of a square tile (rows then columns), Hann-windowed, mean removed. */
export function powerSpectrum(tile: Float64Array, n: number): Float64Array {
  const mean = tile.reduce((s, v) => s + v, 0) / tile.length;
  const re = new Float64Array(n * n), im = new Float64Array(n * n);
  for (let y = 0; y < n; y++) for (let x = 0; x < n; x++) {
    const w = (0.5 - 0.5 * Math.cos((2 * Math.PI * x) / (n - 1))) * (0.5 - 0.5 * Math.cos((2 * Math.PI * y) / (n - 1)));
    re[y * n + x] = (tile[y * n + x]! - mean) * w;
  }
  const rr = new Float64Array(n), ri = new Float64Array(n);
  for (let y = 0; y < n; y++) {
    rr.set(re.subarray(y * n, y * n + n)); ri.set(im.subarray(y * n, y * n + n));
    fft(rr, ri);
    re.set(rr, y * n); im.set(ri, y * n);
  }
  for (let x = 0; x < n; x++) {
    for (let y = 0; y < n; y++) { rr[y] = re[y * n + x]!; ri[y] = im[y * n + x]!; }
    fft(rr, ri);
    for (let y = 0; y < n; y++) { re[y * n + x] = rr[y]!; im[y * n + x] = ri[y]!; }
  }
  return re.map((v, k) => v * v + im[k]! ** 2);
}

/**
 * Row pattern of one tile (grey values, `pixelM` metres per pixel): rows put the spectrum's energy in
 * a narrow peak at one orientation; uniform canopies spread it over all orientations.
 */
export function rowPatternOfTile(tile: Float64Array, n: number, pixelM: number): RowPattern {
  const p = powerSpectrum(tile, n);
  let best = 0, bestK: [number, number] = [0, 0], band = 0, bandCount = 0, total = 0;
  const nyquist = 0.5 / pixelM;
  for (let v = 0; v < n; v++) for (let u = 0; u < n; u++) {
    const fu = u < n / 2 ? u : u - n, fv = v < n / 2 ? v : v - n;
    const f = Math.hypot(fu, fv) / (n * pixelM); // cycles per metre
    if (u + v > 0) total += p[v * n + u]!;
    if (f < 1 / ROW_SPACING_M[1] || f > Math.min(1 / ROW_SPACING_M[0], 0.8 * nyquist)) continue;
    const e = p[v * n + u]!;
    band += e; bandCount++;
    if (e > best) { best = e; bestK = [fu, fv]; }
  }
  // Too little texture at row spacings (smooth or blurred canopy): uniform.
  if (!bandCount || band < 0.02 * total) return { rowScore: 0, spacingM: null, directionDeg: null };
  // Share of the band's energy in the peak and its mirror neighbourhood, against the share of a flat spectrum.
  const [pu, pv] = bestK;
  let peak = 0;
  for (let dv = -1; dv <= 1; dv++) for (let du = -1; du <= 1; du++) {
    for (const s of [1, -1]) {
      const u = (((s * pu + du) % n) + n) % n, v = (((s * pv + dv) % n) + n) % n;
      peak += p[v * n + u]!;
    }
  }
  const concentration = (peak / band) * (bandCount / 18);
  const rowScore = Math.max(0, Math.min(1, (Math.log10(concentration) - 0.7) / 1.0));
  const f = Math.hypot(pu, pv) / (n * pixelM);
  // Grid rows grow southwards, so the angle reads clockwise from east.
  const directionDeg = ((Math.atan2(pv, pu) * 180) / Math.PI + 360) % 180;
  return { rowScore, spacingM: 1 / f, directionDeg };
}

/**
 * Row pattern of a mosaic: tiles at ~5 cm resampled from the centre of the imaged area, the median
 * score of those fully imaged; null when the mosaic is too coarse to show rows.
 */
export async function measureRowPattern(mosaic: MosaicRaster): Promise<RowPattern | null> {
  const gsd = mosaic.geoTransform[1];
  // Rows 0.3 m apart need pixels of 0.15 m at most; a coarser mosaic cannot tell (null: unknown).
  if (gsd > 0.15) return null;
  const step = Math.max(1, Math.round(0.05 / gsd));
  const pixelM = gsd * step;
  const nb = mosaic.bands.length, stride = nb + 1;
  const grey = mosaic.bands.includes('nir') ? mosaic.bands.indexOf('nir') : Math.max(0, mosaic.bands.indexOf('green'));
  const span = FFT_SIZE * step;
  const results: RowPattern[] = [];
  const fh = await open(mosaic.rawPath, 'r');
  try {
    const rowBuf = Buffer.alloc(mosaic.width * stride);
    for (const [fx, fy] of [[0.5, 0.5], [0.3, 0.3], [0.7, 0.3], [0.3, 0.7], [0.7, 0.7]] as const) {
      const c0 = Math.round(fx * mosaic.width - span / 2), r0 = Math.round(fy * mosaic.height - span / 2);
      if (c0 < 0 || r0 < 0 || c0 + span > mosaic.width || r0 + span > mosaic.height) continue;
      const tile = new Float64Array(FFT_SIZE * FFT_SIZE);
      let complete = true;
      for (let y = 0; y < FFT_SIZE && complete; y++) {
        await fh.read(rowBuf, 0, rowBuf.length, (r0 + y * step) * mosaic.width * stride);
        for (let x = 0; x < FFT_SIZE; x++) {
          const o = (c0 + x * step) * stride;
          if (!rowBuf[o + nb]) { complete = false; break; }
          tile[y * FFT_SIZE + x] = rowBuf[o + grey]!;
        }
      }
      if (complete) results.push(rowPatternOfTile(tile, FFT_SIZE, pixelM));
    }
  } finally {
    await fh.close();
  }
  if (!results.length) return { rowScore: 0, spacingM: null, directionDeg: null };
  results.sort((a, b) => a.rowScore - b.rowScore);
  return results[results.length >> 1]!;
}
