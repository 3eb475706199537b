// A TIFF's directory chain walked by hand before geotiff.js sees the file: geotiff follows a chain
// that points back to itself for ever, and allocates whatever count a tag declares. Here each
// directory is read once (a visited set), the chain is capped, and every tag's declared size is
// checked against the file's before anything is allocated. Reads only the directories themselves.
import { open, type FileHandle } from 'node:fs/promises';
import type { GeoTIFFImage } from 'geotiff';
import { unprocessable, unsupportedMediaType } from '@/lib/errors';

/** The most images (directories) a file may chain: a COG of a 200,000-pixel side has ~20 (overviews and masks). */
export const MAX_TIFF_IMAGES = 64;
/** The most tags one directory may declare: real files have 15-40. */
export const MAX_TIFF_TAGS = 512;

// Bytes per value of each TIFF field type (TIFF 6.0 and BigTIFF); any other type is refused, as geotiff.js would throw.
const TYPE_SIZE: Record<number, number> = { 1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4, 16: 8, 17: 8, 18: 8 };
const ROWS_PER_STRIP = 278;
const TILE_WIDTH = 322;
const TILE_LENGTH = 323;
const BLOCK_SIZE_TAGS = new Map([[ROWS_PER_STRIP, 'RowsPerStrip'], [TILE_WIDTH, 'TileWidth'], [TILE_LENGTH, 'TileLength']]);

export interface TiffStructure {
  bigTiff: boolean;
  /** The images in the chain, first to last (at most MAX_TIFF_IMAGES). */
  images: number;
}

interface Layout {
  little: boolean;
  big: boolean;
  fileSize: number;
}

/**
 * Checks a TIFF's header and directory chain: 415 `raster_not_tiff` for another kind of file, 422 for
 * a loop, a chain past MAX_TIFF_IMAGES, a directory or tag value outside the file, an unknown value
 * type, or a strip or tile size of 0.
 */
export async function checkTiffStructure(path: string): Promise<TiffStructure> {
  const fh = await open(path, 'r');
  try {
    const fileSize = (await fh.stat()).size;
    const header = await readAt(fh, 0, Math.min(16, fileSize));
    const order = header.subarray(0, 2).toString('latin1');
    if (header.length < 8 || (order !== 'II' && order !== 'MM')) throw unsupportedMediaType('raster_not_tiff');
    const little = order === 'II';
    const magic = little ? header.readUInt16LE(2) : header.readUInt16BE(2);
    if (magic !== 42 && magic !== 43) throw unsupportedMediaType('raster_not_tiff');
    const layout: Layout = { little, big: magic === 43, fileSize };
    if (layout.big && (header.length < 16 || uint(header, 4, 2, little) !== 8)) throw unprocessable('raster_corrupt');
    let next = layout.big ? uint(header, 8, 8, little) : uint(header, 4, 4, little);
    const visited = new Set<number>();
    let tagBytes = 0;
    while (next !== 0) {
      if (visited.has(next)) throw unprocessable('raster_image_loop');
      if (visited.size >= MAX_TIFF_IMAGES) throw unprocessable('raster_too_many_images', { max: MAX_TIFF_IMAGES });
      visited.add(next);
      const directory = await checkDirectory(fh, next, layout);
      tagBytes += directory.tagBytes;
      // Values lie in the file, mostly apart: their sum far past its size means counts were forged.
      if (tagBytes > 2 * fileSize) throw unprocessable('raster_tags_too_large', { bytes: tagBytes, size: fileSize });
      next = directory.next;
    }
    if (visited.size === 0) throw unprocessable('raster_corrupt');
    return { bigTiff: layout.big, images: visited.size };
  } finally {
    await fh.close();
  }
}

/** One directory: its entries inside the file, each value's declared size too; returns the next directory's offset. */
async function checkDirectory(fh: FileHandle, offset: number, { little, big, fileSize }: Layout): Promise<{ next: number; tagBytes: number }> {
  const countSize = big ? 8 : 2;
  const entrySize = big ? 20 : 12;
  const inline = big ? 8 : 4;
  if (offset + countSize > fileSize) throw unprocessable('raster_directory_outside');
  const count = uint(await readAt(fh, offset, countSize), 0, countSize, little);
  if (count === 0) throw unprocessable('raster_corrupt');
  if (count > MAX_TIFF_TAGS) throw unprocessable('raster_too_many_tags', { count, max: MAX_TIFF_TAGS });
  const length = count * entrySize + inline;
  if (offset + countSize + length > fileSize) throw unprocessable('raster_directory_outside');
  const entries = await readAt(fh, offset + countSize, length);
  let tagBytes = 0;
  for (let i = 0; i < count; i++) {
    const at = i * entrySize;
    const tag = uint(entries, at, 2, little);
    const type = uint(entries, at + 2, 2, little);
    const values = uint(entries, at + 4, big ? 8 : 4, little);
    const size = TYPE_SIZE[type];
    if (size === undefined) throw unprocessable('raster_tag_type_unknown', { tag, type });
    const bytes = values * size;
    if (bytes > inline) {
      const valueAt = uint(entries, at + (big ? 12 : 8), inline, little);
      if (valueAt + bytes > fileSize) throw unprocessable('raster_tag_outside', { tag, bytes });
      tagBytes += bytes;
    } else if (BLOCK_SIZE_TAGS.has(tag) && values >= 1) {
      // RowsPerStrip 0 (or a tile side of 0) gave geotiff.js a DataView error on every read.
      const first = uint(entries, at + (big ? 12 : 8), size, little);
      if (first === 0) throw unprocessable('raster_block_size_zero', { tag: BLOCK_SIZE_TAGS.get(tag)! });
    }
  }
  return { next: uint(entries, count * entrySize, inline, little), tagBytes };
}

async function readAt(fh: FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  const { bytesRead } = await fh.read(buf, 0, length, position);
  return buf.subarray(0, bytesRead);
}

/** An unsigned integer of 1, 2, 4 or 8 bytes; 8-byte values past 2^53 become Infinity, which fails every bound. */
function uint(buf: Buffer, at: number, size: number, little: boolean): number {
  if (at + size > buf.length) return Infinity;
  switch (size) {
    case 1:
      return buf[at]!;
    case 2:
      return little ? buf.readUInt16LE(at) : buf.readUInt16BE(at);
    case 4:
      return little ? buf.readUInt32LE(at) : buf.readUInt32BE(at);
    default: {
      const v = little ? buf.readBigUInt64LE(at) : buf.readBigUInt64BE(at);
      return v > BigInt(Number.MAX_SAFE_INTEGER) ? Infinity : Number(v);
    }
  }
}

/** Where an image's blocks (tiles or strips) lie in the file: offset and byte count of each, by number. */
export interface BlockTable {
  offsets: number[];
  counts: number[];
}

/** The image's block table as geotiff.js reads it, or undefined when the tags are missing or disagree in length. */
export async function blockTable(image: GeoTIFFImage): Promise<BlockTable | undefined> {
  const fd = image.getFileDirectory();
  const load = async (tag: 'TileOffsets' | 'StripOffsets' | 'TileByteCounts' | 'StripByteCounts') => {
    const v = (await fd.loadValue(tag)) as ArrayLike<number> | number | undefined;
    return v === undefined ? undefined : typeof v === 'number' ? [v] : Array.from(v, Number);
  };
  const offsets = await load(image.isTiled ? 'TileOffsets' : 'StripOffsets');
  const counts = await load(image.isTiled ? 'TileByteCounts' : 'StripByteCounts');
  return offsets && counts && offsets.length === counts.length ? { offsets, counts } : undefined;
}

/** Where the table's last byte ends: past the file's size, the file was cut short. */
export const blocksEnd = ({ offsets, counts }: BlockTable) => offsets.reduce((end, o, i) => Math.max(end, o + counts[i]!), 0);
