// Class breaks computed on a fine histogram of the index, so memory does not grow with the field.

export const ZONING_METHODS = ['jenks', 'quantile', 'equal', 'kmeans'] as const;
export type ZoningMethod = (typeof ZONING_METHODS)[number];

export interface Histogram {
  min: number;
  max: number;
  counts: Float64Array;
}

export function binCenter(h: Histogram, i: number): number {
  return h.min + ((i + 0.5) * (h.max - h.min)) / h.counts.length;
}

function binEdge(h: Histogram, i: number): number {
  return h.min + (i * (h.max - h.min)) / h.counts.length;
}

/** The n-1 inner thresholds, strictly increasing (fewer when the data has too few distinct values). */
export function classBreaks(h: Histogram, classes: number, method: ZoningMethod): number[] {
  if (!(h.max > h.min)) return [];
  const raw =
    method === 'equal'
      ? Array.from({ length: classes - 1 }, (_, i) => h.min + ((i + 1) * (h.max - h.min)) / classes)
      : method === 'quantile'
        ? quantileBreaks(h, classes)
        : method === 'jenks'
          ? jenksBreaks(h, classes)
          : kmeansBreaks(h, classes);
  return raw.filter((b, i) => b > h.min && b < h.max && (i === 0 || b > raw[i - 1]!));
}

/** Class 1..n of a value given the inner thresholds (a value equal to a threshold goes up). */
export function classOf(value: number, breaks: number[]): number {
  let c = 1;
  while (c <= breaks.length && value >= breaks[c - 1]!) c++;
  return c;
}

/** Value at a cumulative fraction, linear inside the bin. */
export function histogramQuantile(h: Histogram, q: number): number {
  const total = h.counts.reduce((s, c) => s + c, 0);
  const target = q * total;
  let acc = 0;
  for (let i = 0; i < h.counts.length; i++) {
    const c = h.counts[i]!;
    if (acc + c >= target && c > 0) return binEdge(h, i) + ((target - acc) / c) * (binEdge(h, i + 1) - binEdge(h, i));
    acc += c;
  }
  return h.max;
}

function quantileBreaks(h: Histogram, classes: number): number[] {
  return Array.from({ length: classes - 1 }, (_, i) => histogramQuantile(h, (i + 1) / classes));
}

/** Fisher-Jenks natural breaks by dynamic programming over weighted bins (O(classes x bins^2)). */
function jenksBreaks(h: Histogram, classes: number): number[] {
  const { xs, ws, edges } = nonEmptyBins(h);
  const m = xs.length;
  if (m <= classes) return edges.slice(0, m - 1);
  const from = jenksTable(squaredDeviations(xs, ws), m, classes);
  return jenksCuts(from, m, classes).map((c) => edges[c - 1]!);
}

/** The non-empty bins' centres, counts and upper edges: only they matter, and merging them keeps the problem small. */
function nonEmptyBins(h: Histogram): { xs: number[]; ws: number[]; edges: number[] } {
  const xs: number[] = [];
  const ws: number[] = [];
  const edges: number[] = [];
  h.counts.forEach((c, i) => {
    if (c > 0) {
      xs.push(binCenter(h, i));
      ws.push(c);
      edges.push(binEdge(h, i + 1));
    }
  });
  return { xs, ws, edges };
}

/** Sum of squared deviations of the weighted items i..j-1, from prefix sums. */
function squaredDeviations(xs: number[], ws: number[]): (i: number, j: number) => number {
  const m = xs.length;
  const w = new Float64Array(m + 1);
  const s = new Float64Array(m + 1);
  const s2 = new Float64Array(m + 1);
  for (let i = 0; i < m; i++) {
    w[i + 1] = w[i]! + ws[i]!;
    s[i + 1] = s[i]! + ws[i]! * xs[i]!;
    s2[i + 1] = s2[i]! + ws[i]! * xs[i]! * xs[i]!;
  }
  return (i, j) => {
    const ww = w[j]! - w[i]!;
    const ss = s[j]! - s[i]!;
    return ww > 0 ? s2[j]! - s2[i]! - (ss * ss) / ww : 0;
  };
}

/** For k = 2..classes, where the last of k classes over the first j items best starts (`from[k - 2][j]`). */
function jenksTable(ssd: (i: number, j: number) => number, m: number, classes: number): Int32Array[] {
  let prev = new Float64Array(m + 1).fill(Infinity);
  for (let j = 1; j <= m; j++) prev[j] = ssd(0, j);
  const from: Int32Array[] = [];
  for (let k = 2; k <= classes; k++) {
    const cur = new Float64Array(m + 1).fill(Infinity);
    const arg = new Int32Array(m + 1);
    for (let j = k; j <= m; j++) {
      for (let i = k - 1; i < j; i++) {
        const v = prev[i]! + ssd(i, j);
        if (v < cur[j]!) {
          cur[j] = v;
          arg[j] = i;
        }
      }
    }
    from.push(arg);
    prev = cur;
  }
  return from;
}

/** The first item of each class after the first, read back from the table. */
function jenksCuts(from: Int32Array[], m: number, classes: number): number[] {
  const cuts: number[] = [];
  let j = m;
  for (let k = classes; k >= 2; k--) {
    j = from[k - 2]![j]!;
    cuts.unshift(j);
  }
  return cuts;
}

/** 1-D k-means (Lloyd) on the bins, started from quantiles; breaks halfway between centres. */
function kmeansBreaks(h: Histogram, classes: number): number[] {
  const q = [0, ...quantileBreaks(h, classes), h.max];
  let centers = Array.from({ length: classes }, (_, i) => (q[i]! + (q[i + 1] ?? h.max)) / 2);
  for (let iter = 0; iter < 100; iter++) {
    const sum = new Float64Array(classes);
    const weight = new Float64Array(classes);
    const bounds = centers.slice(1).map((c, i) => (c + centers[i]!) / 2);
    h.counts.forEach((c, i) => {
      if (c === 0) return;
      const x = binCenter(h, i);
      const k = classOf(x, bounds) - 1;
      sum[k]! += c * x;
      weight[k]! += c;
    });
    const next = centers.map((c, k) => (weight[k]! > 0 ? sum[k]! / weight[k]! : c)).sort((a, b) => a - b);
    const moved = next.some((c, k) => Math.abs(c - centers[k]!) > 1e-9);
    centers = next;
    if (!moved) break;
  }
  return centers.slice(1).map((c, i) => (c + centers[i]!) / 2);
}

/** What `waterCut` needs to know of the score it is given. */
export interface WaterCutRule {
  /** Where the water mode's peak must lie at least: the score's sign for water (NDWI: green above NIR). */
  minPeak: number;
}

// A water mode is accepted when the histogram dips between it and the rest to at most this share
// of the lower of the two peaks, the peaks lie this far apart, and it holds this share of the cells.
const WATER_VALLEY = 0.25;
const WATER_SEPARATION = 0.3;
const WATER_MIN_SHARE = 0.002;
// A field is mostly land: a mode holding more than this share is not taken for water (a band
// order mistaken makes crop look like water, and the whole field would be left out).
const WATER_MAX_SHARE = 0.5;
// The valley's floor: bins within this factor of its lowest.
const WATER_FLOOR = 2;
// Bins of 0.01 over -1..1, smoothed over +-4 bins so a valley is a dip, not a gap between counts.
const WATER_BINS = 200;
const WATER_SMOOTH = 4;

/** A histogram of a water score over -1..1, as `waterCut` reads it. */
export function waterHistogram(): Histogram {
  return { min: -1, max: 1, counts: new Float64Array(WATER_BINS) };
}

/**
 * The score from which cells are water, or undefined when there is no water mode: water is the
 * top mode of the field's own distribution of the score (NDWI, MNDWI, or minus the index) when a
 * deep valley parts it from the rest. No absolute cut, so uncalibrated counts (aerial DNs, hazy or
 * early-season images, bare soil) keep their land. Of the valleys deep enough, the deepest wins;
 * near-ties go to the highest, so a bare field between crop and a lake stays land.
 */
export function waterCut(h: Histogram, rule: WaterCutRule): number | undefined {
  const total = h.counts.reduce((s, c) => s + c, 0);
  if (total === 0) return undefined;
  const sm = smoothed(h.counts);
  const { peakBelow, peakAbove, massAbove } = runningPeaks(sm, h.counts);
  const best = deepestWaterValley(h, rule, sm, valleys(sm, peakBelow, peakAbove), massAbove, total);
  if (!best) return undefined;
  // A valley's floor is often long and flat (pixels part water, part shore): the cut goes to where
  // it starts, so such mixed pixels are left out with the water rather than zoned.
  let cut = best.bin;
  while (cut - 1 > best.lo && sm[cut - 1]! <= WATER_FLOOR * sm[best.bin]!) cut--;
  return binEdge(h, cut);
}

/** The counts averaged over +-WATER_SMOOTH bins (fewer at the ends). */
function smoothed(counts: Float64Array): Float64Array {
  const n = counts.length;
  const sm = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = 0;
    let w = 0;
    for (let j = Math.max(0, i - WATER_SMOOTH); j <= Math.min(n - 1, i + WATER_SMOOTH); j++) {
      s += counts[j]!;
      w++;
    }
    sm[i] = s / w;
  }
  return sm;
}

/** Running peaks from below and from above (the bin of each), and the mass from above. */
function runningPeaks(sm: Float64Array, counts: Float64Array) {
  const n = sm.length;
  const peakBelow = new Int32Array(n);
  for (let i = 1; i < n; i++) peakBelow[i] = sm[i]! > sm[peakBelow[i - 1]!]! ? i : peakBelow[i - 1]!;
  const peakAbove = new Int32Array(n).fill(n - 1);
  const massAbove = new Float64Array(n + 1);
  for (let i = n - 1; i >= 0; i--) {
    massAbove[i] = massAbove[i + 1]! + counts[i]!;
    if (i < n - 1) peakAbove[i] = sm[i]! >= sm[peakAbove[i + 1]!]! ? i : peakAbove[i + 1]!;
  }
  return { peakBelow, peakAbove, massAbove };
}

/** A valley between the peaks at bins `lo` and `hi`, its floor from bin `first` to bin `last`. */
interface Valley { lo: number; hi: number; first: number; last: number }

/** Each valley (the dip between one pair of peaks) at its lowest, the middle of a flat bottom. */
function valleys(sm: Float64Array, peakBelow: Int32Array, peakAbove: Int32Array): Valley[] {
  const found = new Map<string, Valley>();
  for (let i = 1; i < sm.length - 1; i++) {
    const lo = peakBelow[i - 1]!;
    const hi = peakAbove[i + 1]!;
    const key = `${lo}:${hi}`;
    const v = found.get(key);
    if (!v || sm[i]! < sm[v.first]!) found.set(key, { lo, hi, first: i, last: i });
    else if (sm[i]! === sm[v.first]! && v.last === i - 1) v.last = i;
  }
  return [...found.values()];
}

/** Of the valleys that part a water mode from the rest, the deepest; near-ties go to the highest. */
function deepestWaterValley(h: Histogram, rule: WaterCutRule, sm: Float64Array, found: Valley[], massAbove: Float64Array, total: number) {
  const binWidth = (h.max - h.min) / h.counts.length;
  let best: { lo: number; bin: number; ratio: number } | undefined;
  for (const { lo, hi, first, last } of found) {
    const bin = Math.round((first + last) / 2);
    const lower = Math.min(sm[lo]!, sm[hi]!);
    if (!(lower > 0) || sm[bin]! >= lower) continue;
    const ratio = sm[bin]! / lower;
    if (ratio > WATER_VALLEY || (hi - lo) * binWidth < WATER_SEPARATION) continue;
    if (binCenter(h, hi) < rule.minPeak || massAbove[bin]! < WATER_MIN_SHARE * total || massAbove[bin]! > WATER_MAX_SHARE * total) continue;
    if (!best || ratio < best.ratio - 0.05 || (ratio <= best.ratio + 0.05 && bin > best.bin)) best = { lo, bin, ratio: Math.min(ratio, best?.ratio ?? ratio) };
  }
  return best;
}
