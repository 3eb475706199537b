// The vegetation index per analysis-grid cell, read from the raster in strips aligned to its tiles
// or strips so no block is decoded twice: pixels without data (nodata, mask, alpha, missing blocks)
// are left out, and a cell is the mean of its pixels when at least half of them have the index.
import { unprocessable } from '@/lib/errors';
import type { IndexPlan, WaterPlan } from './bands';
import { readBlocks, type OpenRaster } from './inspect';
import { blockTable } from './tiff-structure';
import type { ProgressFn } from './zones';

/** Where the analysis grid lies on the raster, and which of its cells the field covers (0 = none). */
export interface GridWindow {
  x0: number;
  y0: number;
  k: number;
  width: number;
  height: number;
  cover: Uint8Array;
}

/** The index per grid cell (NaN = no data), and the water index's where the plan has one. */
export interface IndexGrid {
  values: Float32Array;
  water?: Float32Array;
}

export type IndexGridPlan = IndexPlan & { alpha?: number; water?: WaterPlan };

/** Per cell, the sums of its pixels' index and water index, and how many pixels had them. */
interface CellSums {
  sums: Float32Array;
  waterSums?: Float32Array;
  valid: Uint16Array;
}

/** One strip of the raster's bands: the index's two samples, the water index's, and the mask. */
interface StripBands {
  a: ArrayLike<number>;
  b: ArrayLike<number>;
  wa: ArrayLike<number>;
  wb: ArrayLike<number>;
  mask?: ArrayLike<number>;
}

/** The raster rows [ys, ye) of a strip, and the columns [x0, x1) read. */
interface Strip {
  x0: number;
  x1: number;
  ys: number;
  ye: number;
}

/** What tells a pixel without data: the nodata value, and blocks the file leaves out. */
interface NoData {
  nodata: number;
  missing?: (x: number, y: number) => boolean;
}

/**
 * The index per grid cell (NaN = no data), and the water index's where the plan has one; 422
 * `raster_index_range` when most of the field's values are no index (beyond -1..1).
 */
export async function readIndexGrid(raster: OpenRaster, plan: IndexGridPlan, grid: GridWindow, onProgress: ProgressFn): Promise<IndexGrid> {
  const { image, info } = raster;
  const { x0, y0, k, width, height } = grid;
  const cells: CellSums = {
    sums: new Float32Array(width * height),
    waterSums: plan.water ? new Float32Array(width * height) : undefined,
    valid: new Uint16Array(width * height),
  };
  const x1 = Math.min(info.width, x0 + width * k);
  const yEnd = Math.min(info.height, y0 + height * k);
  const blocks = await storedBlocks(raster, samplesRead(plan));
  const noData: NoData = { nodata: info.nodata ?? NaN, missing: blocks && !blocks.fillIsNodata ? (x, y) => !blocks.stored(x, y) : undefined };
  // Values that are no index (beyond -1..1): when they are most of the field, the file is in
  // another scale (NDVI in percent, or counts without their scale tag) and says so, rather than
  // zoning the few pixels that happen to fall within range.
  let inRange = 0;
  const outside = new OutsideRange();
  for (const [ys, ye] of stripRows(image.getTileHeight(), y0, yEnd)) {
    // Only the columns where the file stores a block in these rows: a sparse file declaring
    // gigabytes of pixels it leaves out costs what it stores.
    for (const [xs, xe] of blocks ? blocks.storedColumns(x0, x1, ys, ye) : [[x0, x1] as const]) {
      const strip: Strip = { x0: xs, x1: xe, ys, ye };
      inRange += addStrip(cells, await readStrip(raster, plan, strip), strip, grid, plan, noData, outside);
    }
    onProgress(Math.round((60 * (ye - y0)) / (yEnd - y0)), 'reading');
  }
  if (outside.count > inRange) throw unprocessable('raster_index_range', { min: outside.min, max: outside.max });
  return cellMeans(cells, grid, x1, yEnd);
}

/** Row ranges [ys, ye) from y0 to yEnd in strips of whole blocks (about 512 rows), aligned to the blocks. */
export function stripRows(blockRows: number, y0: number, yEnd: number): Array<[number, number]> {
  const stripHeight = blockRows * Math.max(1, Math.floor(512 / blockRows));
  const strips: Array<[number, number]> = [];
  for (let ys = y0; ys < yEnd; ys = (Math.floor(ys / stripHeight) + 1) * stripHeight) {
    strips.push([ys, Math.min(yEnd, (Math.floor(ys / stripHeight) + 1) * stripHeight)]);
  }
  return strips;
}

/** The samples (bands) the plan reads: the index's, the water index's and alpha. */
const samplesRead = (plan: IndexGridPlan) => [...new Set([...plan.samples, ...(plan.water?.samples ?? []), ...(plan.alpha === undefined ? [] : [plan.alpha])])];

/** The strip's bands the plan needs, each read once, and the mask (the internal mask, else alpha). */
async function readStrip(raster: OpenRaster, plan: IndexGridPlan, { x0, x1, ys, ye }: Strip): Promise<StripBands> {
  const { image, mask } = raster;
  const window = [x0, ys, x1, ye];
  const samples = samplesRead(plan);
  const read = (await readBlocks(() => image.readRasters({ window, samples, interleave: false }))) as unknown as ArrayLike<number>[];
  const band = (sample: number) => read[samples.indexOf(sample)]!;
  const maskData = mask
    ? ((await readBlocks(() => mask.readRasters({ window, samples: [0], interleave: false }))) as unknown as ArrayLike<number>[])[0]
    : plan.alpha === undefined ? undefined : band(plan.alpha);
  const a = band(plan.samples[0]!);
  const b = band(plan.samples.at(-1)!);
  const [wa, wb] = plan.water ? [band(plan.water.samples[0]), band(plan.water.samples[1])] : [a, b];
  return { a, b, wa, wb, mask: maskData };
}

/**
 * Adds the strip's pixels with an index in -1..1 to their cells; those beyond go to `outside`.
 * Returns how many were added.
 */
function addStrip(cells: CellSums, bands: StripBands, strip: Strip, grid: GridWindow, plan: IndexGridPlan, noData: NoData, outside: OutsideRange): number {
  const { sums, waterSums, valid } = cells;
  const { a, b, wa, wb, mask } = bands;
  const { x0, y0, k, width, cover } = grid;
  const { ys, ye } = strip;
  const w = strip.x1 - strip.x0;
  const cellOfColumn = Int32Array.from({ length: w }, (_, x) => ((strip.x0 - x0 + x) / k) | 0);
  // Comparing with both the tag's value and its float32 rounding catches float32 nodata like -3.4e38.
  const { nodata: nd, missing } = noData;
  const ndf = Math.fround(nd);
  let inRange = 0;
  for (let y = ys; y < ye; y++) {
    const rowBase = (((y - y0) / k) | 0) * width;
    const off = (y - ys) * w;
    for (let x = 0; x < w; x++) {
      const cell = rowBase + cellOfColumn[x]!;
      if (cover[cell] === 0) continue;
      const va = a[off + x]!;
      const vb = b[off + x]!;
      if (va !== va || vb !== vb || va === nd || va === ndf || vb === nd || vb === ndf) continue;
      if (mask && mask[off + x] === 0) continue;
      if (missing?.(strip.x0 + x, y)) continue;
      const v = plan.compute(va, vb);
      if (!(v >= -1 && v <= 1)) {
        if (v === v) outside.push(v);
        continue;
      }
      // A pixel without a water index (both bands 0) counts as land: it has the index.
      if (waterSums) {
        const waterIndex = plan.water!.compute(wa[off + x]!, wb[off + x]!);
        waterSums[cell]! += waterIndex === waterIndex ? waterIndex : -1;
      }
      inRange++;
      sums[cell]! += v;
      valid[cell]!++;
    }
  }
  return inRange;
}

/** The cells' means, in place of their sums; NaN where fewer than half of the cell's pixels had the index. */
function cellMeans({ sums, waterSums, valid }: CellSums, { x0, y0, k, width, height, cover }: GridWindow, x1: number, yEnd: number): IndexGrid {
  // Pixels of each cell that lie on the raster (cells on the last row/column may be cut).
  for (let r = 0; r < height; r++) {
    const rowsIn = Math.min(k, yEnd - (y0 + r * k));
    for (let c = 0; c < width; c++) {
      const i = r * width + c;
      const pixels = rowsIn * Math.min(k, x1 - (x0 + c * k));
      const ok = cover[i] !== 0 && valid[i]! > 0 && valid[i]! * 2 >= pixels;
      sums[i] = ok ? sums[i]! / valid[i]! : NaN;
      if (waterSums) waterSums[i] = ok ? waterSums[i]! / valid[i]! : NaN;
    }
  }
  return { values: sums, water: waterSums };
}

/** Which of the raster's blocks (tiles or strips) the file stores; GDAL's SPARSE_OK leaves some out. */
interface StoredBlocks {
  /** Whether the blocks of every sample read are stored at pixel (x, y). */
  stored(x: number, y: number): boolean;
  /** Runs [xs, xe) of columns within [x0, x1) where some block of a sample read, in rows [ys, ye), is stored. */
  storedColumns(x0: number, x1: number, ys: number, ye: number): Array<readonly [number, number]>;
  /**
   * Whether geotiff.js fills a left-out block with the nodata value: it uses the nodata value, or 0
   * when that is NaN or unset, and 0 is a valid index.
   */
  fillIsNodata: boolean;
}

/**
 * The raster's stored blocks for the samples read, or undefined when the file stores every block.
 * A file whose bands lie apart (planar configuration 2) stores each band's blocks on its own.
 */
async function storedBlocks(raster: OpenRaster, samples: number[]): Promise<StoredBlocks | undefined> {
  const { image, info } = raster;
  const list = (await blockTable(image))?.counts ?? [];
  if (!list.some((c) => c === 0)) return undefined;
  const [tileWidth, tileHeight] = [image.getTileWidth(), image.getTileHeight()];
  const across = Math.ceil(image.getWidth() / tileWidth);
  const perPlane = across * Math.ceil(image.getHeight() / tileHeight);
  const planes = image.planarConfiguration === 2 ? samples : [0];
  const storedIn = (plane: number, col: number, row: number) => list[plane * perPlane + row * across + col]! > 0;
  return {
    stored: (x, y) => planes.every((p) => storedIn(p, Math.floor(x / tileWidth), Math.floor(y / tileHeight))),
    storedColumns(x0, x1, ys, ye) {
      const runs: Array<[number, number]> = [];
      const rows = [Math.floor(ys / tileHeight), Math.ceil(ye / tileHeight)];
      for (let col = Math.floor(x0 / tileWidth); col * tileWidth < x1; col++) {
        let any = false;
        for (let row = rows[0]!; row < rows[1]! && !any; row++) any = planes.some((p) => storedIn(p, col, row));
        if (!any) continue;
        const [xs, xe] = [Math.max(x0, col * tileWidth), Math.min(x1, (col + 1) * tileWidth)];
        if (runs.length && runs.at(-1)![1] === xs) runs.at(-1)![1] = xe;
        else runs.push([xs, xe]);
      }
      return runs;
    },
    fillIsNodata: (image.getGDALNoData() || 0) === info.nodata,
  };
}

/** How many computed values fell outside -1..1, and their span (rounded for a message). */
class OutsideRange {
  count = 0;
  private lo = Infinity;
  private hi = -Infinity;
  push(v: number) {
    this.count++;
    if (v < this.lo) this.lo = v;
    if (v > this.hi) this.hi = v;
  }
  get min() {
    return Math.round(this.lo * 100) / 100;
  }
  get max() {
    return Math.round(this.hi * 100) / 100;
  }
}
