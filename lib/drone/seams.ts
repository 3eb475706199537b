// Seam check on the output itself: two neighbouring photos are each drawn alone into the mosaic's grid
// around the seam between them, features are found again in both drawings and matched, and each
// match's offset is how far apart the two photos put the same thing where the mosaic switches from
// one to the other. Independent of the adjustment's own matches (other copies, other keypoints).
// Keypoints only say roughly where (their detector is pixel-coarse, more so on its coarser pyramid
// levels); each match is then refined by normalised cross-correlation of the patch around it.
import { planarDistance } from '@/lib/geo/planar';
import { pointInRing } from '@/lib/geo/point-in-ring';
import { greyOf, guidedMatches, median, orbFeatures } from './features';

/** A north-up window of the output grid: top-left corner (UTM), pixel size, size in pixels. */
export interface GridWindow {
  x0: number;
  y0: number;
  gsd: number;
  W: number;
  H: number;
  /** A strip's place in its mosaic: the mosaic's x0 and the strip's first column (composite-rows.ts draws a strip as the whole). */
  inMosaic?: { x0: number; col0: number };
}

export interface SeamCheck {
  /** Median offset between re-matched features along the seams, in output pixels. */
  medianPx: number;
  /** 95th percentile of the same offsets: what one broken seam among many raises. */
  p95Px: number;
  /** The largest of the seams' own median offsets (seams with at least MIN_SEAM_MATCHES matches). */
  worstSeamPx: number;
  /** Re-matched features the median is over. */
  matches: number;
  /** Neighbouring pairs whose seam showed matches. */
  pairs: number;
}

export interface SeamSources {
  /** Each photo's footprint on the ground (closed ring, UTM), and its [minE, maxE, minN, maxN]. */
  rings: [number, number][][];
  bbox: number[][];
  /** Ground point under each photo's centre (UTM): the compositing takes the nearest photo. */
  nadirs: [number, number][];
  /** Draws one photo alone into a window: pixel-interleaved bands + alpha (bands = `nb`). */
  render: (window: GridWindow, photo: number) => Promise<Uint8Array>;
  nb: number;
}

/**
 * The band around a seam that is searched: ground whose distances to the two nadirs differ by at most
 * this (m), about 0.9 m either side of the seam, inside the feathering (1.25 m either side).
 */
const BAND_M = 1.8;
/** Matches farther apart than this (output pixels) are taken for different things. */
const SEARCH_PX = 64;
/** Correlation patch half-size and refinement search radius (output pixels). */
const PATCH = 10;
const REFINE = 6;
/** A refined match counts when the patches correlate at least this well. */
const MIN_NCC = 0.8;
/** A seam's own median counts towards the worst seam from this many matches on. */
const MIN_SEAM_MATCHES = 10;
const MIN_BAND_PX = 24;
/**
 * The lattice a seam's window is found on: LATTICE_M apart, or at most LATTICE_STEPS a side of the
 * pair's common box, but never coarser than half the band searched (else a seam could fall between
 * its points). Each point asks every photo that may take it, and photos all of one spot, their
 * footprints hundreds of metres wide, had spent minutes on a lattice of 0.5 m.
 */
const LATTICE_M = 0.5;
const LATTICE_STEPS = 256;

/** How much of each seam is searched: windows at most `maxSidePx` a side (longer seams keep their middle), matches up to `searchPx` apart. */
export interface SeamCheckOptions {
  maxSidePx: number;
  searchPx: number;
}

/** The full check (DRONE_SEAM_CHECK, tests and bench). */
const FULL_SEAM_CHECK: SeamCheckOptions = { maxSidePx: 2048, searchPx: SEARCH_PX };

/** Ground distance from (e, n) to photo k's nadir. */
const nadirDistance = (src: SeamSources, k: number, e: number, n: number) => planarDistance(e, n, src.nadirs[k]![0], src.nadirs[k]![1]);

/** Whether (e, n) lies in the box [minE, maxE, minN, maxN]: outside a footprint's, outside the footprint. */
const inBox = (b: number[], e: number, n: number) => e >= b[0]! && e <= b[1]! && n >= b[2]! && n <= b[3]!;

/**
 * Tells the ground points where i and j are the two photos nearest nadir among those seeing them (a
 * seam of theirs), within `bandM` of the seam. `others`: the photos besides i and j whose footprints
 * may hold the points (othersNear), the only ones that can take one. The photo that took the last
 * point is asked first: points are asked in order, and where photos all see one another (photos of
 * one spot) the next point is most often its too.
 */
class SeamTest {
  private taker = -1;
  constructor(private readonly src: SeamSources, private readonly i: number, private readonly j: number, private readonly bandM: number, private readonly others: number[]) {}

  /** Whether (e, n) is on the seam; `seenByBoth` when the caller already knows both photos cover it. */
  has(e: number, n: number, seenByBoth = false): boolean {
    const { src, i, j } = this;
    const di = nadirDistance(src, i, e, n), dj = nadirDistance(src, j, e, n);
    if (Math.abs(di - dj) > this.bandM) return false;
    const far = Math.max(di, dj);
    if (this.taker >= 0 && this.takes(this.taker, e, n, far)) return false;
    for (const k of this.others) {
      if (k !== this.taker && this.takes(k, e, n, far)) {
        this.taker = k;
        return false;
      }
    }
    return seenByBoth || (pointInRing([e, n], src.rings[i]!) && pointInRing([e, n], src.rings[j]!));
  }

  /** Whether photo k is nearer nadir than `far` at (e, n) and sees it. */
  private takes(k: number, e: number, n: number, far: number): boolean {
    return nadirDistance(this.src, k, e, n) < far && inBox(this.src.bbox[k]!, e, n) && pointInRing([e, n], this.src.rings[k]!);
  }
}

/** The photos other than i and j whose footprint's bounds reach the box [minE, maxE, minN, maxN]. */
function othersNear(src: SeamSources, i: number, j: number, [minE, maxE, minN, maxN]: number[]): number[] {
  const others: number[] = [];
  src.bbox.forEach(([e0, e1, n0, n1], k) => {
    if (k !== i && k !== j && e1! >= minE! && e0! <= maxE! && n1! >= minN! && n0! <= maxN!) others.push(k);
  });
  return others;
}

/** Where in `win` both photos' renders (`pi`, `pj`) cover the ground and their seam runs within `bandM`: 255, else 0. */
function seamMask(src: SeamSources, win: GridWindow, i: number, j: number, pi: Uint8Array, pj: Uint8Array, bandM: number): Uint8Array {
  const stride = src.nb + 1;
  const mask = new Uint8Array(win.W * win.H);
  const seam = new SeamTest(src, i, j, bandM, othersNear(src, i, j, [win.x0, win.x0 + win.W * win.gsd, win.y0 - win.H * win.gsd, win.y0]));
  for (let r = 0; r < win.H; r++) {
    const n = win.y0 - (r + 0.5) * win.gsd;
    for (let c = 0; c < win.W; c++) {
      const k = r * win.W + c;
      if (pi[k * stride + src.nb] === 255 && pj[k * stride + src.nb] === 255 && seam.has(win.x0 + (c + 0.5) * win.gsd, n, true)) mask[k] = 255;
    }
  }
  return mask;
}

/**
 * The window around the seam of i and j (null: they share none), from a lattice over their common box
 * of LATTICE_M, or of LATTICE_STEPS a side where that is coarser (common boxes over 128 m a side), at
 * most BAND_M / 2.
 */
function seamWindow(src: SeamSources, grid: GridWindow, i: number, j: number, maxSidePx: number): GridWindow | null {
  const [a, b] = [src.bbox[i]!, src.bbox[j]!];
  const minE = Math.max(a[0]!, b[0]!), maxE = Math.min(a[1]!, b[1]!), minN = Math.max(a[2]!, b[2]!), maxN = Math.min(a[3]!, b[3]!);
  const seam = new SeamTest(src, i, j, BAND_M, othersNear(src, i, j, [minE, maxE, minN, maxN]));
  const step = Math.min(BAND_M / 2, Math.max(LATTICE_M, Math.max(maxE - minE, maxN - minN) / LATTICE_STEPS));
  let e0 = Infinity, e1 = -Infinity, n0 = Infinity, n1 = -Infinity;
  for (let e = minE; e <= maxE; e += step) {
    for (let n = minN; n <= maxN; n += step) {
      if (!seam.has(e, n)) continue;
      e0 = Math.min(e0, e); e1 = Math.max(e1, e); n0 = Math.min(n0, n); n1 = Math.max(n1, n);
    }
  }
  if (e0 > e1) return null;
  // A margin for the features' neighbourhoods (ORB ignores the 31 pixels next to an image's edge);
  // long seams keep their middle.
  const { gsd } = grid;
  const margin = Math.max(1, 40 * gsd);
  const ce = (e0 + e1) / 2, cn = (n0 + n1) / 2;
  const half = (lo: number, hi: number) => Math.min((hi - lo) / 2 + margin, (maxSidePx * gsd) / 2);
  const col0 = Math.max(0, Math.floor((ce - half(e0, e1) - grid.x0) / gsd)), col1 = Math.min(grid.W, Math.ceil((ce + half(e0, e1) - grid.x0) / gsd));
  const row0 = Math.max(0, Math.floor((grid.y0 - cn - half(n0, n1)) / gsd)), row1 = Math.min(grid.H, Math.ceil((grid.y0 - cn + half(n0, n1)) / gsd));
  if (col1 - col0 < 32 || row1 - row0 < 32) return null;
  return { x0: grid.x0 + col0 * gsd, y0: grid.y0 - row0 * gsd, gsd, W: col1 - col0, H: row1 - row0 };
}

/**
 * Sub-pixel offset of the patch around (x, y) of image a in image b, searched within REFINE pixels of
 * (x + dx, y + dy) by normalised cross-correlation; null when the patch is flat, leaves either image,
 * correlates poorly or peaks at the search's edge.
 */
export function refineOffset(a: Uint8Array, b: Uint8Array, W: number, H: number, x: number, y: number, dx: number, dy: number): [number, number] | null {
  const r = PATCH, s = REFINE;
  if (x - r < 0 || y - r < 0 || x + r >= W || y + r >= H) return null;
  if (x + dx - r - s < 0 || y + dy - r - s < 0 || x + dx + r + s >= W || y + dy + r + s >= H) return null;
  const n = SIDE * SIDE;
  let sa = 0, saa = 0;
  for (let v = -r; v <= r; v++) for (let u = -r; u <= r; u++) { const p = a[(y + v) * W + x + u]!; sa += p; saa += p * p; }
  const va = saa - (sa * sa) / n;
  if (va < n * 25) return null; // under 5 grey levels of contrast: nothing to align on
  // b's sums over each shifted patch come from its summed-area tables: the loop over the patch only multiplies.
  copyOut(a, b, W, x - r, y - r, x + dx - r - s, y + dy - r - s);
  const ncc = new Float64Array((2 * s + 1) ** 2);
  let best = -2, bu = 0, bv = 0;
  for (let ov = -s; ov <= s; ov++) {
    for (let ou = -s; ou <= s; ou++) {
      let sab = 0;
      for (let v = 0, k = 0; v < SIDE; v++) {
        const rb = (s + ov + v) * REGION + s + ou;
        for (let u = 0; u < SIDE; u++, k++) sab += patch[k]! * region[rb + u]!;
      }
      const sb = boxSum(regionSum, s + ou, s + ov), vb = boxSum(regionSumSq, s + ou, s + ov) - (sb * sb) / n;
      const c = vb > 0 ? (sab - (sa * sb) / n) / Math.sqrt(va * vb) : -1;
      ncc[(ov + s) * (2 * s + 1) + ou + s] = c;
      if (c > best) { best = c; bu = ou; bv = ov; }
    }
  }
  if (best < MIN_NCC || Math.abs(bu) === s || Math.abs(bv) === s) return null;
  // Parabola through the peak and its neighbours, along each axis.
  const at = (u: number, v: number) => ncc[(v + s) * (2 * s + 1) + u + s]!;
  const sub = (m: number, c: number, p: number) => (m - 2 * c + p < 0 ? (0.5 * (m - p)) / (m - 2 * c + p) : 0);
  return [dx + bu + sub(at(bu - 1, bv), best, at(bu + 1, bv)), dy + bv + sub(at(bu, bv - 1), best, at(bu, bv + 1))];
}

/** Sides of the patch, of the part of b a refinement reads (the patch at every shift), and of that part's summed-area tables. */
const SIDE = 2 * PATCH + 1;
const REGION = SIDE + 2 * REFINE;
const TABLE = REGION + 1;
/** Scratch reused between refinements: a's patch, b's part, and the part's summed-area tables of values and squares. */
const patch = new Float64Array(SIDE * SIDE), region = new Float64Array(REGION * REGION);
const regionSum = new Float64Array(TABLE * TABLE), regionSumSq = new Float64Array(TABLE * TABLE);

/** Copies a's patch with corner (xa, ya) and b's part with corner (xb, yb) into the scratch, and sums b's part. */
function copyOut(a: Uint8Array, b: Uint8Array, W: number, xa: number, ya: number, xb: number, yb: number): void {
  for (let v = 0; v < SIDE; v++) for (let u = 0; u < SIDE; u++) patch[v * SIDE + u] = a[(ya + v) * W + xa + u]!;
  for (let v = 0; v < REGION; v++) {
    let row = 0, rowSq = 0;
    for (let u = 0; u < REGION; u++) {
      const q = b[(yb + v) * W + xb + u]!;
      region[v * REGION + u] = q;
      row += q; rowSq += q * q;
      regionSum[(v + 1) * TABLE + u + 1] = regionSum[v * TABLE + u + 1]! + row;
      regionSumSq[(v + 1) * TABLE + u + 1] = regionSumSq[v * TABLE + u + 1]! + rowSq;
    }
  }
}

/** Sum over the patch-sized box of b's part whose corner is (c, r), from a summed-area table. */
const boxSum = (t: Float64Array, c: number, r: number) => {
  const c1 = c + SIDE, r1 = r + SIDE;
  return t[r1 * TABLE + c1]! - t[r * TABLE + c1]! - t[r1 * TABLE + c]! + t[r * TABLE + c]!;
};

/**
 * Re-matches features between each neighbouring pair as drawn into the grid (the output's, or a
 * coarser one for a cheaper check), along the seam where the mosaic switches between them; offsets
 * in that grid's pixels.
 */
export async function rematchSeams(src: SeamSources, grid: GridWindow, pairs: { i: number; j: number }[], opts: SeamCheckOptions = FULL_SEAM_CHECK): Promise<SeamCheck> {
  const offsets: number[] = [];
  const seamMedians: number[] = [];
  let seams = 0;
  const identity = { a: 1, b: 0, tx: 0, ty: 0 };
  for (const { i, j } of pairs) {
    const win = seamWindow(src, grid, i, j, opts.maxSidePx);
    if (!win) continue;
    const [pi, pj] = [await src.render(win, i), await src.render(win, j)];
    const stride = src.nb + 1;
    // Features only where both photos cover the ground and the seam runs (a band at least
    // MIN_BAND_PX wide on a coarse grid, or ORB finds next to nothing in it).
    const mask = seamMask(src, win, i, j, pi, pj, Math.max(BAND_M, MIN_BAND_PX * win.gsd));
    const [fi, fj] = await Promise.all([orbFeatures(pi, win.W, win.H, stride, 1, mask), orbFeatures(pj, win.W, win.H, stride, 1, mask)]);
    const [gi, gj] = [greyOf(pi, win.W * win.H, stride), greyOf(pj, win.W * win.H, stride)];
    const own: number[] = [];
    for (const [a, b] of guidedMatches(fi, identity, [0, 0], fj, identity, [0, 0], opts.searchPx)) {
      const xi = Math.round(fi.points[2 * a]!), yi = Math.round(fi.points[2 * a + 1]!);
      const offset = refineOffset(gi, gj, win.W, win.H, xi, yi, Math.round(fj.points[2 * b]!) - xi, Math.round(fj.points[2 * b + 1]!) - yi);
      if (offset === null) continue;
      own.push(Math.hypot(offset[0], offset[1]));
    }
    offsets.push(...own);
    if (own.length) seams++;
    if (own.length >= MIN_SEAM_MATCHES) seamMedians.push(median(own));
  }
  const sorted = offsets.sort((a, b) => a - b);
  return {
    medianPx: sorted.length ? median(sorted) : NaN,
    p95Px: sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(0.95 * sorted.length))]! : NaN,
    worstSeamPx: seamMedians.length ? Math.max(...seamMedians) : NaN,
    matches: sorted.length,
    pairs: seams,
  };
}
