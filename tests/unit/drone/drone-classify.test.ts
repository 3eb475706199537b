import { describe, expect, it } from 'vitest';
import { classifyCrop, expectedNdvi, isUncertain, rowPatternOfTile, type RowPattern } from '@/lib/drone/classify';
import { CROPS } from '@/lib/drone/crops';
import { userCrop } from '@/lib/scans/schemas';
import { scanCropUnsure } from '@/lib/scans/scans';
import { labelledCropSet, seededRandom } from '@/lib/drone/crop-set';

const N = 256;
const PX = 0.05;

function tile(kind: 'rows' | 'noise', spacingM = 0.75, angle = 0.6): Float64Array {
  const rand = seededRandom(5);
  const t = new Float64Array(N * N);
  for (let y = 0; y < N; y++) for (let x = 0; x < N; x++) {
    const d = (x * Math.cos(angle) + y * Math.sin(angle)) * PX;
    t[y * N + x] = 120 + (kind === 'rows' ? 25 * Math.cos((2 * Math.PI * d) / spacingM) : 0) + 25 * rand.normal();
  }
  return t;
}

const histAt = (ndvi: number, spread = 0.05) =>
  Array.from({ length: 64 }, (_, k) => Math.round(1000 * Math.exp(-0.5 * ((-1 + (k + 0.5) / 32 - ndvi) / spread) ** 2)));
const rows: RowPattern = { rowScore: 0.95, spacingM: 0.75, directionDeg: 30 };
const uniform: RowPattern = { rowScore: 0.02, spacingM: null, directionDeg: null };

describe('row pattern from the spectrum', () => {
  it('finds rows, their spacing and orientation, and calls noise uniform', () => {
    const r = rowPatternOfTile(tile('rows', 0.75, 0.6), N, PX);
    expect(r.rowScore).toBeGreaterThan(0.8);
    expect(r.spacingM!).toBeCloseTo(0.75, 1);
    expect(Math.abs(r.directionDeg! - (0.6 * 180) / Math.PI)).toBeLessThan(3);
    expect(rowPatternOfTile(tile('noise'), N, PX).rowScore).toBeLessThan(0.3);
    // A smooth canopy (no texture at row spacings at all) is uniform too, not a peak of leakage.
    const smooth = new Float64Array(N * N).map((_, k) => 120 + 30 * Math.sin((k % N) / 40) * Math.cos(Math.floor(k / N) / 55));
    expect(rowPatternOfTile(smooth, N, PX).rowScore).toBeLessThan(0.3);
  });
});

describe('classifyCrop', () => {
  it('follows the reference table at the peak of season', () => {
    expect(classifyCrop({ histogram: histAt(0.85), stats: { mean: 0.84, std: 0.05, median: 0.85 }, indexName: 'NDVI', captureMonth: 7, rowPattern: rows }).crop_type).toBe('corn');
    expect(classifyCrop({ histogram: histAt(0.8), stats: { mean: 0.79, std: 0.05, median: 0.8 }, indexName: 'NDVI', captureMonth: 5, rowPattern: uniform }).crop_type).toBe('rapeseed');
    expect(classifyCrop({ histogram: histAt(0.55), stats: { mean: 0.54, std: 0.05, median: 0.55 }, indexName: 'NDVI', captureMonth: 8, rowPattern: rows }).crop_type).toBe('soy');
  });

  it('returns all eight crops as probabilities, sorted, confidence = top', () => {
    const r = classifyCrop({ histogram: histAt(0.7), stats: { mean: 0.7, std: 0.06, median: 0.7 }, indexName: 'VARI', captureMonth: 6, rowPattern: null });
    expect(r.top_candidates.map((c) => c.crop).sort()).toEqual([...CROPS].sort());
    expect(r.top_candidates.reduce((s, c) => s + c.score, 0)).toBeCloseTo(1, 9);
    for (let k = 1; k < 8; k++) expect(r.top_candidates[k - 1]!.score).toBeGreaterThanOrEqual(r.top_candidates[k]!.score);
    expect(r.confidence).toBe(r.top_candidates[0]!.score);
    expect(r.crop_type).toBe(r.top_candidates[0]!.crop);
  });

  it('calls a guess uncertain when it is near chance or near the next crop', () => {
    const of = (...scores: number[]) => ({ top_candidates: scores.map((score, k) => ({ crop: CROPS[k]!, score })) });
    expect(isUncertain(of(0.17, 0.15, 0.14, 0.14, 0.1, 0.1, 0.1, 0.1))).toBe(true);
    expect(isUncertain(of(0.4, 0.37, 0.1, 0.05, 0.03, 0.02, 0.02, 0.01))).toBe(true);
    expect(isUncertain(of(0.6, 0.2, 0.1, 0.04, 0.03, 0.01, 0.01, 0.01))).toBe(false);
  });

  it('calls the crop a scan reports unsure only when it is the classifier\'s guess too close to call', () => {
    const guess = (...scores: number[]) => JSON.stringify({ crop_type: CROPS[0], confidence: scores[0], top_candidates: scores.map((score, k) => ({ crop: CROPS[k]!, score })) });
    const close = guess(0.4, 0.37, 0.1, 0.05, 0.03, 0.02, 0.02, 0.01);
    expect(scanCropUnsure({ cropType: null, cropJson: close })).toBe(true);
    expect(scanCropUnsure({ cropType: null, cropJson: guess(0.6, 0.2, 0.1, 0.04, 0.03, 0.01, 0.01, 0.01) })).toBe(false);
    // A user named it, over the same guess; or nothing was classified.
    expect(scanCropUnsure({ cropType: 'barley', cropJson: close })).toBe(false);
    expect(scanCropUnsure({ cropType: null, cropJson: null })).toBe(false);
  });

  it('expects bare soil out of season and the reference peak in the peak month', () => {
    expect(expectedNdvi('corn', 7)).toBeCloseTo(0.85, 9);
    expect(expectedNdvi('rapeseed', 11)).toBeLessThan(0.2);
  });

  it('beats chance clearly on the labelled set at the peak of season, less early and for mixed fields', () => {
    const set = labelledCropSet(15, 11);
    const acc = (cond: string) => {
      const f = set.filter((x) => x.condition === cond);
      return f.filter((x) => classifyCrop(x.input).crop_type === x.crop).length / f.length;
    };
    expect(acc('peak')).toBeGreaterThan(0.35); // chance is 0.125
    expect(acc('peak')).toBeGreaterThan(acc('mixed'));
  });
});

describe('the crop a user names', () => {
  it('is an identifier, or a crop the pages name (the classifier’s and others farms grow) by its name in ru, en or sk', () => {
    expect(userCrop.parse('Пшеница')).toBe('wheat');
    expect(userCrop.parse(' подсолнечник ')).toBe('sunflower');
    expect(userCrop.parse('Slnečnica')).toBe('sunflower');
    expect(userCrop.parse('Oats')).toBe('oats');
    expect(userCrop.parse('auto')).toBeNull();
    // Crops the classifier does not know, named in the pages' languages.
    expect(userCrop.parse('овёс')).toBe('oats');
    expect(userCrop.parse('Cukrová repa')).toBe('sugar_beet');
    expect(userCrop.parse('Сахарная свёкла')).toBe('sugar_beet');
    expect(userCrop.safeParse('подсолнух').success).toBe(false);
    expect(userCrop.safeParse('DROP TABLE').success).toBe(false);
  });
});
