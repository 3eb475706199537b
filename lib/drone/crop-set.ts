// The labelled set the crop classifier is evaluated on (bench/eval-crops.ts). No labelled drone
// surveys of these eight crops are available here, so fields are simulated from agronomic ranges:
// each crop's peak NDVI varies ±0.06 between fields, its season shifts ±0.6 months, within-field
// spread 0.03-0.08, weeds/gaps add a low-NDVI tail, and the texture is a real row pattern (spacing
// 0.45-0.9 m, random direction, variable contrast) or uniform canopy, measured by the same spectral
// code the pipeline uses. Conditions: peak (capture at the peak month), early (2 months before),
// late (1.5 months after), mixed (two crops half and half). The set measures the classifier against
// the spec's reference table under realistic noise, not against real fields.
import { CROP_REFERENCE, expectedNdvi, rowPatternOfTile, type ClassifyInput } from './classify';
import { CROPS, type Crop } from './crops';
import { HISTOGRAM_BINS } from './index-rows';

export type Condition = 'peak' | 'early' | 'late' | 'mixed';
export interface LabelledField {
  crop: Crop;
  condition: Condition;
  input: ClassifyInput;
}

export function seededRandom(seed: number) {
  let s = seed >>> 0;
  const uniform = () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
  const normal = () => Math.sqrt(-2 * Math.log(uniform() + 1e-12)) * Math.cos(2 * Math.PI * uniform());
  return { uniform, normal };
}

const TILE = 128;
const PIXEL_M = 0.05;

function texture(rows: boolean, rand: ReturnType<typeof seededRandom>): Float64Array {
  const t = new Float64Array(TILE * TILE);
  const spacing = 0.45 + 0.45 * rand.uniform();
  const ang = Math.PI * rand.uniform();
  const contrast = rows ? 8 + 30 * rand.uniform() : 0;
  for (let y = 0; y < TILE; y++) for (let x = 0; x < TILE; x++) {
    const d = (x * Math.cos(ang) + y * Math.sin(ang)) * PIXEL_M;
    t[y * TILE + x] = 120 + contrast * Math.cos((2 * Math.PI * d) / spacing) + 25 * rand.normal();
  }
  return t;
}

function histogramOf(values: number[]): number[] {
  const h = new Array<number>(HISTOGRAM_BINS).fill(0);
  for (const v of values) h[Math.max(0, Math.min(HISTOGRAM_BINS - 1, Math.floor(((v + 1) / 2) * HISTOGRAM_BINS)))]!++;
  return h;
}

function field(crop: Crop, condition: Condition, rand: ReturnType<typeof seededRandom>, other?: Crop): LabelledField {
  const ref = CROP_REFERENCE[crop];
  const offset = condition === 'early' ? -2 : condition === 'late' ? 1.5 : 0;
  const month = Math.round(ref.peakMonth + offset);
  const level = (c: Crop) => expectedNdvi(c, ref.peakMonth + offset + 0.6 * rand.normal()) + 0.06 * rand.normal();
  const centre = level(crop), centre2 = other ? level(other) : centre;
  const spread = 0.03 + 0.05 * rand.uniform();
  const values: number[] = [];
  for (let k = 0; k < 2000; k++) {
    const c = other && k % 2 ? centre2 : centre;
    values.push(rand.uniform() < 0.05 ? 0.1 + 0.2 * rand.uniform() : Math.max(-1, Math.min(1, c + spread * rand.normal())));
  }
  const mean = values.reduce((s, v) => s + v, 0) / values.length;
  const std = Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / values.length);
  const sorted = values.slice().sort((a, b) => a - b);
  const rows = other ? rand.uniform() < 0.5 : ref.rows;
  return {
    crop,
    condition,
    input: {
      histogram: histogramOf(values),
      stats: { mean, std, median: sorted[sorted.length >> 1]! },
      indexName: 'NDVI',
      captureMonth: ((month - 1 + 12) % 12) + 1,
      rowPattern: rowPatternOfTile(texture(rows, rand), TILE, PIXEL_M),
    },
  };
}

/** `perCrop` fields of each crop under each condition, reproducible from `seed`. */
export function labelledCropSet(perCrop: number, seed = 2026): LabelledField[] {
  const rand = seededRandom(seed);
  const out: LabelledField[] = [];
  for (const condition of ['peak', 'early', 'late', 'mixed'] as const) {
    for (const crop of CROPS) {
      for (let k = 0; k < perCrop; k++) {
        const other = condition === 'mixed' ? CROPS.filter((c) => c !== crop)[Math.floor(rand.uniform() * 7)] : undefined;
        out.push(field(crop, condition, rand, other));
      }
    }
  }
  return out;
}
