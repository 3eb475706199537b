// Map tiles drawn from GeoTIFFs (lib/raster/tiles.ts, tile-source.ts, cog.ts): pixels against the
// raster's values through the index's ramp, reprojection from UTM, transparency outside the data,
// overviews chosen by zoom, and a large raster without overviews copied once to a COG.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import proj4 from 'proj4';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { mosaicCogOptions, writeCog } from '@/lib/drone/cog';
import { convertToCog, isTileable, tileablePath } from '@/lib/raster/cog';
import { mapToPixel } from '@/lib/raster/inspect';
import { INDEX_RANGES, indexRamp, rampColor } from '@/lib/raster/ramp';
import { openTileRaster } from '@/lib/raster/tile-source';
import { TILE_SIZE, chooseLevel, encodeTile, isTile, renderTile, rgbSamples, tileBounds } from '@/lib/raster/tiles';
import { tiffBytes } from '../../helpers/tiff';

const dir = mkdtempSync(join(tmpdir(), 'tiles-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const UTM33 = '+proj=utm +zone=33 +datum=WGS84 +units=m +no_defs';
// 200 x 120 one-metre pixels in UTM 33N near 15°E 50°N; values 0..0.99 west to east, a nodata hole.
const [W, H, E0, N0] = [200, 120, 500_000, 5_540_000];
const value = (c: number, r: number) => (r >= 40 && r < 60 && c >= 40 && c < 60 ? -9999 : c / W);
function utmRaster(): string {
  const pixels = new Float32Array(W * H);
  for (let r = 0; r < H; r++) for (let c = 0; c < W; c++) pixels[r * W + c] = value(c, r);
  const path = join(dir, 'ndvi.tif');
  writeFileSync(path, tiffBytes({ width: W, height: H, pixels, nodata: '-9999', georef: { epsg: 32633, origin: [E0, N0], pixel: 1 } }));
  return path;
}

const toMercator = proj4('EPSG:4326', 'EPSG:3857');
/** The XYZ tile at `zoom` holding lon/lat. */
function tileAt(lon: number, lat: number, zoom: number): [number, number] {
  const [mx, my] = toMercator.forward([lon, lat]) as [number, number];
  const size = (2 * Math.PI * 6378137) / 2 ** zoom;
  return [Math.floor((mx + Math.PI * 6378137) / size), Math.floor((Math.PI * 6378137 - my) / size)];
}

const ndviStyle = { kind: 'index' as const, samples: [0], compute: (a: number) => a, ramp: indexRamp('ndvi') };

describe('renderTile', () => {
  it('paints each pixel the ramp colour of the raster value under its centre, reprojected from UTM; nodata and outside transparent', async () => {
    const raster = await openTileRaster(utmRaster());
    const [lon, lat] = proj4(UTM33, 'EPSG:4326', [E0 + 100, N0 - 60]) as [number, number];
    const z = 17;
    const [x, y] = tileAt(lon, lat, z);
    const rgba = (await renderTile(raster, z, x, y, ndviStyle))!;
    expect(rgba).not.toBeNull();
    const [west, , east, north] = tileBounds(z, x, y);
    const step = (east - west) / TILE_SIZE;
    const toUtm = proj4('EPSG:3857', UTM33);
    let checked = 0;
    let transparent = 0;
    for (let py = 0; py < TILE_SIZE; py++) {
      for (let px = 0; px < TILE_SIZE; px++) {
        const [e, n] = toUtm.forward([west + (px + 0.5) * step, north - (py + 0.5) * step]) as [number, number];
        const [c, r] = mapToPixel(raster.raster.transform, e, n);
        // Only where the interpolated grid cannot fall on another pixel than the exact point's.
        if (Math.abs(c - Math.round(c)) < 0.05 || Math.abs(r - Math.round(r)) < 0.05) continue;
        const p = (py * TILE_SIZE + px) * 4;
        const inside = c >= 0 && r >= 0 && c < W && r < H && value(Math.floor(c), Math.floor(r)) !== -9999;
        if (!inside) {
          expect(rgba[p + 3]).toBe(0);
          transparent++;
          continue;
        }
        const v = value(Math.floor(c), Math.floor(r));
        expect([...rgba.subarray(p, p + 4)]).toEqual([...rampColor(v / INDEX_RANGES.ndvi!.max), 255]);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(10_000);
    expect(transparent).toBeGreaterThan(100);
  });

  it('answers null for a tile away from the raster, which encodes as one transparent 256 px PNG or WebP', async () => {
    const raster = await openTileRaster(utmRaster());
    const [x, y] = tileAt(-60, -30, 16);
    expect(await renderTile(raster, 16, x, y, ndviStyle)).toBeNull();
    for (const format of ['png', 'webp'] as const) {
      const { data, info } = await sharp(await encodeTile(null, format)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
      expect([info.width, info.height, info.format]).toEqual([256, 256, 'raw']);
      expect(data.every((v, i) => i % 4 !== 3 || v === 0)).toBe(true);
    }
    // A whole-world tile holds the raster: far points projected into UTM 33 land nowhere near it.
    const world = await renderTile(raster, 0, 0, 0, ndviStyle);
    let opaque = 0;
    for (let p = 3; p < (world?.length ?? 0); p += 4) if (world![p] === 255) opaque++;
    expect(opaque).toBeLessThanOrEqual(2);
  });

  it('knows the tiles of the pyramid', () => {
    expect(isTile(0, 0, 0)).toBe(true);
    expect(isTile(3, 7, 7)).toBe(true);
    expect(isTile(3, 8, 0)).toBe(false);
    expect(isTile(25, 0, 0)).toBe(false);
    expect(isTile(2, 1.5, 0)).toBe(false);
  });
});

describe('tileablePath', () => {
  it('reads a small raster as it is, and copies a large one without overviews once to a COG whose overviews the low zooms use', async () => {
    const small = utmRaster();
    expect(await tileablePath(small, join(dir, 'cache'))).toBe(small);

    const big = join(dir, 'big.tif');
    execFileSync('gdal_create', ['-q', '-of', 'GTiff', '-outsize', '4000', '3000', '-bands', '1', '-ot', 'Float32', '-burn', '0.5', '-a_srs', 'EPSG:32633', '-a_ullr', '500000', '5540000', '504000', '5537000', '-co', 'TILED=YES', '-co', 'COMPRESS=DEFLATE', big]);
    expect(await isTileable(big)).toBe(false);
    const cache = join(dir, 'cache');
    const [a, b] = await Promise.all([tileablePath(big, cache), tileablePath(big, cache)]);
    expect(a).toBe(join(cache, 'big.cog.tif'));
    expect(b).toBe(a);
    const made = statSync(a).mtimeMs;
    expect(await tileablePath(big, cache)).toBe(a);
    expect(statSync(a).mtimeMs).toBe(made);

    const raster = await openTileRaster(a);
    expect(raster.levels.length).toBeGreaterThan(2);
    // 4 m of raster per pixel at zoom 14 (about 6 m at 50°N): an overview; zoom 20, the full image.
    expect(chooseLevel(raster, 6)).toBeGreaterThan(0);
    expect(chooseLevel(raster, 0.1)).toBe(0);
    const [lon, lat] = proj4(UTM33, 'EPSG:4326', [502_000, 5_538_500]) as [number, number];
    const [x, y] = tileAt(lon, lat, 14);
    const rgba = (await renderTile(raster, 14, x, y, ndviStyle))!;
    const centre = rgba.subarray(((128 * TILE_SIZE) + 128) * 4, ((128 * TILE_SIZE) + 128) * 4 + 4);
    expect([...centre]).toEqual([...rampColor(0.5 / 0.9), 255]);
  });
});

describe('indexRamp', () => {
  it('paints each known index over its own fixed range, whatever the scan holds; an unknown one over its own values', () => {
    expect(indexRamp('NDVI', { min: 0.3, max: 0.5 })).toEqual({ index: 'ndvi', min: 0, max: 0.9, fixed: true });
    expect(indexRamp('vari')).toEqual({ index: 'vari', min: -0.2, max: 0.4, fixed: true });
    expect(Object.keys(INDEX_RANGES).sort()).toEqual(['gndvi', 'ndre', 'ndvi', 'vari']);
    expect(indexRamp('index', { min: 2, max: 7 })).toEqual({ index: 'index', min: 2, max: 7, fixed: false });
    expect(indexRamp(null, { min: 3, max: 3 })).toEqual({ index: 'index', min: 3, max: 4, fixed: false });
  });
});

describe('a drone mosaic written as the drone pipeline writes it (JPEG in YCbCr, alpha as the internal mask)', () => {
  it('draws the mosaic in its own colours, not its YCbCr samples, and leaves masked ground transparent', async () => {
    // 512 x 512 pixels of 5 cm: colour (200, 120, 50) where alpha is 255 (west half), alpha 0 east of it.
    const [w, e0, n0] = [512, 500_000, 5_540_000];
    const raw = Buffer.alloc(w * w * 4);
    for (let i = 0; i < w * w; i++) raw.set([200, 120, 50, i % w < w / 2 ? 255 : 0], i * 4);
    writeFileSync(join(dir, 'rgba.bin'), raw);
    const band = (n: number, interp: string) =>
      `<VRTRasterBand dataType="Byte" band="${n}" subClass="VRTRawRasterBand"><ColorInterp>${interp}</ColorInterp><SourceFilename relativetoVRT="1">rgba.bin</SourceFilename><ImageOffset>${n - 1}</ImageOffset><PixelOffset>4</PixelOffset><LineOffset>${w * 4}</LineOffset></VRTRasterBand>`;
    writeFileSync(join(dir, 'rgba.vrt'), `<VRTDataset rasterXSize="${w}" rasterYSize="${w}"><SRS>EPSG:32633</SRS><GeoTransform>${e0}, 0.05, 0, ${n0}, 0, -0.05</GeoTransform>${band(1, 'Red')}${band(2, 'Green')}${band(3, 'Blue')}${band(4, 'Alpha')}</VRTDataset>`);
    const path = join(dir, 'ortho.tif');
    await writeCog(join(dir, 'rgba.vrt'), path, mosaicCogOptions(['red', 'green', 'blue']));
    const raster = await openTileRaster(path);
    // Read directly: the JPEG blocks by libjpeg-turbo, the 1-bit mask unpacked.
    expect([raster.levels[0]!.layout?.codec, raster.levels[0]!.maskLayout?.codec]).toEqual(['jpeg', 'bits']);
    const pixelAt = async (east: number) => {
      const [lon, lat] = proj4(UTM33, 'EPSG:4326', [east, n0 - 12.8]) as [number, number];
      const [x, y] = tileAt(lon, lat, 22);
      const rgba = await renderTile(raster, 22, x, y, { kind: 'rgb', samples: rgbSamples(raster) });
      // A tile with no data at all is null, drawn as one transparent tile.
      if (!rgba) return [0, 0, 0, 0];
      const [west, , eastEdge, north] = tileBounds(22, x, y);
      const [mx, my] = toMercator.forward([lon, lat]) as [number, number];
      const px = Math.floor(((mx - west) / (eastEdge - west)) * TILE_SIZE);
      const py = Math.floor(((north - my) / (eastEdge - west)) * TILE_SIZE);
      return [...rgba.subarray((py * TILE_SIZE + px) * 4, (py * TILE_SIZE + px) * 4 + 4)];
    };
    const [r, g, b, a] = await pixelAt(e0 + 6);
    expect(a).toBe(255);
    // JPEG at quality 90 keeps a flat colour within a few levels.
    expect(Math.abs(r! - 200)).toBeLessThan(6);
    expect(Math.abs(g! - 120)).toBeLessThan(6);
    expect(Math.abs(b! - 50)).toBeLessThan(6);
    // One tile holds the mask's edge (12.8 m east): opaque west of it, transparent east; and a tile wholly east of it.
    expect((await pixelAt(e0 + 12))[3]).toBe(255);
    expect((await pixelAt(e0 + 13.5))[3]).toBe(0);
    expect((await pixelAt(e0 + 19))[3]).toBe(0);
  });
});

/** A raw raster of `bands` samples a pixel (`type` Byte or Float32), W x H one-metre pixels in UTM 33N, as a VRT GDAL reads. */
function rawVrt(name: string, bands: number, type: 'Byte' | 'Float32', sample: (c: number, r: number, band: number) => number): string {
  const size = type === 'Byte' ? 1 : 4;
  const raw = Buffer.alloc(W * H * bands * size);
  for (let r = 0; r < H; r++) {
    for (let c = 0; c < W; c++) {
      for (let b = 0; b < bands; b++) {
        const at = ((r * W + c) * bands + b) * size;
        if (type === 'Byte') raw[at] = sample(c, r, b);
        else raw.writeFloatLE(sample(c, r, b), at);
      }
    }
  }
  writeFileSync(join(dir, `${name}.bin`), raw);
  const band = (n: number) =>
    `<VRTRasterBand dataType="${type}" band="${n}" subClass="VRTRawRasterBand"><SourceFilename relativetoVRT="1">${name}.bin</SourceFilename><ImageOffset>${(n - 1) * size}</ImageOffset><PixelOffset>${bands * size}</PixelOffset><LineOffset>${W * bands * size}</LineOffset><ByteOrder>LSB</ByteOrder></VRTRasterBand>`;
  const vrt = join(dir, `${name}.vrt`);
  writeFileSync(vrt, `<VRTDataset rasterXSize="${W}" rasterYSize="${H}"><SRS>EPSG:32633</SRS><GeoTransform>${E0}, 1, 0, ${N0}, 0, -1</GeoTransform>${Array.from({ length: bands }, (_, i) => band(i + 1)).join('')}</VRTDataset>`);
  return vrt;
}

/** Every pixel of the zoom-19 tile over the raster's middle whose centre lies clearly inside one raster pixel: its tile pixel and raster pixel. */
function clearPixels(z: number, x: number, y: number): { p: number; c: number; r: number }[] {
  const [west, , east, north] = tileBounds(z, x, y);
  const step = (east - west) / TILE_SIZE;
  const toUtm = proj4('EPSG:3857', UTM33);
  const found: { p: number; c: number; r: number }[] = [];
  for (let py = 0; py < TILE_SIZE; py += 3) {
    for (let px = 0; px < TILE_SIZE; px += 3) {
      const [e, n] = toUtm.forward([west + (px + 0.5) * step, north - (py + 0.5) * step]) as [number, number];
      const [c, r] = [e - E0, N0 - n];
      if (c < 0 || r < 0 || c >= W || r >= H || Math.abs(c - Math.round(c)) < 0.05 || Math.abs(r - Math.round(r)) < 0.05) continue;
      found.push({ p: (py * TILE_SIZE + px) * 4, c: Math.floor(c), r: Math.floor(r) });
    }
  }
  return found;
}

describe('multi-band rasters copied to a COG (DEFLATE with prediction across the samples of a pixel)', () => {
  const [lon, lat] = proj4(UTM33, 'EPSG:4326', [E0 + 100, N0 - 60]) as [number, number];
  const z = 19;
  const [x, y] = tileAt(lon, lat, z);

  it('draws each band of a byte raster as it is (horizontal predictor, three samples a pixel and four)', async () => {
    for (const bands of [3, 4]) {
    const colour = (c: number, r: number, b: number) => [c, r * 2, 255 - c, (c * r) & 255][b]!;
    const path = join(dir, `rgb${bands}.cog.tif`);
    await convertToCog(rawVrt(`rgb${bands}`, bands, 'Byte', colour), path);
    const raster = await openTileRaster(path);
    expect(raster.levels[0]!.layout?.predictor).toBe(2);
    const rgba = (await renderTile(raster, z, x, y, { kind: 'rgb', samples: rgbSamples(raster) }))!;
    const pixels = clearPixels(z, x, y);
    expect(pixels.length).toBeGreaterThan(1000);
    for (const { p, c, r } of pixels) expect([...rgba.subarray(p, p + 4)]).toEqual([colour(c, r, 0), colour(c, r, 1), colour(c, r, 2), 255]);
    }
  });

  it('reads a layout it does not decode itself (LZW) through geotiff.js, to the same pixels', async () => {
    const colour = (c: number, r: number, b: number) => [c, r * 2, 255 - c][b]!;
    const path = join(dir, 'lzw.cog.tif');
    execFileSync('gdal_translate', ['-q', '-of', 'COG', '-co', 'COMPRESS=LZW', '-co', 'BLOCKSIZE=256', rawVrt('lzw', 3, 'Byte', colour), path]);
    const raster = await openTileRaster(path);
    expect(raster.levels[0]!.layout).toBeUndefined();
    const rgba = (await renderTile(raster, z, x, y, { kind: 'rgb', samples: rgbSamples(raster) }))!;
    const pixels = clearPixels(z, x, y);
    expect(pixels.length).toBeGreaterThan(1000);
    for (const { p, c, r } of pixels) expect([...rgba.subarray(p, p + 4)]).toEqual([colour(c, r, 0), colour(c, r, 1), colour(c, r, 2), 255]);
  });

  it('computes an index from the bands of a float raster (floating-point predictor)', async () => {
    const bands = (c: number, r: number, b: number) => (b === 0 ? c / W : r / H);
    const path = join(dir, 'float.cog.tif');
    await convertToCog(rawVrt('float', 2, 'Float32', bands), path);
    const raster = await openTileRaster(path);
    expect(raster.levels[0]!.layout?.predictor).toBe(3);
    const ramp = indexRamp('ndvi');
    const rgba = (await renderTile(raster, z, x, y, { kind: 'index', samples: [0, 1], compute: (a, b) => (a + b) / 2, ramp }))!;
    const pixels = clearPixels(z, x, y);
    for (const { p, c, r } of pixels) {
      const v = (Math.fround(c / W) + Math.fround(r / H)) / 2;
      expect([...rgba.subarray(p, p + 4)]).toEqual([...rampColor(v / ramp.max), 255]);
    }
  });
});
