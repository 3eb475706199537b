// Blocks of a tiled (or stripped) GeoTIFF level read and decoded for map tiles without geotiff.js's
// per-block path: the block offsets are loaded once per level, a block is one file read, DEFLATE is
// inflated by Node's zlib and JPEG by libjpeg-turbo (sharp), both on libuv's threads, and the TIFF
// predictor is undone over all samples of a pixel. Layouts this does not cover return null, and the
// caller reads them through geotiff.js.
import { promisify } from 'node:util';
import { inflate } from 'node:zlib';
import type { GeoTIFFImage } from 'geotiff';
import sharp from 'sharp';

const inflateAsync = promisify(inflate);

/** How one level's (or mask's) blocks lie in the file and how they decode, read once when the file is opened. */
export interface BlockLayout {
  blockWidth: number;
  blockHeight: number;
  /** Blocks per row of blocks. */
  across: number;
  /** Rows of the image: a last strip may hold fewer than blockHeight. */
  imageHeight: number;
  offsets: ArrayLike<number>;
  byteCounts: ArrayLike<number>;
  codec: 'raw' | 'deflate' | 'jpeg' | 'bits';
  predictor: 1 | 2 | 3;
  samples: number;
  bytesPerSample: number;
  sampleFormat: number;
  jpegTables?: Uint8Array;
}

/** A decoded block: its samples interleaved pixel by pixel, `width` x `height` pixels. */
export interface Block {
  data: ArrayLike<number>;
  width: number;
  height: number;
}

const TYPED: Record<string, new (buffer: ArrayBufferLike, offset?: number, length?: number) => ArrayLike<number>> = {
  '1/8': Uint8Array, '1/16': Uint16Array, '1/32': Uint32Array, '2/8': Int8Array, '2/16': Int16Array, '2/32': Int32Array, '3/32': Float32Array, '3/64': Float64Array,
};
const COMPRESSION_NONE = 1;
const COMPRESSION_JPEG = 7;
const DEFLATE = [8, 32946];
const PHOTOMETRIC = { minIsBlack: 1, rgb: 2, ycbcr: 6 };

/**
 * The layout of an image's blocks, or null when they are not ones this module decodes: planar
 * separate, mixed sample sizes, big-endian wider samples, old-style JPEG, LZW and the like.
 */
export async function blockLayout(image: GeoTIFFImage): Promise<BlockLayout | null> {
  const fd = image.getFileDirectory();
  const compression = Number(fd.getValue('Compression') ?? COMPRESSION_NONE);
  const samples = image.getSamplesPerPixel();
  const bits = image.getBitsPerSample(0);
  const sameBits = Array.from({ length: samples }, (_, i) => image.getBitsPerSample(i)).every((b) => b === bits);
  const predictor = Number((await fd.loadValue('Predictor')) ?? 1);
  const photometric = Number(fd.getValue('PhotometricInterpretation') ?? PHOTOMETRIC.minIsBlack);
  if (!sameBits || (samples > 1 && image.planarConfiguration !== 1) || ![1, 2, 3].includes(predictor)) return null;
  let codec: BlockLayout['codec'] | null = null;
  if (bits === 1 && samples === 1 && predictor === 1 && (compression === COMPRESSION_NONE || DEFLATE.includes(compression))) codec = 'bits';
  else if (compression === COMPRESSION_JPEG) {
    const jpegOk = bits === 8 && predictor === 1 && ((samples === 3 && [PHOTOMETRIC.rgb, PHOTOMETRIC.ycbcr].includes(photometric)) || (samples === 1 && photometric === PHOTOMETRIC.minIsBlack));
    codec = jpegOk ? 'jpeg' : null;
  } else if (`${image.getSampleFormat(0)}/${bits}` in TYPED && (bits === 8 || image.littleEndian)) {
    if (compression === COMPRESSION_NONE) codec = 'raw';
    else if (DEFLATE.includes(compression)) codec = 'deflate';
  }
  if (!codec) return null;
  const tiled = image.isTiled;
  const offsets = (await fd.loadValue(tiled ? 'TileOffsets' : 'StripOffsets')) as ArrayLike<number> | undefined;
  const byteCounts = (await fd.loadValue(tiled ? 'TileByteCounts' : 'StripByteCounts')) as ArrayLike<number> | undefined;
  if (!offsets || !byteCounts) return null;
  const tables = compression === COMPRESSION_JPEG ? (fd.getValue('JPEGTables') as ArrayLike<number> | undefined) : undefined;
  return {
    blockWidth: image.getTileWidth(),
    blockHeight: image.getTileHeight(),
    across: Math.ceil(image.getWidth() / image.getTileWidth()),
    imageHeight: image.getHeight(),
    offsets,
    byteCounts,
    codec,
    predictor: predictor as 1 | 2 | 3,
    samples,
    bytesPerSample: bits / 8,
    sampleFormat: image.getSampleFormat(0),
    ...(tables ? { jpegTables: Uint8Array.from(tables) } : {}),
  };
}

/** Block (bx, by) of the layout, read from `image`'s file and decoded. */
export async function readLayoutBlock(image: GeoTIFFImage, layout: BlockLayout, bx: number, by: number): Promise<Block> {
  const index = by * layout.across + bx;
  const offset = Number(layout.offsets[index]);
  const length = Number(layout.byteCounts[index]);
  const width = layout.blockWidth;
  const height = Math.min(layout.blockHeight, layout.imageHeight - by * layout.blockHeight);
  // A block never written (GDAL's sparse files) holds zeros.
  if (!length) return { data: new (typedOf(layout))(new ArrayBuffer(width * height * layout.samples * Math.max(1, layout.bytesPerSample))), width, height };
  const [bytes] = await image.source.fetch([{ offset, length }]);
  return decodeBlockBytes(layout, new Uint8Array(bytes!), width, height);
}

/** A block's stored bytes decoded to its samples (exported for tests of odd layouts). */
export async function decodeBlockBytes(layout: BlockLayout, stored: Uint8Array, width: number, height: number): Promise<Block> {
  if (layout.codec === 'jpeg') return decodeJpeg(layout, stored, width, height);
  const bytes = layout.codec === 'raw' ? stored : ownBytes(await inflateAsync(stored));
  if (layout.codec === 'bits') return { data: unpackBits(bytes, width, height), width, height };
  const rowBytes = width * layout.samples * layout.bytesPerSample;
  if (layout.predictor === 2) undoHorizontal(bytes, layout, rowBytes, height);
  if (layout.predictor === 3) undoFloatingPoint(bytes, layout, rowBytes, height);
  const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes.buffer : bytes.slice().buffer;
  return { data: new (typedOf(layout))(own, 0, Math.floor(Math.min(own.byteLength, rowBytes * height) / layout.bytesPerSample)), width, height };
}

/** The inflated bytes as a view that owns its whole buffer (zlib hands out one for large outputs; else a copy), so typed views of any width fit it. */
const ownBytes = (b: Buffer) => (b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? new Uint8Array(b.buffer, 0, b.byteLength) : new Uint8Array(b));

const typedOf = (layout: BlockLayout) => (layout.codec === 'bits' || layout.codec === 'jpeg' ? Uint8Array : TYPED[`${layout.sampleFormat}/${layout.bytesPerSample * 8}`]!);

/** 1-bit samples (a GDAL mask, 1 = data), each row starting on a byte, as one byte (0 or 1) a pixel. */
function unpackBits(packed: Uint8Array, width: number, height: number): Uint8Array {
  const out = new Uint8Array(width * height);
  const rowBytes = Math.ceil(width / 8);
  for (let r = 0; r < height; r++) {
    for (let c = 0; c < width; c++) out[r * width + c] = (packed[r * rowBytes + (c >> 3)]! >> (7 - (c & 7))) & 1;
  }
  return out;
}

/** TIFF predictor 2: each sample is stored as the difference from the same sample of the pixel before. */
function undoHorizontal(bytes: Uint8Array, layout: BlockLayout, rowBytes: number, height: number): void {
  const stride = layout.samples;
  const n = layout.bytesPerSample;
  const rows = Math.min(height, Math.floor(bytes.byteLength / rowBytes));
  if (n === 1 && stride === 4 && bytes.byteOffset % 4 === 0) return undoHorizontalFourBytes(bytes, rowBytes, rows);
  const words = n === 1 ? bytes : n === 2 ? new Uint16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 1) : new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 2);
  const rowWords = rowBytes / n;
  for (let r = 0; r < rows; r++) {
    const start = r * rowWords;
    for (let i = start + stride; i < start + rowWords; i++) words[i] = words[i]! + words[i - stride]!;
  }
}

/**
 * Predictor 2 over pixels of four byte samples (RGBA, the commonest multi-band layout): a pixel's four
 * sums at once in one 32-bit word, each byte wrapping on its own (the low seven bits added, the top
 * bit by XOR, so no carry crosses into the next sample).
 */
function undoHorizontalFourBytes(bytes: Uint8Array, rowBytes: number, rows: number): void {
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset, (rows * rowBytes) >> 2);
  const rowWords = rowBytes >> 2;
  for (let r = 0; r < rows; r++) {
    const start = r * rowWords;
    let previous = words[start]!;
    for (let i = start + 1; i < start + rowWords; i++) {
      const a = words[i]!;
      previous = (((a & 0x7f7f7f7f) + (previous & 0x7f7f7f7f)) ^ ((a ^ previous) & 0x80808080)) >>> 0;
      words[i] = previous;
    }
  }
}

/**
 * TIFF predictor 3 (floating point): each row holds the bytes of its values split by significance
 * (most significant of every value first), differenced byte by byte across samples.
 */
function undoFloatingPoint(bytes: Uint8Array, layout: BlockLayout, rowBytes: number, height: number): void {
  const stride = layout.samples;
  const n = layout.bytesPerSample;
  const values = rowBytes / n;
  const row = new Uint8Array(rowBytes);
  const rows = Math.min(height, Math.floor(bytes.byteLength / rowBytes));
  for (let r = 0; r < rows; r++) {
    const start = r * rowBytes;
    for (let i = start + stride; i < start + rowBytes; i++) bytes[i] = (bytes[i]! + bytes[i - stride]!) & 0xff;
    row.set(bytes.subarray(start, start + rowBytes));
    // Little-endian values: the most significant plane (first in the row) is each value's last byte.
    for (let v = 0; v < values; v++) for (let b = 0; b < n; b++) bytes[start + v * n + b] = row[(n - b - 1) * values + v]!;
  }
}

/**
 * A TIFF JPEG block is an abbreviated stream whose tables lie in the JPEGTables tag: spliced together
 * they are a whole JPEG, which libjpeg-turbo decodes to RGB (from YCbCr, as GDAL writes mosaics) or grey.
 */
async function decodeJpeg(layout: BlockLayout, stored: Uint8Array, width: number, height: number): Promise<Block> {
  const tables = layout.jpegTables;
  // Tables end with EOI (FF D9) and the block starts with SOI (FF D8): both dropped where they meet.
  const whole = tables && tables.length > 4 ? Buffer.concat([tables.subarray(0, tables.length - 2), stored.subarray(2)]) : Buffer.from(stored);
  // Sequential: libvips decodes the block top to bottom once, without its random-access set-up (a third less CPU a block).
  const { data, info } = await sharp(whole, { sequentialRead: true }).raw().toBuffer({ resolveWithObject: true });
  if (info.channels === layout.samples && info.width === width && info.height >= height) return { data: new Uint8Array(data.buffer, data.byteOffset, width * height * layout.samples), width, height };
  throw new Error(`JPEG block decoded to ${info.width} x ${info.height} x ${info.channels}, expected ${width} x ${height} x ${layout.samples}`);
}
