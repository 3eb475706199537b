// Web map tiles (EPSG:3857, 256 px, XYZ numbering) drawn from a GeoTIFF: the level (full image or
// overview) nearest the tile's resolution, read by block, reprojected as GDAL's approximate
// transformer and rio-tiler do (exact points on a coarse grid, interpolated per pixel, nearest
// sample), transparent where the raster has no data, then PNG or WebP.
import sharp from 'sharp';
import { roleFromName } from './bands';
import { mapToPixel } from './inspect';
import { type IndexRamp, rampColorInto } from './ramp';
import { type Block, type TileRaster, readBlocks } from './tile-source';

export const TILE_SIZE = 256;
/** The deepest zoom a tile is drawn for: 2.4 cm pixels at the equator, finer than any drone mosaic here. */
export const MAX_ZOOM = 24;
export const TILE_FORMATS = ['png', 'webp'] as const;
export type TileFormat = (typeof TILE_FORMATS)[number];

/** Tile pixels between exactly projected points; the rest are interpolated (well under 0.1 px off at zoom 10 and up). */
const GRID_STEP = 16;
const GRID = TILE_SIZE / GRID_STEP + 1;
const EARTH_RADIUS = 6378137;
const HALF_WORLD = Math.PI * EARTH_RADIUS;

/** How a tile's pixels are painted: the raster's red, green and blue as they are, or an index through its ramp. */
export type TileStyle =
  | { kind: 'rgb'; samples: [number, number, number] }
  | { kind: 'index'; samples: number[]; compute: (a: number, b: number) => number; ramp: IndexRamp };

/** Whether z/x/y names a tile of the pyramid. */
export const isTile = (z: number, x: number, y: number) =>
  [z, x, y].every(Number.isInteger) && z >= 0 && z <= MAX_ZOOM && x >= 0 && y >= 0 && x < 2 ** z && y < 2 ** z;

/** The tile's extent in EPSG:3857 metres: [west, south, east, north]. */
export function tileBounds(z: number, x: number, y: number): [number, number, number, number] {
  const size = (2 * HALF_WORLD) / 2 ** z;
  return [-HALF_WORLD + x * size, HALF_WORLD - (y + 1) * size, -HALF_WORLD + (x + 1) * size, HALF_WORLD - y * size];
}

export const lonLatToMercator = ([lon, lat]: [number, number]): [number, number] => [
  (EARTH_RADIUS * lon * Math.PI) / 180,
  EARTH_RADIUS * Math.log(Math.tan(Math.PI / 4 + (Math.min(85.06, Math.max(-85.06, lat)) * Math.PI) / 360)),
];

/** The raster's extent in EPSG:3857 metres, from its densified WGS84 footprint. */
export function mercatorExtent(raster: TileRaster): [number, number, number, number] {
  const points = raster.raster.info.footprintWgs84.coordinates[0]!.map((p) => lonLatToMercator([p[0]!, p[1]!]));
  const xs = points.map((p) => p[0]);
  const ys = points.map((p) => p[1]);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

/** The red, green and blue samples of a raster (by band name or colour interpretation), else its first three (or its one, grey). */
export function rgbSamples(raster: TileRaster): [number, number, number] {
  const roles = raster.raster.bandMeta.map((b) => (b.colorInterp === 'alpha' ? 'other' : roleFromName(b.description ?? b.colorInterp ?? '')));
  const [r, g, b] = (['red', 'green', 'blue'] as const).map((role) => roles.indexOf(role));
  if (r! >= 0 && g! >= 0 && b! >= 0) return [r!, g!, b!];
  const data = raster.raster.bandMeta.map((_, i) => i).filter((i) => i !== raster.alpha);
  return data.length >= 3 ? [data[0]!, data[1]!, data[2]!] : [data[0]!, data[0]!, data[0]!];
}

/**
 * Full-resolution pixel coordinates (column, row) of the tile's grid points, GRID x GRID pairs;
 * NaN for a point that does not project, or lies well away from the raster (a far point projected
 * into a UTM zone can land anywhere).
 */
function warpGrid(raster: TileRaster, bounds: [number, number, number, number], extent: [number, number, number, number]): Float64Array {
  const [west, , east, north] = bounds;
  const step = (east - west) / TILE_SIZE;
  const margin = Math.max(2 * GRID_STEP * step, 0.1 * Math.max(extent[2] - extent[0], extent[3] - extent[1]));
  const grid = new Float64Array(GRID * GRID * 2).fill(NaN);
  for (let j = 0; j < GRID; j++) {
    const my = north - j * GRID_STEP * step;
    for (let i = 0; i < GRID; i++) {
      const mx = west + i * GRID_STEP * step;
      if (mx < extent[0] - margin || mx > extent[2] + margin || my < extent[1] - margin || my > extent[3] + margin) continue;
      const [x, y] = raster.fromMercator([mx, my]);
      if (!Number.isFinite(x) || !Number.isFinite(y)) continue;
      const [c, r] = mapToPixel(raster.raster.transform, x, y);
      grid[(j * GRID + i) * 2] = c;
      grid[(j * GRID + i) * 2 + 1] = r;
    }
  }
  return grid;
}

/** Full-resolution pixels per tile pixel: the mean over the grid's cells that project, the shorter of each cell's two sides. */
function sourcePixelsPerTilePixel(grid: Float64Array): number {
  let sum = 0;
  let cells = 0;
  for (let j = 0; j < GRID - 1; j++) {
    for (let i = 0; i < GRID - 1; i++) {
      const n = (j * GRID + i) * 2;
      const across = Math.hypot(grid[n + 2]! - grid[n]!, grid[n + 3]! - grid[n + 1]!);
      const down = Math.hypot(grid[n + GRID * 2]! - grid[n]!, grid[n + GRID * 2 + 1]! - grid[n + 1]!);
      const side = Math.min(across, down);
      if (Number.isFinite(side)) {
        sum += side;
        cells++;
      }
    }
  }
  return cells ? sum / cells / GRID_STEP : NaN;
}

/**
 * An overview may be this much coarser than the tile and still be chosen (GDAL's
 * GDAL_OVERVIEW_OVERSAMPLING_THRESHOLD): at zoom 20 over 3 cm pixels (3.2 per tile pixel) the 4x
 * overview is read, not the 2x one of 2.5 times its bytes, for a tile no eye tells apart.
 */
const OVERSAMPLING = 1.3;

/** The coarsest level at most OVERSAMPLING times coarser than the tile. */
export function chooseLevel(raster: TileRaster, sourcePerTilePixel: number): number {
  let chosen = 0;
  raster.levels.forEach((level, i) => {
    if (level.factorX <= sourcePerTilePixel * OVERSAMPLING) chosen = i;
  });
  return chosen;
}

/** Where a tile's pixels lie in the level read for it: the stage before any block is read. */
export interface TilePlan {
  levelIndex: number;
  /** The tile's grid points in the level's pixels (column, row), GRID x GRID pairs, NaN where none. */
  grid: Float64Array;
  /** The first block (column, row) under the tile, and how many across and down. */
  bx0: number;
  by0: number;
  across: number;
  down: number;
}

/** The tile's level, grid and blocks; null when the raster has nothing under it. */
export function planTile(raster: TileRaster, z: number, x: number, y: number): TilePlan | null {
  const bounds = tileBounds(z, x, y);
  const extent = mercatorExtent(raster);
  if (bounds[0] >= extent[2] || bounds[2] <= extent[0] || bounds[1] >= extent[3] || bounds[3] <= extent[1]) return null;
  const grid = warpGrid(raster, bounds, extent);
  const span = sourcePixelsPerTilePixel(grid);
  if (!(span > 0)) return null;
  const levelIndex = chooseLevel(raster, span);
  const level = raster.levels[levelIndex]!;
  // Grid points in the level's pixels.
  for (let k = 0; k < grid.length; k += 2) {
    grid[k] = grid[k]! / level.factorX;
    grid[k + 1] = grid[k + 1]! / level.factorY;
  }
  const window = gridWindow(grid, level.width, level.height);
  if (!window) return null;
  const bx0 = Math.floor(window[0] / level.blockWidth);
  const by0 = Math.floor(window[1] / level.blockHeight);
  const across = Math.floor((window[2] - 1) / level.blockWidth) - bx0 + 1;
  const down = Math.floor((window[3] - 1) / level.blockHeight) - by0 + 1;
  return { levelIndex, grid, bx0, by0, across, down };
}

/** The plan's blocks (and their mask's), read and decoded at once, or taken from the block cache. */
export async function loadTileBlocks(raster: TileRaster, plan: TilePlan): Promise<LoadedBlocks> {
  const { levelIndex, bx0, by0, across, down } = plan;
  const level = raster.levels[levelIndex]!;
  const { data, mask } = await readBlocks(raster, levelIndex, bx0, by0, across, down);
  return { data, ...(mask ? { mask } : {}), bx0, by0, across, bw: level.blockWidth, bh: level.blockHeight, samples: raster.raster.info.bands };
}

/**
 * The tile's RGBA pixels (TILE_SIZE x TILE_SIZE), or null when the raster has no data in it. Pixels
 * without data (outside the raster, nodata, alpha 0, masked, an index that cannot be computed) are
 * transparent.
 */
export async function renderTile(raster: TileRaster, z: number, x: number, y: number, style: TileStyle): Promise<Buffer | null> {
  const plan = planTile(raster, z, x, y);
  if (!plan) return null;
  return paintTile(raster, plan, await loadTileBlocks(raster, plan), style);
}

/** The level's pixel window the grid covers, clamped to the level; null when it misses the level. */
function gridWindow(grid: Float64Array, width: number, height: number): [number, number, number, number] | null {
  let [c0, r0, c1, r1] = [Infinity, Infinity, -Infinity, -Infinity];
  for (let k = 0; k < grid.length; k += 2) {
    const c = grid[k]!;
    const r = grid[k + 1]!;
    if (Number.isNaN(c)) continue;
    if (c < c0) c0 = c;
    if (c > c1) c1 = c;
    if (r < r0) r0 = r;
    if (r > r1) r1 = r;
  }
  const window: [number, number, number, number] = [Math.max(0, Math.floor(c0)), Math.max(0, Math.floor(r0)), Math.min(width, Math.floor(c1) + 1), Math.min(height, Math.floor(r1) + 1)];
  return window[2] > window[0] && window[3] > window[1] ? window : null;
}

export interface LoadedBlocks {
  data: Block[];
  mask?: Block[];
  bx0: number;
  by0: number;
  across: number;
  bw: number;
  bh: number;
  samples: number;
}

/** Each tile pixel takes the nearest sample of the level under its centre, painted by the style. */
export function paintTile(raster: TileRaster, plan: TilePlan, blocks: LoadedBlocks, style: TileStyle): Buffer | null {
  const { grid } = plan;
  const { width, height } = raster.levels[plan.levelIndex]!;
  const out = Buffer.alloc(TILE_SIZE * TILE_SIZE * 4);
  const paint = pixelPainter(raster, blocks, style, out);
  let painted = false;
  for (let py = 0; py < TILE_SIZE; py++) {
    const gj = Math.floor(py / GRID_STEP);
    const fy = (py + 0.5) / GRID_STEP - gj;
    for (let px = 0; px < TILE_SIZE; px++) {
      const gi = Math.floor(px / GRID_STEP);
      const fx = (px + 0.5) / GRID_STEP - gi;
      const n = (gj * GRID + gi) * 2;
      // Bilinear between the cell's four grid points; NaN (no projection) leaves the pixel empty.
      const c = bilinear(grid, n, fx, fy);
      const r = bilinear(grid, n + 1, fx, fy);
      if (!(c >= 0 && r >= 0 && c < width && r < height)) continue;
      if (paint(Math.floor(c), Math.floor(r), (py * TILE_SIZE + px) * 4)) painted = true;
    }
  }
  return painted ? out : null;
}

/** Bilinear between a cell's four grid points at (fx, fy): `k` indexes its top-left point's column (its row is one on). */
function bilinear(grid: Float64Array, k: number, fx: number, fy: number): number {
  const m = k + GRID * 2;
  return (1 - fy) * ((1 - fx) * grid[k]! + fx * grid[k + 2]!) + fy * ((1 - fx) * grid[m]! + fx * grid[m + 2]!);
}

/** Paints the tile's pixel at byte `p` from the level's pixel (col, row); false when that has no data. */
type PixelPainter = (col: number, row: number, p: number) => boolean;

/** Paints a pixel from its samples (at `o` in `values`) with alpha `a`; false when they make no colour. */
type SamplePainter = (values: ArrayLike<number>, o: number, a: number, p: number) => boolean;

/** Finds a level pixel's samples in the loaded blocks, leaves it empty where masked or alpha is 0, and paints it by the style. */
function pixelPainter(raster: TileRaster, blocks: LoadedBlocks, style: TileStyle, out: Buffer): PixelPainter {
  const toByte = byteScale(raster);
  const { alpha } = raster;
  const paintSamples = style.kind === 'index' && style.ramp ? indexPainter(raster, style, out) : rgbPainter(raster, style.samples, out, toByte);
  return (col, row, p) => {
    const bi = (Math.floor(row / blocks.bh) - blocks.by0) * blocks.across + Math.floor(col / blocks.bw) - blocks.bx0;
    const inBlock = (row % blocks.bh) * blocks.data[bi]!.width + (col % blocks.bw);
    if (blocks.mask && blocks.mask[bi]!.data[inBlock] === 0) return false;
    const values = blocks.data[bi]!.data;
    const o = inBlock * blocks.samples;
    const a = alpha === undefined ? 255 : toByte(values[o + alpha]!);
    if (a === 0) return false;
    return paintSamples(values, o, a, p);
  };
}

/** The index of one or two samples through the style's ramp; nodata in either, or no finite index, is no colour. */
function indexPainter(raster: TileRaster, style: Extract<TileStyle, { kind: 'index' }>, out: Buffer): SamplePainter {
  const { nodata } = raster;
  const { ramp } = style;
  const [s0, s1 = 0] = style.samples;
  const rampSpan = ramp.max - ramp.min;
  return (values, o, a, p) => {
    const va = values[o + s0!]!;
    const vb = style.samples.length > 1 ? values[o + s1]! : 0;
    if (nodata !== undefined && (va === nodata || (style.samples.length > 1 && vb === nodata))) return false;
    const v = style.compute(va, vb);
    if (!Number.isFinite(v)) return false;
    rampColorInto((v - ramp.min) / rampSpan, out, p);
    out[p + 3] = a;
    return true;
  };
}

/** Three samples as red, green and blue bytes; no colour where all three are nodata. */
function rgbPainter(raster: TileRaster, samples: TileStyle['samples'], out: Buffer, toByte: (v: number) => number): SamplePainter {
  const { nodata } = raster;
  const [s0, s1 = 0, s2 = 0] = samples;
  return (values, o, a, p) => {
    const [r8, g8, b8] = [values[o + s0]!, values[o + s1]!, values[o + s2]!];
    if (nodata !== undefined && r8 === nodata && g8 === nodata && b8 === nodata) return false;
    out[p] = toByte(r8);
    out[p + 1] = toByte(g8);
    out[p + 2] = toByte(b8);
    out[p + 3] = a;
    return true;
  };
}

/** A sample's value as 0-255: bytes as they are, wider integers by their range, floats (reflectance) times 255. */
function byteScale(raster: TileRaster): (v: number) => number {
  const { sampleFormat, bitsPerSample } = raster.raster;
  if (sampleFormat === 3) return (v) => Math.max(0, Math.min(255, Math.round(v * 255)));
  if (bitsPerSample === 8) return (v) => v;
  const top = 2 ** bitsPerSample - 1;
  return (v) => Math.max(0, Math.min(255, Math.round((v * 255) / top)));
}

const emptyTiles = new Map<TileFormat, Promise<Buffer>>();

/** The tile as PNG or WebP; null pixels give the one fully transparent tile of that format. */
export function encodeTile(rgba: Buffer | null, format: TileFormat): Promise<Buffer> {
  if (!rgba) {
    let empty = emptyTiles.get(format);
    if (!empty) emptyTiles.set(format, (empty = encodeTile(Buffer.alloc(TILE_SIZE * TILE_SIZE * 4), format)));
    return empty;
  }
  const raw = sharp(rgba, { raw: { width: TILE_SIZE, height: TILE_SIZE, channels: 4 } });
  // An opaque tile (most of a mosaic) is written without its alpha: a quarter fewer bytes to compress.
  const image = isOpaque(rgba) ? raw.removeAlpha() : raw;
  return (format === 'png' ? image.png({ compressionLevel: PNG_LEVEL, adaptiveFiltering: false }) : image.webp({ quality: 90, alphaQuality: 100, effort: 2 })).toBuffer();
}

/**
 * zlib level of PNG tiles: photographic tiles barely compress whatever the level, and level 2 costs
 * a fifth less CPU than 3 for a few per cent more bytes (bench/HISTORY.md).
 */
const PNG_LEVEL = 2;

function isOpaque(rgba: Buffer): boolean {
  for (let p = 3; p < rgba.length; p += 4) if (rgba[p] !== 255) return false;
  return true;
}
