// The index loop over a band of the raw mosaic's rows (index.ts): statistics, histograms and the
// band's cells of the averaged-down grid. Takes of rows are shared out between threads (threads.ts):
// each take covers whole cells, so the threads add into one shared grid without meeting, and each
// keeps its own totals.
import { closeSync, openSync, readSync } from 'node:fs';

export const HISTOGRAM_BINS = 64;
/** Bins of the fine histogram over [-1, 1] (0.0005 wide): the exact median without sorting millions. */
export const FINE_BINS = 4001;
/** Mosaic rows a take holds, at least: rounded up to whole cells of the grid. */
const ROWS_PER_TAKE = 256;

/**
 * Where the index loop reads and what it adds into: a band of mosaic rows, the field's spans on them
 * and the band's cells of the averaged-down grid (sum and count per cell, shared).
 */
export interface IndexGrid {
  ndvi: boolean;
  /** Band positions of red, green, blue and NIR (-1 where absent), of nb bands and alpha. */
  bands: [number, number, number, number];
  nb: number;
  W: number;
  /** The band's mosaic rows [row0, row1): row0 a multiple of factor. */
  row0: number;
  row1: number;
  /** The field's spans on the band's rows (fieldSpans), from row0. */
  spans: Int32Array[];
  OW: number;
  cellOfColumn: Int32Array;
  factor: number;
  /** The band's cells, row by row of OW from the cell of row0. */
  sum: Float64Array;
  cnt: Uint32Array;
}

/** What a thread adds up besides the grid: the histograms, the count, the sum and the sum of squares, and the mosaic rows it read. */
export interface IndexTotals {
  bins: Float64Array;
  fine: Uint32Array;
  n: number;
  s1: number;
  s2: number;
  rows: number;
}

const emptyTotals = (): IndexTotals => ({ bins: new Float64Array(HISTOGRAM_BINS), fine: new Uint32Array(FINE_BINS), n: 0, s1: 0, s2: 0, rows: 0 });

/** The totals of several threads as one. */
export function mergedTotals(parts: IndexTotals[]): IndexTotals {
  const all = emptyTotals();
  for (const t of parts) {
    t.bins.forEach((v, k) => (all.bins[k] = all.bins[k]! + v));
    t.fine.forEach((v, k) => (all.fine[k] = all.fine[k]! + v));
    all.n += t.n; all.s1 += t.s1; all.s2 += t.s2; all.rows += t.rows;
  }
  return all;
}

/**
 * Adds the takes of the band's rows of the raw mosaic at `rawPath` that this thread gets from the
 * shared count `takes` (the next take until none is left) to `grid`, and returns this thread's totals.
 * Between takes the thread's other work runs: the calling thread checks the seams beside the index,
 * and takes rows only when that work waits, so the worker reads most of them.
 */
export async function addIndexRows(rawPath: string, grid: IndexGrid, takes: Int32Array): Promise<IndexTotals> {
  const totals = emptyTotals();
  const rowsPerTake = Math.ceil(ROWS_PER_TAKE / grid.factor) * grid.factor, rowBytes = grid.W * (grid.nb + 1);
  const px = new Uint8Array(rowBytes * rowsPerTake);
  const fd = openSync(rawPath, 'r');
  try {
    for (;;) {
      const row0 = grid.row0 + Atomics.add(takes, 0, 1) * rowsPerTake;
      if (row0 >= grid.row1) return totals;
      const rows = Math.min(rowsPerTake, grid.row1 - row0);
      readFully(fd, px.subarray(0, rows * rowBytes), row0 * rowBytes);
      addRows(grid, totals, px, row0, rows);
      totals.rows += rows;
      await new Promise((resolve) => setImmediate(resolve));
    }
  } finally {
    closeSync(fd);
  }
}

function readFully(fd: number, into: Uint8Array, position: number): void {
  for (let got = 0; got < into.length;) {
    const n = readSync(fd, into, got, into.length - got, position + got);
    if (!n) throw new Error(`the raw mosaic ends at byte ${position + got}`);
    got += n;
  }
}

/**
 * Adds `rows` rows of the raw mosaic from `row0` (in `buf`) to the grid and the totals: apart from
 * the reading loop, so that the totals stay in registers.
 */
function addRows(grid: IndexGrid, totals: IndexTotals, buf: Uint8Array, row0: number, rows: number): void {
  const { ndvi, nb, W, spans, OW, cellOfColumn, factor, sum, cnt } = grid, band0 = row0 - grid.row0;
  const { bins, fine } = totals;
  const [R, G, B, N] = grid.bands;
  const stride = nb + 1, rowBytes = W * stride;
  let { n, s1, s2 } = totals;
  for (let r = 0; r < rows; r++) {
    const row = band0 + r, rowSpans = spans[row]!, rowCell = Math.floor(row / factor) * OW;
    for (let k = 0; k < rowSpans.length; k += 2) {
      for (let col = rowSpans[k]!; col <= rowSpans[k + 1]!; col++) {
        const o = r * rowBytes + col * stride;
        if (!buf[o + nb]) continue;
        let v: number;
        if (ndvi) {
          const nir = buf[o + N]!, red = buf[o + R]!;
          v = nir + red === 0 ? 0 : (nir - red) / (nir + red);
        } else {
          const red = buf[o + R]!, green = buf[o + G]!, blue = buf[o + B]!;
          const d = green + red - blue;
          v = d === 0 ? 0 : Math.max(-1, Math.min(1, (green - red) / d));
        }
        n++; s1 += v; s2 += v * v;
        // v + 1 lies in [0, 2]: truncation is the floor, and + 0.5 then truncation the rounding.
        const t = v + 1, bin = ((t / 2) * HISTOGRAM_BINS) | 0;
        bins[bin < HISTOGRAM_BINS ? bin : HISTOGRAM_BINS - 1]!++;
        fine[(t * 2000 + 0.5) | 0]!++;
        const cell = rowCell + cellOfColumn[col]!;
        sum[cell] = sum[cell]! + v;
        cnt[cell]!++;
      }
    }
  }
  Object.assign(totals, { n, s1, s2 });
}
