// Opening and validating a GeoTIFF before any work is queued: magic bytes, structure, size,
// compression, colour map, georeferencing. Everything here reads only the header and tag arrays,
// and only once the directory chain has been walked and bounded (tiff-structure.ts).
import { stat } from 'node:fs/promises';
import { fromFile, type GeoTIFF, type GeoTIFFImage } from 'geotiff';
import type { Polygon, Position } from 'geojson';
import { AppError, unprocessable } from '@/lib/errors';
import { exifDateTime } from '@/lib/exif-date';
import { crsForLocation } from '@/lib/geo/prj';
import { converters, crsFromGeoKeys, isGeographic, type Crs } from './crs';
import { blocksEnd, blockTable, checkTiffStructure } from './tiff-structure';

export interface RasterInfo {
  width: number;
  height: number;
  bands: number;
  crs: Crs;
  /** The raster's extent reprojected to WGS84 (edges densified). */
  footprintWgs84: Polygon;
  /** Pixel size in metres (at the raster's centre for geographic CRSs). */
  pixelSizeM: number;
  /** ISO local date-time from the TIFF DateTime tag. */
  capturedAt?: string;
  /** Band descriptions from GDAL metadata, when every band has one. */
  bandNames?: string[];
  nodata?: number;
}

/** Pixel (column, row) -> map coordinates: x = a + col*b + row*c, y = d + col*e + row*f. */
export type GeoTransform = [number, number, number, number, number, number];

export interface OpenRaster {
  info: RasterInfo;
  tiff: GeoTIFF;
  image: GeoTIFFImage;
  /** The internal GDAL mask (NewSubfileType 4, full resolution), when present. */
  mask?: GeoTIFFImage;
  transform: GeoTransform;
  /** Per-band scale/offset and colour interpretation from GDAL metadata. */
  bandMeta: Array<{ scale?: number; offset?: number; colorInterp?: string; description?: string }>;
  sampleFormat: number;
  bitsPerSample: number;
}

// A 1 GB upload of 1-byte pixels holds at most ~1e9 pixels; anything far beyond is a forged header.
const MAX_PIXELS = 2_000_000_000;
const MAX_SIDE = 200_000;
const MAX_BANDS = 32;
/**
 * Decoded bytes a file's stored blocks may declare: any ratio up to ANY_RATIO_BYTES, beyond it at
 * most MAX_DECODED_RATIO times the bytes they hold. No block of these compressions decodes to more:
 * PackBits 64:1, baseline JPEG a few hundred, DEFLATE 1,032, LZW about 1,360 (its table restarts
 * every 4,094 codes). So only a file built to expand goes past, as when every tile points at one copy.
 * ZSTD has no such bound: libzstd itself stores a block of one value as a run (GDAL's all-nodata
 * tiles reach 5,000-21,000:1), so a ZSTD file is bounded by MAX_PIXELS and the task's time limit alone.
 */
const ANY_RATIO_BYTES = 256 * 2 ** 20;
const MAX_DECODED_RATIO = 1500;
const ZSTD = 50000;
const SUPPORTED_COMPRESSION = new Map<number, string>([
  [1, 'none'], [5, 'LZW'], [7, 'JPEG'], [8, 'Deflate'], [32946, 'Deflate'], [32773, 'PackBits'], [ZSTD, 'ZSTD'],
]);

/** Validates the file and returns what the upload route needs to pick a field and queue a task. */
export async function inspectRaster(path: string): Promise<RasterInfo> {
  const raster = await openRaster(path);
  await raster.tiff.close?.();
  return raster.info;
}

/** Opens a GeoTIFF for reading; throws 415 for non-TIFFs and 422 (`raster_*`) for anything unusable. */
export async function openRaster(path: string): Promise<OpenRaster> {
  // Before geotiff.js: it follows a looping directory chain for ever and allocates what a tag declares.
  await checkTiffStructure(path);
  const fileSize = (await stat(path)).size;
  const { tiff, image } = await openFirstImage(path);
  try {
    const { width, height, bands, sampleFormat, bitsPerSample } = await checkImage(image, fileSize);
    const { info, transform, bandMeta } = await describeRaster(image, width, height, bands);
    await checkOtherImages(tiff, fileSize);
    return { info, tiff, image, mask: await findMask(tiff, width, height), transform, bandMeta, sampleFormat, bitsPerSample };
  } catch (err) {
    await tiff.close?.();
    throw err instanceof AppError ? err : unreadable(err);
  }
}

/** The file and its first image as geotiff.js reads them; its failure is the file's (422 `raster_corrupt`). */
async function openFirstImage(path: string): Promise<{ tiff: GeoTIFF; image: GeoTIFFImage }> {
  try {
    const tiff = await fromFile(path);
    return { tiff, image: await tiff.getImage(0) };
  } catch (err) {
    throw unreadable(err);
  }
}

/** The image's size, bands and sample type, once each is one this service reads (422 `raster_*` otherwise). */
async function checkImage(image: GeoTIFFImage, fileSize: number) {
  const fd = image.getFileDirectory();
  const width = image.getWidth();
  const height = image.getHeight();
  const bands = image.getSamplesPerPixel();
  if (!(width > 0 && height > 0 && bands > 0)) throw unprocessable('raster_empty');
  if (width > MAX_SIDE || height > MAX_SIDE || width * height > MAX_PIXELS || bands > MAX_BANDS) {
    throw unprocessable('raster_too_large', { width, height, bands });
  }
  const compression = Number(fd.getValue('Compression') ?? 1);
  if (!SUPPORTED_COMPRESSION.has(compression)) throw unprocessable('raster_compression_unsupported', { code: compression });
  checkColorMap(image);
  const bitsPerSample = image.getBitsPerSample(0);
  const sampleFormat = image.getSampleFormat(0);
  if (![1, 2, 3].includes(sampleFormat) || ![8, 16, 32, 64].includes(bitsPerSample)) {
    throw unprocessable('raster_sample_format_unsupported', { format: sampleFormat, bits: bitsPerSample });
  }
  await checkBlocks(image, fileSize);
  return { width, height, bands, sampleFormat, bitsPerSample };
}

/** Where the raster lies (transform, CRS, footprint, pixel size) and what its tags say of it and its bands. */
async function describeRaster(image: GeoTIFFImage, width: number, height: number, bands: number) {
  const transform = geoTransform(image);
  // The datum shift that suits where the raster lies (S-JTSK in Slovakia or Czechia, Pulkovo in Russia), as for shapefiles.
  const crs = crsForLocation(crsFromGeoKeys(image.getGeoKeys()), pixelToMap(transform, width / 2, height / 2));
  const bandMeta = await readBandMeta(image, bands);
  const nodataTag = image.getGDALNoData();
  const info: RasterInfo = {
    width,
    height,
    bands,
    crs,
    footprintWgs84: footprint(transform, width, height, crs),
    pixelSizeM: pixelSizeMetres(transform, width, height, crs),
    ...optional('capturedAt', await captureDate(image)),
    ...optional('bandNames', bandMeta.every((b) => b.description) ? bandMeta.map((b) => b.description!) : undefined),
    ...optional('nodata', nodataTag ?? undefined),
  };
  return { info, transform, bandMeta };
}

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

/**
 * Reads pixel blocks; the library's failure on a damaged strip or tile is the file's fault, 422
 * `raster_corrupt`: a task fails with it once, where an untyped error was retried as a crash (three times).
 */
export async function readBlocks<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    throw err instanceof AppError ? err : unreadable(err);
  }
}

/** A library's failure as our own message: its text ("Offset is outside the bounds of the DataView") tells a user nothing. */
function unreadable(err: unknown): AppError {
  const detail = err instanceof Error ? err.message.slice(0, 200) : String(err);
  return unprocessable('raster_corrupt', { detail });
}

/**
 * Every tile/strip must lie inside the file and decode to no more than a raster compresses to: a
 * cut-off upload, or a few kilobytes declaring gigabytes of pixels, fails here rather than halfway
 * through a task (docs/hostile-input.md).
 */
async function checkBlocks(image: GeoTIFFImage, fileSize: number): Promise<void> {
  const table = await blockTable(image);
  if (!table) throw unprocessable('raster_blocks_missing');
  const { offsets, counts } = table;
  const across = Math.ceil(image.getWidth() / image.getTileWidth());
  const down = Math.ceil(image.getHeight() / image.getTileHeight());
  const perPlane = across * down;
  const planes = image.planarConfiguration === 2 ? image.getSamplesPerPixel() : 1;
  if (offsets.length < perPlane * planes) throw unprocessable('raster_blocks_missing');
  const end = blocksEnd(table);
  const rowsOf = blockRows(image, perPlane);
  let stored = 0, presentRows = 0;
  for (let i = 0; i < counts.length; i++) {
    stored += counts[i]!;
    if (counts[i]! > 0) presentRows += rowsOf(i);
  }
  if (end > fileSize) throw unprocessable('raster_truncated', { expected: end, actual: fileSize });
  // Blocks may share their bytes (a writer storing one copy of a repeated tile), so what they hold
  // apart is at most the file: a bomb points every tile at one small copy.
  const held = Math.min(stored, fileSize);
  const declared = presentRows * rowBytes(image, planes);
  const bounded = Number(image.getFileDirectory().getValue('Compression') ?? 1) !== ZSTD;
  if (bounded && declared > Math.max(ANY_RATIO_BYTES, MAX_DECODED_RATIO * held)) {
    throw unprocessable('raster_too_compressed', { declaredMb: Math.round(declared / 1e6), storedMb: Math.max(0.01, Math.round(held / 1e4) / 100) });
  }
}

/** The overviews and masks map tiles read: each inside the file and within the same bound as the image. */
async function checkOtherImages(tiff: GeoTIFF, fileSize: number): Promise<void> {
  const count = await tiff.getImageCount();
  for (let i = 1; i < count; i++) await checkBlocks(await tiff.getImage(i), fileSize);
}

/** Rows block i decodes to: a whole tile, or a strip (the last one of each band cut to the image). */
function blockRows(image: GeoTIFFImage, perPlane: number): (i: number) => number {
  const tileHeight = image.getTileHeight(), height = image.getHeight();
  return image.isTiled ? () => tileHeight : (i) => Math.max(0, Math.min(tileHeight, height - (i % perPlane) * tileHeight));
}

/** Bytes a row of one block decodes to (one band's when the bands lie apart). */
function rowBytes(image: GeoTIFFImage, planes: number): number {
  let bits = 0;
  for (let s = 0; s < (planes > 1 ? 1 : image.getSamplesPerPixel()); s++) bits += image.getBitsPerSample(s);
  return (image.getTileWidth() * bits) / 8;
}

function checkColorMap(image: GeoTIFFImage): void {
  const fd = image.getFileDirectory();
  if (!fd.hasTag('ColorMap')) return;
  // Read only the declared count: a forged colour map may be far too big to load.
  const length = fd.deferredArrays.get(320)?.length ?? (fd.actualizedFields.get(320) as ArrayLike<number> | undefined)?.length ?? 0;
  const allowed = 3 * 2 ** Math.min(16, image.getBitsPerSample(0));
  if (length > allowed) throw unprocessable('raster_colormap_too_large', { entries: length });
}

/** Affine transform from ModelTransformation or tie point + pixel scale, corrected for PixelIsPoint. */
export function geoTransform(image: GeoTIFFImage): GeoTransform {
  const fd = image.getFileDirectory();
  const m = fd.getValue('ModelTransformation') as ArrayLike<number> | undefined;
  let t: GeoTransform;
  if (m && m.length >= 16) {
    t = [m[3]!, m[0]!, m[1]!, m[7]!, m[4]!, m[5]!];
  } else {
    const tie = fd.getValue('ModelTiepoint') as ArrayLike<number> | undefined;
    const scale = fd.getValue('ModelPixelScale') as ArrayLike<number> | undefined;
    if (!tie || !scale || tie.length < 6 || scale.length < 2) throw unprocessable('raster_no_crs');
    t = [tie[3]! - tie[0]! * scale[0]!, scale[0]!, 0, tie[4]! + tie[1]! * scale[1]!, 0, -scale[1]!];
  }
  if (Number(image.getGeoKeys()?.GTRasterTypeGeoKey) === 2) {
    // PixelIsPoint: the tie point is a pixel centre; move to its corner like GDAL does.
    t = [t[0] - 0.5 * (t[1] + t[2]), t[1], t[2], t[3] - 0.5 * (t[4] + t[5]), t[4], t[5]];
  }
  if (![t[0], t[1], t[3], t[5]].every(Number.isFinite) || t[1] * t[5] - t[2] * t[4] === 0) {
    throw unprocessable('raster_no_crs');
  }
  return t;
}

export const pixelToMap = (t: GeoTransform, col: number, row: number): [number, number] => [
  t[0] + col * t[1] + row * t[2],
  t[3] + col * t[4] + row * t[5],
];

export function mapToPixel(t: GeoTransform, x: number, y: number): [number, number] {
  const det = t[1] * t[5] - t[2] * t[4];
  const dx = x - t[0];
  const dy = y - t[3];
  return [(dx * t[5] - dy * t[2]) / det, (dy * t[1] - dx * t[4]) / det];
}

function footprint(t: GeoTransform, width: number, height: number, crs: Crs): Polygon {
  const { toWgs84 } = converters(crs);
  const steps = 16;
  const ring: Position[] = [];
  const corners: Array<[number, number]> = [[0, 0], [0, height], [width, height], [width, 0]];
  for (let i = 0; i < 4; i++) {
    const [c0, r0] = corners[i]!;
    const [c1, r1] = corners[(i + 1) % 4]!;
    for (let s = 0; s < steps; s++) {
      const f = s / steps;
      ring.push(toWgs84(pixelToMap(t, c0 + (c1 - c0) * f, r0 + (r1 - r0) * f)));
    }
  }
  ring.push(ring[0]!);
  // Rows run down the image, so this ring is counter-clockwise on the map whenever north is up.
  return { type: 'Polygon', coordinates: [ring] };
}

function pixelSizeMetres(t: GeoTransform, width: number, height: number, crs: Crs): number {
  const sx = Math.hypot(t[1], t[4]);
  const sy = Math.hypot(t[2], t[5]);
  if (!isGeographic(crs)) return Math.sqrt(sx * sy);
  const [, lat] = pixelToMap(t, width / 2, height / 2);
  const mPerDegLat = 111_320;
  return Math.sqrt(sx * mPerDegLat * Math.cos((lat * Math.PI) / 180) * sy * mPerDegLat);
}

/** The TIFF DateTime tag as ISO local text; none when absent or not a date that exists (9999:99:99 99:99:99). */
async function captureDate(image: GeoTIFFImage): Promise<string | undefined> {
  const raw: unknown = await image.getFileDirectory().loadValue('DateTime');
  return (typeof raw === 'string' && exifDateTime(raw)?.local) || undefined;
}

async function readBandMeta(image: GeoTIFFImage, bands: number): Promise<OpenRaster['bandMeta']> {
  const directory = image.getFileDirectory();
  const meta: OpenRaster['bandMeta'] = Array.from({ length: bands }, () => ({}));
  // TIFF's own alpha: the last samples, as ExtraSamples counts them, 1 (premultiplied) or 2 being
  // alpha. GDAL writes an alpha band this way (gdalwarp -dstalpha), not in its metadata.
  const extra: unknown = directory.hasTag('ExtraSamples') ? await directory.loadValue('ExtraSamples') : undefined;
  const extras = typeof extra === 'number' ? [extra] : Array.isArray(extra) || ArrayBuffer.isView(extra) ? Array.from(extra as ArrayLike<number>) : [];
  extras.forEach((kind, k) => {
    const band = meta[bands - extras.length + k];
    if (band && (kind === 1 || kind === 2)) band.colorInterp = 'alpha';
  });
  const xml: unknown = await directory.loadValue('GDAL_METADATA');
  if (typeof xml !== 'string') return meta;
  const item = /<Item([^>]*)>([^<]*)<\/Item>/g;
  for (const [, attrs, value] of xml.matchAll(item)) {
    const sample = /sample="(\d+)"/.exec(attrs!)?.[1];
    const role = /role="([^"]+)"/.exec(attrs!)?.[1];
    const band = sample === undefined ? undefined : meta[Number(sample)];
    if (!band || !role) continue;
    const text = decodeXml(value!.trim());
    if (role === 'scale' && Number.isFinite(Number(text))) band.scale = Number(text);
    else if (role === 'offset' && Number.isFinite(Number(text))) band.offset = Number(text);
    else if (role === 'colorinterp') band.colorInterp = text.toLowerCase();
    else if (role === 'description' && text) band.description = text;
  }
  return meta;
}

const decodeXml = (s: string) =>
  s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');

/** GDAL writes an internal nodata mask as a later IFD with NewSubfileType bit 4 at full size. */
async function findMask(tiff: GeoTIFF, width: number, height: number): Promise<GeoTIFFImage | undefined> {
  const count = await tiff.getImageCount();
  for (let i = 1; i < count; i++) {
    const img = await tiff.getImage(i);
    const subfile = Number(img.getFileDirectory().getValue('NewSubfileType') ?? 0);
    if ((subfile & 4) !== 0 && img.getWidth() === width && img.getHeight() === height) return img;
  }
  return undefined;
}
