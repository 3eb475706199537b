// GeoTIFFs opened for map tiles: each file opened once (its levels, CRS and band roles), and its
// decoded blocks, both kept in memory-bounded LRU caches shared by every tile request of the process.
import { stat } from 'node:fs/promises';
import type { GeoTIFFImage } from 'geotiff';
import { LRUCache } from 'lru-cache';
import proj4 from 'proj4';
import './deflate-decoder';
import { type OpenRaster, openRaster } from './inspect';
import { type Block, type BlockLayout, blockLayout, decodeBlockBytes, readLayoutBlock } from './tile-blocks';

export type { Block } from './tile-blocks';

/** One resolution of the raster: the full image or one of its overviews, with its mask when it has one. */
export interface RasterLevel {
  image: GeoTIFFImage;
  mask?: GeoTIFFImage;
  /** How the image's and the mask's blocks are read directly; absent for layouts geotiff.js reads. */
  layout?: BlockLayout;
  maskLayout?: BlockLayout;
  width: number;
  height: number;
  blockWidth: number;
  blockHeight: number;
  /** Full-resolution pixels per pixel of this level, across and down. */
  factorX: number;
  factorY: number;
}

export interface TileRaster {
  /** Path, size, modification time and the reader's version: a file replaced in place is a new raster (and new ETags). */
  key: string;
  raster: OpenRaster;
  /** Full resolution first, then the overviews, finer to coarser. */
  levels: RasterLevel[];
  /** EPSG:3857 metres to the raster's CRS (proj4 forward). */
  fromMercator: (xy: [number, number]) => [number, number];
  /** The sample that is alpha, when one is. */
  alpha?: number;
  nodata?: number;
}

// Files stay open (a descriptor each) while in the cache; one closed on eviction may still be read by
// a tile under way, so the close waits a little.
const OPEN_FILES = 32;
const CLOSE_AFTER_MS = 30_000;
const BLOCK_CACHE_BYTES = 128 * 1024 * 1024;

/**
 * Part of every raster's key, and so of its tiles' ETags: bumped when blocks decode to other pixels
 * (2: multi-band DEFLATE with prediction drawn right, JPEG by libjpeg-turbo), so browsers drop old tiles.
 */
const READER_VERSION = 2;

const rasters = new LRUCache<string, Promise<TileRaster>>({
  max: OPEN_FILES,
  dispose: (opened) => {
    void opened.then((r) => setTimeout(() => void r.raster.tiff.close?.(), CLOSE_AFTER_MS).unref()).catch(() => undefined);
  },
});

/** The raster at `path`, opened once per version of the file; 422 (`raster_*`) for a file that is no usable GeoTIFF. */
export async function openTileRaster(path: string): Promise<TileRaster> {
  const key = await rasterKey(path);
  let opened = rasters.get(key);
  if (!opened) {
    opened = loadTileRaster(path, key);
    rasters.set(key, opened);
    // A failure is not kept: the next request tries again (the file may have been mid-write).
    opened.catch(() => rasters.delete(key));
  }
  return opened;
}

// A map asks for a screenful of tiles at once: the file's version is looked up once a second, not
// once a tile (a stat is a trip through libuv's threads, which the blocks are waiting for too).
const STAT_FOR_MS = 1000;
const keys = new LRUCache<string, Promise<string>>({ max: 1024, ttl: STAT_FOR_MS });

function rasterKey(path: string): Promise<string> {
  let key = keys.get(path);
  if (!key) {
    key = stat(path).then((s) => `${path}|${s.size}|${s.mtimeMs}|${READER_VERSION}`);
    keys.set(path, key);
    key.catch(() => keys.delete(path));
  }
  return key;
}

async function loadTileRaster(path: string, key: string): Promise<TileRaster> {
  const raster = await openRaster(path);
  const { tiff, image, info } = raster;
  const count = await tiff.getImageCount();
  const overviews: GeoTIFFImage[] = [];
  const masks: GeoTIFFImage[] = raster.mask ? [raster.mask] : [];
  for (let i = 1; i < count; i++) {
    const img = await tiff.getImage(i);
    const subfile = Number(img.getFileDirectory().getValue('NewSubfileType') ?? 0);
    if (subfile & 4) masks.push(img);
    else if (subfile & 1) overviews.push(img);
  }
  const level = async (img: GeoTIFFImage): Promise<RasterLevel> => {
    const mask = masks.find((m) => m.getWidth() === img.getWidth() && m.getHeight() === img.getHeight());
    const [layout, maskLayout] = await Promise.all([blockLayout(img), mask ? blockLayout(mask) : null]);
    return {
      image: img,
      ...(mask ? { mask } : {}),
      ...(layout ? { layout } : {}),
      ...(maskLayout ? { maskLayout } : {}),
      width: img.getWidth(),
      height: img.getHeight(),
      blockWidth: img.getTileWidth(),
      blockHeight: img.getTileHeight(),
      factorX: info.width / img.getWidth(),
      factorY: info.height / img.getHeight(),
    };
  };
  const levels = (await Promise.all([image, ...overviews].map(level))).sort((a, b) => a.factorX - b.factorX);
  const toRaster = proj4('EPSG:3857', info.crs.proj4);
  const alpha = raster.bandMeta.findIndex((b) => b.colorInterp === 'alpha');
  return {
    key,
    raster,
    levels,
    fromMercator: (xy) => toRaster.forward(xy) as [number, number],
    ...(alpha >= 0 ? { alpha } : {}),
    ...(info.nodata !== undefined && Number.isFinite(info.nodata) ? { nodata: info.nodata } : {}),
  };
}

const blocks = new LRUCache<string, Block, { read: () => Promise<Block> }>({
  maxSize: BLOCK_CACHE_BYTES,
  sizeCalculation: (b) => Math.max(1, (b.data as unknown as ArrayBufferView).byteLength ?? b.data.length * 8),
  fetchMethod: async (_key, _stale, { context }) => context.read(),
});

/**
 * Block (bx, by) of a level or its mask, decoded once and kept while memory allows; two requests for
 * the same block at once decode it once.
 */
export async function readBlock(raster: TileRaster, levelIndex: number, which: 'image' | 'mask', bx: number, by: number): Promise<Block> {
  const level = raster.levels[levelIndex]!;
  const image = which === 'mask' ? level.mask! : level.image;
  const layout = which === 'mask' ? level.maskLayout : level.layout;
  const read = () => (layout ? readLayoutBlock(image, layout, bx, by) : readWindow(image, level, bx, by));
  return (await blocks.fetch(blockKey(raster, levelIndex, which, bx, by), { context: { read } }))!;
}

/** Blocks this close in the file are read in one go: a COG lays a row's blocks (and their mask's) end to end. */
const MERGE_GAP_BYTES = 64 * 1024;

interface PendingBlock {
  key: string;
  layout: BlockLayout;
  bx: number;
  by: number;
  offset: number;
  length: number;
}

/**
 * The blocks of a window of a level, image and mask, row by row: those not cached are read with as
 * few file reads as their places in the file allow (a COG's row of blocks is one), then decoded at once.
 */
export async function readBlocks(raster: TileRaster, levelIndex: number, bx0: number, by0: number, across: number, down: number): Promise<{ data: Block[]; mask?: Block[] }> {
  const level = raster.levels[levelIndex]!;
  const whiches = level.mask ? (['image', 'mask'] as const) : (['image'] as const);
  const pending: PendingBlock[] = [];
  for (const which of whiches) {
    const layout = which === 'mask' ? level.maskLayout : level.layout;
    if (!layout) continue;
    for (let i = 0; i < across * down; i++) {
      const [bx, by] = [bx0 + (i % across), by0 + Math.floor(i / across)];
      const key = blockKey(raster, levelIndex, which, bx, by);
      const index = by * layout.across + bx;
      const length = Number(layout.byteCounts[index]);
      if (length && !blocks.has(key)) pending.push({ key, layout, bx, by, offset: Number(layout.offsets[index]), length });
    }
  }
  const stored = new Map(await readMerged(level.image, pending));
  const load = (which: 'image' | 'mask') =>
    Promise.all(
      Array.from({ length: across * down }, (_, i) => {
        const [bx, by] = [bx0 + (i % across), by0 + Math.floor(i / across)];
        const key = blockKey(raster, levelIndex, which, bx, by);
        const bytes = stored.get(key);
        const layout = which === 'mask' ? level.maskLayout : level.layout;
        if (!bytes || !layout) return readBlock(raster, levelIndex, which, bx, by);
        const height = Math.min(layout.blockHeight, layout.imageHeight - by * layout.blockHeight);
        return blocks.fetch(key, { context: { read: () => decodeBlockBytes(layout, bytes, layout.blockWidth, height) } }) as Promise<Block>;
      }),
    );
  const [data, mask] = await Promise.all([load('image'), level.mask ? load('mask') : undefined]);
  return { data, ...(mask ? { mask } : {}) };
}

/** Each pending block's stored bytes, read in runs of blocks lying close together in the file. */
async function readMerged(image: GeoTIFFImage, pending: PendingBlock[]): Promise<[string, Uint8Array][]> {
  const sorted = [...pending].sort((a, b) => a.offset - b.offset);
  const runs: PendingBlock[][] = [];
  for (const block of sorted) {
    const run = runs.at(-1);
    const last = run?.at(-1);
    if (run && last && block.offset - (last.offset + last.length) <= MERGE_GAP_BYTES && block.offset >= last.offset + last.length) run.push(block);
    else runs.push([block]);
  }
  const read = await Promise.all(
    runs.map(async (run) => {
      const start = run[0]!.offset;
      const end = run.at(-1)!.offset + run.at(-1)!.length;
      const [buffer] = await image.source.fetch([{ offset: start, length: end - start }]);
      return run.map((b): [string, Uint8Array] => [b.key, new Uint8Array(buffer!, b.offset - start, b.length)]);
    }),
  );
  return read.flat();
}

const blockKey = (raster: TileRaster, levelIndex: number, which: 'image' | 'mask', bx: number, by: number) => `${raster.key}|${levelIndex}|${which}|${bx}|${by}`;

const PHOTOMETRIC_YCBCR = 6;

async function readWindow(image: GeoTIFFImage, level: RasterLevel, bx: number, by: number): Promise<Block> {
  const x0 = bx * level.blockWidth;
  const y0 = by * level.blockHeight;
  const window = [x0, y0, Math.min(level.width, x0 + level.blockWidth), Math.min(level.height, y0 + level.blockHeight)];
  // A JPEG mosaic stored as YCbCr (the drone mosaic's COG) decodes to YCbCr samples: readRGB converts them.
  const ycbcr = Number(image.getFileDirectory().getValue('PhotometricInterpretation')) === PHOTOMETRIC_YCBCR;
  const data = (await (ycbcr ? image.readRGB({ window, interleave: true }) : image.readRasters({ window, interleave: true }))) as unknown as ArrayLike<number>;
  return { data, width: window[2]! - x0, height: window[3]! - y0 };
}

/** What the caches hold now (the bench reports it). */
export const tileCacheUse = () => ({ openFiles: rasters.size, blockBytes: blocks.calculatedSize, blockBudget: BLOCK_CACHE_BYTES });

/** Forgets every decoded block (the bench measures tiles from a cold cache this way). */
export const clearTileBlocks = () => blocks.clear();
