// Relief: the ground under a survey is not one plane. A point h metres above the reference plane is
// seen from a camera H metres up displaced away from the nadir by the factor H / (H - h), so two photos
// place it at different spots, most visibly along the seams. Each tie point's height follows from that
// disagreement (its parallax); a coarse, smoothed height grid of the tie points then lets the
// adjustment and the compositing put every pixel where it lies on the ground.
import type { PairMatch } from './features';
import type { Placement } from './frame';
import { toGround } from './frame';
import { median } from './features';

/** Ground position (on the relief) and height above the reference plane of every tie point, pair by pair. */
export interface TiePoints {
  e: Float64Array;
  n: Float64Array;
  z: Float64Array;
}

/** Height grid over cell centres; `z` row-major from the south-west cell. */
export interface ReliefGrid {
  e0: number;
  n0: number;
  cellM: number;
  cols: number;
  rows: number;
  z: Float32Array;
}

/** Grid cells hold the median height of at least this many tie points; others are filled from neighbours. */
const MIN_POINTS_PER_CELL = 5;
const FILL_CELLS = 2;
/** Tie points the coarser grids get at most: a large survey's million or more, thinned evenly, still give a 4 m cell about ten. */
const COARSE_GRID_POINTS = 200_000;

/**
 * Heights of the tie points of `pairs` under `placements`. `flyingHeightM[i]` is photo i's height
 * above the reference plane; each photo's image centre is taken as its nadir (cameras pointing down).
 */
export function tiePointHeights(pairs: PairMatch[], placements: Placement[], centres: [number, number][], flyingHeightM: number[]): TiePoints {
  const total = pairs.reduce((s, p) => s + p.pts.length / 4, 0);
  const out: TiePoints = { e: new Float64Array(total), n: new Float64Array(total), z: new Float64Array(total) };
  let k = 0;
  for (const { i, j, pts } of pairs) {
    const [pi, pj] = [placements[i]!, placements[j]!];
    const [hi, hj] = [flyingHeightM[i]!, flyingHeightM[j]!];
    for (let q = 0; q < pts.length; q += 4, k++) {
      const [ei, ni] = toGround(pi, centres[i]![0], centres[i]![1], pts[q]!, pts[q + 1]!);
      const [ej, nj] = toGround(pj, centres[j]![0], centres[j]![1], pts[q + 2]!, pts[q + 3]!);
      // Flat positions g = t + (P - t)·H/(H - z); solve the two for z in least squares.
      const vx = (ei - pi.tx) / hi - (ej - pj.tx) / hj, vy = (ni - pi.ty) / hi - (nj - pj.ty) / hj;
      const vv = vx * vx + vy * vy;
      const z = vv > 1e-8 ? ((ei - ej) * vx + (ni - nj) * vy) / vv : 0;
      out.z[k] = z;
      out.e[k] = pi.tx + (ei - pi.tx) * (1 - z / hi);
      out.n[k] = pi.ty + (ni - pi.ty) * (1 - z / hi);
    }
  }
  return out;
}

/**
 * The relief under the `selected` tie points: their heights per cell (cellHeights), then one 3×3
 * mean, so that the compositing never tears the image along cell edges.
 */
export function reliefGrid(points: TiePoints, cellM: number, selected: (k: number) => boolean = () => true): ReliefGrid {
  const picked = pickedPoints(points, selected);
  if (!picked) return { e0: 0, n0: 0, cellM, cols: 1, rows: 1, z: new Float32Array(1) };
  const g = cellHeights(picked, cellWithin(picked, cellM));
  return { ...g, z: neighbourMean(g.z, g.cols, g.rows, false) };
}

/**
 * Cells a relief grid holds at most: 2 m cells over 4 km² (5,000 photos flown in lines cover about
 * 3). A block adjusted out of shape (photos of one spot with no camera data) had cast its tie points
 * kilometres apart, and a grid of 2 m cells over them took the process down.
 */
const MAX_RELIEF_CELLS = 1_000_000;

/** `cellM`, or the least of its doublings that keeps the grid over the points within MAX_RELIEF_CELLS. */
function cellWithin(p: PickedPoints, cellM: number): number {
  const cells = (m: number) => (Math.floor((p.maxE - p.minE) / m) + 1) * (Math.floor((p.maxN - p.minN) / m) + 1);
  let m = cellM;
  while (cells(m) > MAX_RELIEF_CELLS) m *= 2;
  return m;
}

/** The selected tie points, their extent, and the range of heights a cell may take (all but the 1 % highest and lowest). */
interface PickedPoints extends TiePoints {
  minE: number;
  minN: number;
  maxE: number;
  maxN: number;
  lo: number;
  hi: number;
  typical: number;
}

function pickedPoints(points: TiePoints, selected: (k: number) => boolean): PickedPoints | undefined {
  const keep: number[] = [];
  // A point cast to infinity (rays all but parallel) has no place on a grid.
  const finite = (k: number) => Number.isFinite(points.e[k]!) && Number.isFinite(points.n[k]!) && Number.isFinite(points.z[k]!);
  for (let k = 0; k < points.z.length; k++) if (selected(k) && finite(k)) keep.push(k);
  if (!keep.length) return undefined;
  const [e, n, z] = [points.e, points.n, points.z].map((v) => Float64Array.from(keep, (k) => v[k]!)) as [Float64Array, Float64Array, Float64Array];
  const sorted = z.slice().sort();
  let [minE, minN, maxE, maxN] = [Infinity, Infinity, -Infinity, -Infinity];
  for (let k = 0; k < z.length; k++) {
    minE = Math.min(minE, e[k]!); maxE = Math.max(maxE, e[k]!);
    minN = Math.min(minN, n[k]!); maxN = Math.max(maxN, n[k]!);
  }
  return {
    e, n, z, minE, minN, maxE, maxN, typical: median(sorted),
    lo: sorted[Math.floor(0.01 * (sorted.length - 1))]!, hi: sorted[Math.ceil(0.99 * (sorted.length - 1))]!,
  };
}

/**
 * Median height of the tie points per cell, within `lo`..`hi` (a cell beyond rests on the few
 * extreme points at the survey's far edges or on water, where the triangulation is weakest, and its
 * steep slope would smear the one photo there). Empty cells next to measured ones (up to FILL_CELLS
 * away) take their neighbours' mean; farther ones the grid twice as coarse, where sparse tie points
 * still show a hill; the median height of all only where even a grid of 2 × 2 cells has none.
 */
function cellHeights(p: PickedPoints, cellM: number): ReliefGrid {
  const cols = Math.floor((p.maxE - p.minE) / cellM) + 1, rows = Math.floor((p.maxN - p.minN) / cellM) + 1;
  const cells: number[][] = Array.from({ length: cols * rows }, () => []);
  for (let k = 0; k < p.z.length; k++) cells[Math.floor((p.n[k]! - p.minN) / cellM) * cols + Math.floor((p.e[k]! - p.minE) / cellM)]!.push(p.z[k]!);
  let z: Float32Array = Float32Array.from(cells, (c) => (c.length >= MIN_POINTS_PER_CELL ? Math.min(p.hi, Math.max(p.lo, median(c))) : NaN));
  for (let pass = 0; pass < FILL_CELLS; pass++) z = neighbourMean(z, cols, rows, true);
  const [e0, n0] = [p.minE + cellM / 2, p.minN + cellM / 2];
  const coarse = (cols > 2 || rows > 2) && z.some(Number.isNaN) ? cellHeights(thinned(p, COARSE_GRID_POINTS), 2 * cellM) : undefined;
  const fill = (k: number) => (coarse ? heightAt(coarse, e0 + (k % cols) * cellM, n0 + Math.floor(k / cols) * cellM) : p.typical);
  return { e0, n0, cellM, cols, rows, z: z.map((v, k) => (Number.isNaN(v) ? fill(k) : v)) };
}

/** At most about `count` of the points, every so many through them. */
function thinned(p: PickedPoints, count: number): PickedPoints {
  const step = Math.ceil(p.z.length / count);
  if (step <= 1) return p;
  const every = (v: Float64Array) => Float64Array.from({ length: Math.ceil(v.length / step) }, (_, k) => v[k * step]!);
  return { ...p, e: every(p.e), n: every(p.n), z: every(p.z) };
}

/** 3×3 mean of the known cells around each cell; with `onlyEmpty`, known cells keep their value. */
function neighbourMean(z: Float32Array, cols: number, rows: number, onlyEmpty: boolean): Float32Array {
  return z.map((v, k) => {
    if (onlyEmpty && !Number.isNaN(v)) return v;
    const c = k % cols, r = (k - c) / cols;
    let s = 0, n = 0;
    for (let y = Math.max(0, r - 1); y <= Math.min(rows - 1, r + 1); y++) {
      for (let x = Math.max(0, c - 1); x <= Math.min(cols - 1, c + 1); x++) {
        const w = z[y * cols + x]!;
        if (!Number.isNaN(w)) { s += w; n++; }
      }
    }
    return n ? s / n : NaN;
  });
}

/** Where northing `n` falls between the grid's rows of cell centres (heightInRow): the edge row beyond the grid. */
export interface ReliefRow {
  r0: number;
  r1: number;
  fy: number;
}

/** The row of cell centres northing `n` falls in: compositing works it out once a row of the mosaic. */
export function reliefRow(g: ReliefGrid, n: number): ReliefRow {
  const y = Math.min(g.rows - 1, Math.max(0, (n - g.n0) / g.cellM));
  const r0 = Math.min(Math.max(0, g.rows - 2), Math.floor(y));
  return { r0, r1: Math.min(g.rows - 1, r0 + 1), fy: y - r0 };
}

/** Height at easting `e` on a row (reliefRow): bilinear between cell centres, the edge value beyond the grid. */
export function heightInRow(g: ReliefGrid, { r0, r1, fy }: ReliefRow, e: number): number {
  const lastCol = g.cols - 1;
  const x = Math.min(lastCol, Math.max(0, (e - g.e0) / g.cellM));
  const c0 = Math.min(Math.max(0, lastCol - 1), Math.floor(x)), c1 = Math.min(lastCol, c0 + 1), fx = x - c0;
  const south = g.z[r0 * g.cols + c0]! * (1 - fx) + g.z[r0 * g.cols + c1]! * fx;
  const north = g.z[r1 * g.cols + c0]! * (1 - fx) + g.z[r1 * g.cols + c1]! * fx;
  return south * (1 - fy) + north * fy;
}

/** Height at one ground position. */
export const heightAt = (g: ReliefGrid, e: number, n: number): number => heightInRow(g, reliefRow(g, n), e);

/**
 * Where a pixel of a photo lands on the relief, given where the flat placement puts it (`e`, `n`):
 * pulled towards the photo's nadir `t` by (1 - h/H) at the height h found there.
 */
export function onRelief(g: ReliefGrid, t: [number, number], flyingHeightM: number, e: number, n: number): [number, number] {
  let [x, y] = [e, n];
  for (let it = 0; it < 3; it++) {
    const k = 1 - heightAt(g, x, y) / flyingHeightM;
    [x, y] = [t[0] + (e - t[0]) * k, t[1] + (n - t[1]) * k];
  }
  return [x, y];
}

/** For each match of each pair, the factors (1 - h/H) of photos i and j at the height the grid gives its tie point. */
export function reliefFactors(pairs: PairMatch[], tie: TiePoints, g: ReliefGrid, flyingHeightM: number[]): Float64Array[] {
  let k = 0;
  return pairs.map(({ i, j, pts }) => {
    const f = new Float64Array(pts.length / 2);
    for (let q = 0; q < f.length; q += 2, k++) {
      const z = heightAt(g, tie.e[k]!, tie.n[k]!);
      f[q] = 1 - z / flyingHeightM[i]!;
      f[q + 1] = 1 - z / flyingHeightM[j]!;
    }
    return f;
  });
}

/** A photo's footprint ring (closed, on flat ground) as it lies on the relief, `perEdge` points a side. */
export function ringOnRelief(g: ReliefGrid, ring: [number, number][], t: [number, number], flyingHeightM: number, perEdge: number): [number, number][] {
  const out: [number, number][] = [];
  for (let k = 0; k + 1 < ring.length; k++) {
    const [a, b] = [ring[k]!, ring[k + 1]!];
    for (let s = 0; s < perEdge; s++) {
      const f = s / perEdge;
      out.push(onRelief(g, t, flyingHeightM, a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f));
    }
  }
  return [...out, out[0]!];
}
