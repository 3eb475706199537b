// Validation before any task is queued: real GeoTIFFs pass with their georeferencing, broken ones
// (made here byte by byte) fail with the right status and reason.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { booleanPointInPolygon } from '@turf/turf';
import { describe, expect, it } from 'vitest';
import { AppError } from '@/lib/errors';
import { HTTP_STATUS } from '@/lib/http/errors';
import sharp from 'sharp';
import { converters } from '@/lib/raster/crs';
import { indexPlan } from '@/lib/raster/bands';
import { inspectRaster } from '@/lib/raster/inspect';
import type { IndexName } from '@/lib/raster/bands';
import { computeZones, inspectIndexRaster } from '@/lib/raster/zones';
import { missingShared, sharedPath } from '@/tests/helpers/shared-data';
import { allNodataIndexTiff, tiffBytes, type TiffSpec } from '@/tests/helpers/tiff';

const dir = mkdtempSync(join(tmpdir(), 'raster-inspect-'));

function writeTiff(name: string, spec: TiffSpec): string {
  const path = join(dir, name);
  writeFileSync(path, tiffBytes(spec));
  return path;
}

async function failure(promise: Promise<unknown>): Promise<AppError> {
  const err = await promise.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

describe('inspectRaster on real files', () => {
  const naip = ['raster', 'naip', 'm_4709963_se_14_1_20190904.tif'];
  const landsat = ['raster', 'landsat', '2020.tif'];
  const drone = ['raster', 'plantcv', '615.tif'];
  const skip = missingShared(...naip) ?? missingShared(...landsat) ?? missingShared(...drone);
  if (skip) console.warn(skip);

  it.skipIf(skip)('NAIP: UTM 14N, 4 bands, 5 m, nodata 0, footprint around gdalinfo corners', async () => {
    const info = await inspectRaster(sharedPath(...naip));
    expect(info).toMatchObject({ width: 934, height: 723, bands: 4, crs: { epsg: 26914 }, nodata: 0 });
    expect(info.crs.proj4).toContain('+zone=14');
    expect(info.pixelSizeM).toBeCloseTo(5, 6);
    // gdalinfo: upper left 99d11'8.17"W 47d2'11.69"N; centre 99d9'17.36"W 47d1'13.30"N.
    const ul = info.footprintWgs84.coordinates[0]![0]!;
    expect(ul[0]).toBeCloseTo(-(99 + 11 / 60 + 8.17 / 3600), 4);
    expect(ul[1]).toBeCloseTo(47 + 2 / 60 + 11.69 / 3600, 4);
    expect(booleanPointInPolygon([-(99 + 9 / 60 + 17.36 / 3600), 47 + 1 / 60 + 13.3 / 3600], info.footprintWgs84)).toBe(true);
  });

  it.skipIf(skip)('Landsat: EPSG:4326 from ModelTransformation, north up despite the malformed tags', async () => {
    const info = await inspectRaster(sharedPath(...landsat));
    expect(info).toMatchObject({ width: 697, height: 377, bands: 4, crs: { epsg: 4326 } });
    const lats = info.footprintWgs84.coordinates[0]!.map((p) => p[1]!);
    expect(Math.max(...lats)).toBeCloseTo(-8.2821076, 5);
    expect(Math.min(...lats)).toBeCloseTo(-8.586906, 5);
    expect(info.pixelSizeM).toBeGreaterThan(85);
    expect(info.pixelSizeM).toBeLessThan(95);
  });

  it.skipIf(skip)('drone clip: float32, 5 bands, nodata -10000, centimetre pixels', async () => {
    const info = await inspectRaster(sharedPath(...drone));
    expect(info).toMatchObject({ width: 161, height: 177, bands: 5, crs: { epsg: 32615 }, nodata: -10000 });
    expect(info.pixelSizeM).toBeCloseTo(0.0355, 3);
  });

  it.skipIf(skip)('a truncated copy answers 422 raster_truncated', async () => {
    const path = join(dir, 'truncated.tif');
    copyFileSync(sharedPath(...naip), path);
    const bytes = readFileSync(path);
    writeFileSync(path, bytes.subarray(0, Math.floor(bytes.length / 2)));
    const err = await failure(inspectRaster(path));
    expect([err.key, HTTP_STATUS[err.kind]]).toEqual(['raster_truncated', 422]);
  });
});

describe('inspectRaster on broken files', () => {
  it('a file that is not a TIFF answers 415 raster_not_tiff', async () => {
    const path = join(dir, 'not.tif');
    writeFileSync(path, '\x89PNG\r\n\x1a\nthis is not a tiff');
    const err = await failure(inspectRaster(path));
    expect([err.key, HTTP_STATUS[err.kind]]).toEqual(['raster_not_tiff', 415]);
  });

  it('a TIFF header cut off after the magic answers 422 raster_directory_outside', async () => {
    const path = join(dir, 'stub.tif');
    writeFileSync(path, Buffer.from([0x49, 0x49, 42, 0, 8, 0, 0, 0, 12]));
    const err = await failure(inspectRaster(path));
    expect([err.key, HTTP_STATUS[err.kind]]).toEqual(['raster_directory_outside', 422]);
  });

  it('a TIFF without georeferencing answers 422 raster_no_crs', async () => {
    const err = await failure(inspectRaster(writeTiff('nocrs.tif', { width: 4, height: 3 })));
    expect([err.key, HTTP_STATUS[err.kind]]).toEqual(['raster_no_crs', 422]);
  });

  it('a TIFF declaring 100000 x 100000 pixels answers 422 raster_too_large', async () => {
    const path = writeTiff('huge.tif', { width: 100_000, height: 100_000, pixels: new Float32Array(4), georef: { epsg: 32615, origin: [720000, 4303000], pixel: 1 } });
    const err = await failure(inspectRaster(path));
    expect([err.key, HTTP_STATUS[err.kind]]).toEqual(['raster_too_large', 422]);
  });

  it('an unsupported compression answers 422 raster_compression_unsupported', async () => {
    const err = await failure(inspectRaster(writeTiff('ccitt.tif', { width: 4, height: 3, compression: 3, georef: { epsg: 32615, origin: [720000, 4303000], pixel: 1 } })));
    expect([err.key, err.params.code]).toEqual(['raster_compression_unsupported', 3]);
  });

  // Decompression bombs: 16,384 x 16,384 float32 pixels (1 GB) in strips of 64 rows (4 MB each).
  const bomb = { width: 16_384, height: 16_384, georef: { epsg: 32615, origin: [720000, 4303000] as [number, number], pixel: 0.1 } };
  const stripOf = (fill: (bytes: Buffer) => Buffer) => fill(Buffer.alloc(bomb.width * 64 * 4));
  const gdalCreate = (name: string, options: string[]) => {
    const path = join(dir, name);
    execFileSync('gdal_create', ['-q', '-of', 'GTiff', '-outsize', '9000', '9000', '-ot', 'Float32', '-a_srs', 'EPSG:32615', '-a_ullr', '720000', '4303000', '720900', '4302100', ...options, path]);
    return path;
  };

  it('strips all pointing at one small copy answer 422 raster_too_compressed; sharing a copy is not refused as such', async () => {
    const zeros = writeTiff('shared.tif', { ...bomb, compression: 8, strips: { rows: 64, data: deflateSync(stripOf((b) => b)), shared: true } });
    expect(statSync(zeros).size).toBeLessThan(10_000);
    const err = await failure(inspectRaster(zeros));
    expect([err.key, HTTP_STATUS[err.kind], err.params]).toEqual(['raster_too_compressed', 422, { declaredMb: 1074, storedMb: 0.01 }]);
    // A writer may store a repeated strip once (legal TIFF): 256 strips sharing one copy that does not
    // compress hold 4 MB of the file, and 1 GB from 4 MB is no bomb.
    const noise = writeTiff('shared-noise.tif', { ...bomb, compression: 8, strips: { rows: 64, data: deflateSync(stripOf(() => randomBytes(bomb.width * 64 * 4))), shared: true } });
    expect(statSync(noise).size).toBeLessThan(5_000_000);
    expect((await inspectRaster(noise)).width).toBe(bomb.width);
  });

  it("honest files at their codec's best ratio pass: DEFLATE strips of zeros, GDAL's LZW strips of zeros and all-nodata ZSTD tiles", async () => {
    const deflate = writeTiff('deflate-zeros.tif', { ...bomb, compression: 8, strips: { rows: 64, data: deflateSync(stripOf((b) => b), { level: 9 }) } });
    const lzw = gdalCreate('lzw-zeros.tif', ['-burn', '0', '-co', 'COMPRESS=LZW', '-co', 'BLOCKYSIZE=2048']);
    // ZSTD stores a block of one value as a run: GDAL's all-nodata tiles reach thousands to one.
    const zstd = gdalCreate('zstd-nan.tif', ['-a_nodata', 'nan', '-burn', 'nan', '-co', 'COMPRESS=ZSTD', '-co', 'TILED=YES']);
    const ratio = (path: string, declared: number) => declared / statSync(path).size;
    expect(ratio(deflate, 2 ** 30)).toBeGreaterThan(1000);
    expect(ratio(lzw, 9000 * 9000 * 4)).toBeGreaterThan(1200);
    expect(ratio(zstd, 9000 * 9000 * 4)).toBeGreaterThan(3000);
    for (const path of [deflate, lzw, zstd]) expect((await inspectRaster(path)).height).toBeGreaterThan(0);
  });

  it('a sparse file declaring 44,000 x 44,000 pixels and storing none answers raster_no_valid_pixels', async () => {
    const path = join(dir, 'sparse-44k.tif');
    execFileSync('gdal_create', ['-q', '-of', 'GTiff', '-outsize', '44000', '44000', '-ot', 'Float32', '-a_srs', 'EPSG:32615', '-a_ullr', '720000', '4303000', '720440', '4302560',
      '-a_nodata', 'nan', '-burn', 'nan', '-co', 'TILED=YES', '-co', 'BLOCKXSIZE=512', '-co', 'BLOCKYSIZE=512', '-co', 'COMPRESS=DEFLATE', '-co', 'SPARSE_OK=TRUE', path]);
    expect(statSync(path).size).toBeLessThan(100_000);
    const info = await inspectRaster(path);
    const err = await failure(computeZones(path, info.footprintWgs84, { zones: 3 }));
    expect(err.key).toBe('raster_no_valid_pixels');
  });

  // Its inspection passes (the strip lies inside the file); zoning reads it, and geotiff.js's inflate
  // failure was an untyped error, which a task retries as a crash: three times.
  it('a strip that is not the Deflate it says fails zoning with our typed 422 raster_corrupt', async () => {
    const { bytes, field } = allNodataIndexTiff();
    const deflate = Buffer.from(bytes);
    deflate.writeUInt16LE(8, 8 + 2 + 3 * 12 + 8); // Compression (the fourth entry): Deflate, over raw float pixels
    const path = join(dir, 'not-deflate.tif');
    writeFileSync(path, deflate);
    expect((await inspectRaster(path)).width).toBe(40);
    const err = await failure(computeZones(path, field, { zones: 3 }));
    expect([err.key, HTTP_STATUS[err.kind]]).toEqual(['raster_corrupt', 422]);
  });

  it('a small valid index GeoTIFF passes, zones, and a field elsewhere answers raster_no_overlap', async () => {
    const width = 60;
    const height = 40;
    const pixels = new Float32Array(width * height).map((_, i) => (i % width < 20 ? 0.2 : i % width < 40 ? 0.5 : 0.8) + ((i * 7919) % 13) / 1000);
    pixels[0] = -9999;
    const path = writeTiff('index.tif', { width, height, pixels, nodata: '-9999', georef: { epsg: 32615, origin: [720000, 4303000], pixel: 10 } });
    const info = await inspectRaster(path);
    expect(info).toMatchObject({ width, height, bands: 1, nodata: -9999, crs: { epsg: 32615 } });
    const fp = info.footprintWgs84.coordinates[0]!;
    const lons = fp.map((p) => p[0]!);
    const lats = fp.map((p) => p[1]!);
    const inset = (f: number) => {
      const [w, e, s, n] = [Math.min(...lons), Math.max(...lons), Math.min(...lats), Math.max(...lats)];
      return { type: 'Polygon' as const, coordinates: [[[w - f, s - f], [e + f, s - f], [e + f, n + f], [w - f, n + f], [w - f, s - f]]] };
    };
    const result = await computeZones(path, inset(0.001), { zones: 3, method: 'equal', minZoneAreaHa: 0.01 });
    expect(result.zones.map((z) => Math.round(z.mean * 10) / 10)).toEqual([0.2, 0.5, 0.8]);
    expect(result.zones.map((z) => Math.round(z.areaHa))).toEqual([8, 8, 8]);
    expect(result.validAreaHa).toBeCloseTo(24 - 0.01, 1);
    const far = { type: 'Polygon' as const, coordinates: [[[10, 50], [10.01, 50], [10.01, 50.01], [10, 50]]] };
    const err = await failure(computeZones(path, far, {}));
    expect([err.key, HTTP_STATUS[err.kind]]).toEqual(['raster_no_overlap', 422]);
  });

  it('leaves out a DateTime tag that is no date (9999:99:99 99:99:99), as it does one that is absent', async () => {
    const pixels = new Float32Array(4 * 4).fill(0.5);
    const georef = { epsg: 32615, origin: [720000, 4303000] as [number, number], pixel: 10 };
    for (const dateTime of ['9999:99:99 99:99:99', '2024:02:30 10:00:00']) {
      const info = await inspectRaster(writeTiff(`no-date-${dateTime.slice(0, 4)}.tif`, { width: 4, height: 4, bands: 1, pixels, dateTime, georef }));
      expect(info.capturedAt).toBeUndefined();
    }
  });

  it('reads the capture date and band descriptions, and computes the index from the described bands', async () => {
    const width = 30;
    const height = 20;
    // Bands stored as NIR, Red (an order no default would guess): NDVI 0.6 on the left, 0.2 on the right.
    const pixels = new Float32Array(width * height * 2);
    for (let i = 0; i < width * height; i++) {
      const left = i % width < 15;
      pixels[2 * i] = left ? 0.4 : 0.3;
      pixels[2 * i + 1] = left ? 0.1 : 0.2;
    }
    const gdalMetadata =
      '<GDALMetadata><Item name="DESCRIPTION" sample="0" role="description">NIR</Item>' +
      '<Item name="DESCRIPTION" sample="1" role="description">Red</Item></GDALMetadata>';
    const path = writeTiff('described.tif', { width, height, bands: 2, pixels, dateTime: '2024:06:15 10:30:00', gdalMetadata, georef: { epsg: 32615, origin: [720000, 4303000], pixel: 10 } });
    const info = await inspectRaster(path);
    expect(info).toMatchObject({ bands: 2, bandNames: ['NIR', 'Red'], capturedAt: '2024-06-15T10:30:00' });
    const fp = info.footprintWgs84.coordinates[0]!;
    const ring = [0, 16, 32, 48, 64].map((i) => fp[i]!);
    const result = await computeZones(path, { type: 'Polygon', coordinates: [ring] }, { zones: 3, method: 'equal', minZoneAreaHa: 0.01 });
    expect(result.indexName).toBe('ndvi');
    expect(result.stats.min).toBeCloseTo(0.2, 5);
    expect(result.stats.max).toBeCloseTo(0.6, 5);
    expect(result.zones.map((z) => z.areaHa.toFixed(1))).toEqual(['3.0', '3.0']);
  });

  it('an alpha band masks pixels and does not count as a band for the usual order', async () => {
    const width = 20;
    const height = 10;
    // B,G,R,RE,NIR + alpha; NDVI 0.5 everywhere, the left half transparent.
    const pixels = new Float32Array(width * height * 6);
    for (let i = 0; i < width * height; i++) pixels.set([0.05, 0.1, 0.1, 0.2, 0.3, i % width < 10 ? 0 : 255], i * 6);
    const gdalMetadata = '<GDALMetadata><Item name="COLORINTERP" sample="5" role="colorinterp">Alpha</Item></GDALMetadata>';
    const path = writeTiff('alpha.tif', { width, height, bands: 6, pixels, gdalMetadata, georef: { epsg: 32615, origin: [720000, 4303000], pixel: 10 } });
    const fp = (await inspectRaster(path)).footprintWgs84.coordinates[0]!;
    const result = await computeZones(path, { type: 'Polygon', coordinates: [[0, 16, 32, 48, 64].map((i) => fp[i]!)] }, { zones: 3 });
    expect(result.indexName).toBe('ndvi');
    expect(result.stats.mean).toBeCloseTo(0.5, 5);
    expect(result.validAreaHa).toBeCloseTo(1, 2);
  });

  it('an alpha band written as TIFF writes it (ExtraSamples), as gdalwarp -dstalpha does, masks pixels too', async () => {
    const width = 20;
    const height = 10;
    // R,G,B,NIR + alpha, with no GDAL metadata: read as five bands, alpha would be taken for NIR.
    const pixels = new Float32Array(width * height * 5);
    for (let i = 0; i < width * height; i++) pixels.set([0.1, 0.1, 0.05, 0.3, i % width < 10 ? 0 : 255], i * 5);
    const path = writeTiff('extra-alpha.tif', { width, height, bands: 5, pixels, extraSamples: [0, 0, 0, 2], georef: { epsg: 32615, origin: [720000, 4303000], pixel: 10 } });
    const fp = (await inspectRaster(path)).footprintWgs84.coordinates[0]!;
    const result = await computeZones(path, { type: 'Polygon', coordinates: [[0, 16, 32, 48, 64].map((i) => fp[i]!)] }, { zones: 3 });
    expect(result.indexName).toBe('ndvi');
    expect(result.stats.mean).toBeCloseTo(0.5, 5);
    expect(result.validAreaHa).toBeCloseTo(1, 2);
  });

  it.each([
    ['Sentinel-2 numbers', ['B2', 'B3', 'B4', 'B8']],
    ['Sentinel-2 numbers with a zero', ['B02', 'B03', 'B04', 'B08']],
    ['Landsat 8-9 collection 2', ['SR_B2', 'SR_B3', 'SR_B4', 'SR_B5']],
    ['words, "Infrared" among them', ['Blue', 'Green', 'Red', 'Infrared']],
  ])('bands named by %s (stored B,G,R,NIR), with reflectance scale and offset, give the reflectance NDVI', async (_label, names) => {
    const width = 20;
    const height = 10;
    // Counts as Sentinel-2 L2A stores them since 2022: reflectance = count x 0.0001 - 0.1. Red 0.1 and NIR 0.3 give NDVI 0.5;
    // the counts alone would give (4000 - 2000) / (4000 + 2000) = 0.333.
    const pixels = new Float32Array(width * height * 4);
    for (let i = 0; i < width * height; i++) pixels.set([1500, 2000, 2000, 4000], i * 4);
    const item = (k: number, role: string, value: string | number) => `<Item name="${role.toUpperCase()}" sample="${k}" role="${role}">${value}</Item>`;
    const gdalMetadata = `<GDALMetadata>${names.map((n, k) => item(k, 'description', n) + item(k, 'scale', 0.0001) + item(k, 'offset', -0.1)).join('')}</GDALMetadata>`;
    const path = writeTiff(`named-${names[0]}.tif`, { width, height, bands: 4, pixels, gdalMetadata, georef: { epsg: 32615, origin: [720000, 4303000], pixel: 10 } });
    const fp = (await inspectRaster(path)).footprintWgs84.coordinates[0]!;
    const result = await computeZones(path, { type: 'Polygon', coordinates: [[0, 16, 32, 48, 64].map((i) => fp[i]!)] }, { zones: 3 });
    expect(result.indexName).toBe('ndvi');
    expect(result.stats.mean).toBeCloseTo(0.5, 5);
  });

  it('an index in another scale (NDVI in percent) is refused with its range, not zoned on the few pixels within -1..1', async () => {
    const width = 20;
    const height = 10;
    const pixels = new Float32Array(width * height).map((_, i) => (i % 7 === 0 ? 0.5 : 20 + (i % 60)));
    const path = writeTiff('percent.tif', { width, height, pixels, georef: { epsg: 32615, origin: [720000, 4303000], pixel: 10 } });
    const fp = (await inspectRaster(path)).footprintWgs84.coordinates[0]!;
    const err = await failure(computeZones(path, { type: 'Polygon', coordinates: [[0, 16, 32, 48, 64].map((i) => fp[i]!)] }, { zones: 3 }));
    expect(err).toMatchObject({ key: 'raster_index_range', params: { max: 79 } });
  });

  it('lays the preview north up, so a raster turned against north (Krovak, 7°) lines up with its zones', async () => {
    const [width, height] = [100, 100];
    // Low NDVI west of column 50, high east of it.
    const pixels = new Float32Array(width * height).map((_, i) => (i % width < 50 ? 0.2 : 0.8));
    const origin: [number, number] = [-560000, -1240000];
    const path = writeTiff('krovak.tif', { width, height, pixels, georef: { epsg: 5514, origin, pixel: 10 } });
    const info = await inspectRaster(path);
    const fp = info.footprintWgs84.coordinates[0]!;
    const result = await computeZones(path, { type: 'Polygon', coordinates: [[0, 16, 32, 48, 64].map((i) => fp[i]!)] }, { zones: 3, minZoneAreaHa: 0 });
    const { data, info: png } = await sharp(result.preview.png).raw().toBuffer({ resolveWithObject: true });
    const [[south, west], [north, east]] = result.preview.boundsWgs84;
    const colourAt = ([lon, lat]: [number, number]) => {
      const [c, r] = [Math.floor(((lon - west) / (east - west)) * png.width), Math.floor(((north - lat) / (north - south)) * png.height)];
      const i = (r * png.width + c) * png.channels;
      return { red: data[i]!, green: data[i + 1]! };
    };
    // Three columns either side of the divide, near the top and the bottom: where a skewed image
    // would show the other half's colour.
    const at = (col: number, row: number) => converters(info.crs).toWgs84([origin[0] + col * 10, origin[1] - row * 10]);
    for (const row of [3, 97]) {
      const low = colourAt(at(47, row));
      const high = colourAt(at(53, row));
      expect(low.red, `row ${row}`).toBeGreaterThan(low.green);
      expect(high.green, `row ${row}`).toBeGreaterThan(high.red);
    }
  });

  it('a sparse file (GDAL SPARSE_OK) with NaN nodata: the blocks it leaves out are no data, not an index of 0', async () => {
    const width = 64;
    const height = 64;
    // NDVI 0.5 on the right half; the left half NaN, whose tiles GDAL then leaves out of the file.
    const pixels = new Float32Array(width * height).map((_, i) => (i % width < 32 ? NaN : 0.5));
    const dense = writeTiff('dense-nan.tif', { width, height, pixels, nodata: 'nan', georef: { epsg: 32615, origin: [720000, 4303000], pixel: 10 } });
    const sparse = join(dir, 'sparse-nan.tif');
    execFileSync('gdal_translate', ['-q', '-co', 'TILED=YES', '-co', 'BLOCKXSIZE=16', '-co', 'BLOCKYSIZE=16', '-co', 'SPARSE_OK=TRUE', dense, sparse]);
    const fp = (await inspectRaster(sparse)).footprintWgs84.coordinates[0]!;
    const result = await computeZones(sparse, { type: 'Polygon', coordinates: [[0, 16, 32, 48, 64].map((i) => fp[i]!)] }, { zones: 3 });
    expect(result.stats.mean).toBeCloseTo(0.5, 5);
    expect(result.validAreaHa).toBeCloseTo(20.48, 1); // 32 x 64 pixels of 100 m²
  });

  it('a sparse file zones as its dense original does, to the bit, with cells of 3 pixels across blocks of 16', async () => {
    const [width, height] = [96, 80];
    // A gradient, and NaN in every third 16-pixel block (left out of the sparse copy).
    const pixels = new Float32Array(width * height).map((_, i) => {
      const [x, y] = [i % width, Math.floor(i / width)];
      return (Math.floor(x / 16) + Math.floor(y / 16)) % 3 === 0 ? NaN : 0.1 + (0.8 * (x + 0.5 * y)) / (width + 0.5 * height);
    });
    const dense = writeTiff('dense-gradient.tif', { width, height, pixels, nodata: 'nan', georef: { epsg: 32615, origin: [720000, 4303000], pixel: 10 } });
    const sparse = join(dir, 'sparse-gradient.tif');
    execFileSync('gdal_translate', ['-q', '-co', 'TILED=YES', '-co', 'BLOCKXSIZE=16', '-co', 'BLOCKYSIZE=16', '-co', 'SPARSE_OK=TRUE', dense, sparse]);
    expect(statSync(sparse).size).toBeLessThan(statSync(dense).size * 0.8);
    const field = (await inspectRaster(dense)).footprintWgs84;
    const options = { zones: 3, method: 'equal' as const, minCellM: 30, minZoneAreaHa: 0.01 };
    const [a, b] = [await computeZones(dense, field, options), await computeZones(sparse, field, options)];
    expect(b.stats).toEqual(a.stats);
    expect(b.validAreaHa).toBe(a.validAreaHa);
    expect(b.zones.map((z) => z.areaHa)).toEqual(a.zones.map((z) => z.areaHa));
  });

  it('a sparse file whose bands lie apart (INTERLEAVE=BAND): a band the index does not read, left out, leaves the index whole', async () => {
    const [width, height] = [64, 64];
    // Blue, Red, NIR: blue NaN on the left half (its blocks left out), NDVI 0.6 everywhere.
    const pixels = new Float32Array(width * height * 3);
    for (let i = 0; i < width * height; i++) pixels.set([i % width < 32 ? NaN : 0.05, 0.1, 0.4], 3 * i);
    const gdalMetadata = '<GDALMetadata>' + ['Blue', 'Red', 'NIR'].map((d, k) => `<Item name="DESCRIPTION" sample="${k}" role="description">${d}</Item>`).join('') + '</GDALMetadata>';
    const dense = writeTiff('dense-bands.tif', { width, height, bands: 3, pixels, nodata: 'nan', gdalMetadata, georef: { epsg: 32615, origin: [720000, 4303000], pixel: 10 } });
    const sparse = join(dir, 'sparse-bands.tif');
    execFileSync('gdal_translate', ['-q', '-co', 'INTERLEAVE=BAND', '-co', 'TILED=YES', '-co', 'BLOCKXSIZE=16', '-co', 'BLOCKYSIZE=16', '-co', 'SPARSE_OK=TRUE', dense, sparse]);
    const field = (await inspectRaster(sparse)).footprintWgs84;
    const result = await computeZones(sparse, field, { zones: 3, index: 'ndvi' });
    expect(result.stats.mean).toBeCloseTo(0.6, 5);
    expect(result.validAreaHa).toBeCloseTo(40.96, 1); // 64 x 64 pixels of 100 m²
  });

  it.each([
    ['Pulkovo 1942 / Gauss-Kruger zone 7 in Russia', 28407, 39.5, 47.2],
    ['S-JTSK / Krovak East North in Slovakia', 5514, 18.0, 48.3],
    ['S-JTSK [JTSK03] (a coordinate-frame shift)', 8353, 18.0, 48.3],
    ['Pulkovo 1942(58) / Stereo70', 3844, 25, 45.5],
  ])('places a raster in %s where GDAL does (within 5 cm)', async (_label, epsg, lon, lat) => {
    const [x, y] = execFileSync('gdaltransform', ['-s_srs', 'EPSG:4326', '-t_srs', `EPSG:${epsg}`, '-output_xy'], { input: `${lon} ${lat}\n`, encoding: 'utf8' }).trim().split(/\s+/).map(Number);
    const path = writeTiff(`crs-${epsg}.tif`, { width: 4, height: 4, georef: { epsg, origin: [x!, y!], pixel: 10 } });
    const [corner] = (await inspectRaster(path)).footprintWgs84.coordinates[0]!;
    const metres = Math.hypot((corner![0]! - lon) * 111_320 * Math.cos((lat * Math.PI) / 180), (corner![1]! - lat) * 111_320);
    expect(metres).toBeLessThan(0.05);
  });

  it('an index the bands cannot give, or a zone count out of 3..7, answers 422', async () => {
    const path = writeTiff('two.tif', { width: 4, height: 4, bands: 2, georef: { epsg: 32615, origin: [720000, 4303000], pixel: 10 } });
    const fp = (await inspectRaster(path)).footprintWgs84;
    expect((await failure(computeZones(path, fp, { index: 'ndvi' }))).key).toBe('raster_bands_unknown');
    expect((await failure(computeZones(path, fp, { zones: 9 }))).key).toBe('raster_zones_out_of_range');
  });

  it('an upload learns from the header alone whether the bands give the index asked for', async () => {
    const two = writeTiff('two-bands.tif', { width: 4, height: 4, bands: 2, georef: { epsg: 32615, origin: [720000, 4303000], pixel: 10 } });
    expect((await failure(inspectIndexRaster(two, 'ndvi'))).key).toBe('raster_bands_unknown');
    // Several bands need a formula we know; a single band may carry any index under any name.
    const unknown = await failure(inspectIndexRaster(two, 'evi' as IndexName));
    expect([unknown.key, unknown.params]).toEqual(['raster_index_unknown', { index: 'evi', known: 'ndvi, ndre, gndvi' }]);
    const one = writeTiff('one-band.tif', { width: 4, height: 4, georef: { epsg: 32615, origin: [720000, 4303000], pixel: 10 } });
    expect((await inspectIndexRaster(one, 'evi' as IndexName)).bands).toBe(1);
  });

  it('a raster in lon/lat whose pixels are all nodata passes the upload’s checks and fails only when zoned', async () => {
    const { bytes, field } = allNodataIndexTiff();
    const path = join(dir, 'all-nodata.tif');
    writeFileSync(path, bytes);
    const info = await inspectIndexRaster(path, 'auto');
    expect(info).toMatchObject({ crs: { epsg: 4326 }, nodata: -9999 });
    expect(field.coordinates[0]!.every((p) => booleanPointInPolygon(p, info.footprintWgs84))).toBe(true);
    expect((await failure(computeZones(path, field, {}))).key).toBe('raster_no_valid_pixels');
  });
});

describe('a single band’s index name', () => {
  const float = { sampleFormat: 3, bitsPerSample: 32 };
  it('is its description when that is a short name, else "index"', () => {
    expect(indexPlan(1, 'auto', undefined, float, ' NDVI ').name).toBe('ndvi');
    expect(indexPlan(1, 'auto', undefined, float, 'savi_2').name).toBe('savi_2');
    // The file maker's free text, shown on pages, in map tooltips and in reports.
    expect(indexPlan(1, 'auto', undefined, float, '<img src=x onerror=alert(1)>').name).toBe('index');
    expect(indexPlan(1, 'auto', undefined, float, 'Normalized difference vegetation index (Sentinel-2 L2A)').name).toBe('index');
    expect(indexPlan(1, 'auto', undefined, float).name).toBe('index');
  });
});
