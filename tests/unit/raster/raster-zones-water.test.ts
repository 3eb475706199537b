// Zones cover the whole field on real imagery: land is zoned wherever the file has data (bare soil
// and hazy counts too), water is left out by the field's own water mode, and the hectares of each
// are reported. Water is measured here independently of the product: the bands are read with
// geotiff.js, NDWI (or MNDWI on Landsat) computed per pixel, and the zones and the field burnt onto
// the raster's grid with GDAL's gdal_rasterize.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromFile } from 'geotiff';
import type { Polygon } from 'geojson';
import { describe, expect, it } from 'vitest';
import { geometryAreaHa } from '@/lib/geo/area';
import { computeZones, zoningRecord, type ZoningResult } from '@/lib/raster/zones';
import { missingShared, sharedPath } from '@/tests/helpers/shared-data';
import { LANDSAT_GRID, NAIP_GRID, type Grid, fieldOver } from '@/tests/helpers/raster-grids';
import { tiffBytes } from '@/tests/helpers/tiff';

const NAIP_DATES = ['20090818', '20160816', '20190904'];
const naip = (date: string) => ['raster', 'naip', `m_4709963_se_14_1_${date}.tif`];
const LANDSAT = ['raster', 'landsat', '2020.tif'];

const dir = mkdtempSync(join(tmpdir(), 'raster-water-'));
let burnt = 0;

/** 1 where a pixel's centre is inside the geometries, on the raster's own grid (gdal_rasterize reprojects). */
async function burn(raster: string, geometries: Polygon[] | ZoningResult['zones'][number]['geometry'][]): Promise<Uint8Array> {
  const n = burnt++;
  const vector = join(dir, `shapes-${n}.geojson`);
  writeFileSync(vector, JSON.stringify({ type: 'FeatureCollection', features: geometries.map((geometry) => ({ type: 'Feature', properties: {}, geometry })) }));
  const out = join(dir, `burnt-${n}.tif`);
  // An empty copy of the raster's grid, then the shapes burnt into it.
  execFileSync('gdal_translate', ['-q', '-b', '1', '-ot', 'Byte', '-scale', '0', '1e9', '0', '0', '-a_nodata', 'none', raster, out]);
  execFileSync('gdal_rasterize', ['-q', '-burn', '1', vector, out]);
  const image = await (await fromFile(out)).getImage();
  return (await image.readRasters({ interleave: false }))[0] as Uint8Array;
}

interface Coverage {
  landZoned: number;
  waterLeftOut: number;
  landPixels: number;
  waterPixels: number;
}

/** The share of the field's land that the zones cover and of its water that they leave out. */
async function measure(raster: string, field: Polygon, result: ZoningResult, isWater: (bands: number[]) => boolean, hasData: (bands: number[]) => boolean): Promise<Coverage> {
  const inField = await burn(raster, [field]);
  const zoned = await burn(raster, result.zones.map((z) => z.geometry));
  const bands = (await (await fromFile(raster)).getImage()).readRasters({ interleave: false }) as Promise<unknown> as Promise<ArrayLike<number>[]>;
  const data = await bands;
  const c = { landZoned: 0, waterLeftOut: 0, landPixels: 0, waterPixels: 0 };
  for (let i = 0; i < inField.length; i++) {
    if (!inField[i]) continue;
    const px = data.map((b) => b[i]!);
    if (!hasData(px)) continue;
    if (isWater(px)) {
      c.waterPixels++;
      if (!zoned[i]) c.waterLeftOut++;
    } else {
      c.landPixels++;
      if (zoned[i]) c.landZoned++;
    }
  }
  return { ...c, landZoned: c.landZoned / c.landPixels, waterLeftOut: c.waterPixels ? c.waterLeftOut / c.waterPixels : 1 };
}

const nd = (a: number, b: number) => (a - b) / (a + b);
const pct = (x: number) => `${(x * 100).toFixed(1)} %`;

describe('NAIP (uncalibrated 8-bit counts, R,G,B,NIR): the land is zoned and the lakes are left out', () => {
  // 730 ha over the tile's middle: the big central lake, smaller ones, cropland, pasture and bare ground.
  const field = fieldOver(NAIP_GRID, [[150, 150], [750, 120], [800, 600], [120, 620]]);
  for (const date of NAIP_DATES) {
    const skip = missingShared(...naip(date));
    it.skipIf(skip)(`${date}: at least 97 % of the land zoned and 90 % of the water (NDWI > 0.3) left out`, async () => {
      const path = sharedPath(...naip(date));
      const result = await computeZones(path, field, { zones: 5 });
      const c = await measure(path, field, result, ([, g, , n]) => nd(g!, n!) > 0.3, ([r, g, , n]) => r! + g! + n! > 0);
      const record = zoningRecord({}, result);
      console.log(`NAIP ${date}: land zoned ${pct(c.landZoned)}, water left out ${pct(c.waterLeftOut)} (${c.waterPixels} of ${c.waterPixels + c.landPixels} pixels water); reported water ${record.water_ha} ha, no data ${record.no_data_ha} ha, test ${JSON.stringify(record.water_test)}`);
      expect(c.landZoned).toBeGreaterThanOrEqual(0.97);
      expect(c.waterLeftOut).toBeGreaterThanOrEqual(0.9);
      // The hectares reported as water hold the water measured here, and no more land than was left out.
      const pixelHa = 25 / 10_000;
      expect(result.leftOut.waterHa).toBeGreaterThanOrEqual(0.9 * c.waterPixels * pixelHa);
      expect(result.leftOut.waterHa).toBeLessThanOrEqual((c.waterPixels + (1 - c.landZoned) * c.landPixels) * pixelHa * 1.01);
      expect(result.leftOut.waterTest?.index).toBe('ndwi');
      expect(result.validAreaHa + result.leftOut.waterHa + result.leftOut.noDataHa).toBeLessThanOrEqual(geometryAreaHa(field) * 1.0001);
    });
  }
});

describe('Landsat (8-bit SWIR1,NIR,R,G over a turbid river)', () => {
  const skip = missingShared(...LANDSAT);
  const field = fieldOver(LANDSAT_GRID, [[200, 90], [340, 100], [330, 210], [210, 200]]);
  it.skipIf(skip)('at least 97 % of the land zoned and 90 % of the river (MNDWI > 0) left out, by MNDWI', async () => {
    const path = sharedPath(...LANDSAT);
    const result = await computeZones(path, field, { zones: 5, bandOrder: ['swir1', 'nir', 'red', 'green'] });
    const hasData = ([s, n, r, g]: number[]) => s! > 0 && n! > 0 && r! > 0 && g! > 0;
    const c = await measure(path, field, result, ([s, , , g]) => nd(g!, s!) > 0, hasData);
    const clear = await measure(path, field, result, ([, n, , g]) => nd(g!, n!) > 0.3, hasData);
    console.log(`Landsat: land zoned ${pct(c.landZoned)}, water (MNDWI > 0) left out ${pct(c.waterLeftOut)} of ${c.waterPixels} pixels; NDWI > 0.3 left out ${pct(clear.waterLeftOut)} of ${clear.waterPixels}; test ${JSON.stringify(result.leftOut.waterTest)}`);
    expect(result.leftOut.waterTest?.index).toBe('mndwi');
    expect(c.landZoned).toBeGreaterThanOrEqual(0.97);
    expect(c.waterLeftOut).toBeGreaterThanOrEqual(0.9);
    expect(clear.waterLeftOut).toBeGreaterThanOrEqual(0.9);
  });
});

describe('a generated single-band NDVI: a lake, a bare field at NDVI -0.1 and crop', () => {
  // 200 x 200 pixels of 10 m (400 ha): a round lake, a bare strip to the west, crop in between.
  const [width, height] = [200, 200];
  const lake = (c: number, r: number) => (c - 130) ** 2 + (r - 90) ** 2 < 40 ** 2;
  const bare = (c: number) => c < 60;
  // A fixed pseudo-random wobble, so the classes have spread without the test changing between runs.
  const wobble = (i: number) => ((Math.sin(i * 12.9898) * 43758.5453) % 1) * 0.05;
  function ndvi(withLake: boolean): Float32Array {
    return Float32Array.from({ length: width * height }, (_, i) => {
      const [c, r] = [i % width, Math.floor(i / width)];
      if (withLake && lake(c, r)) return -0.6 + wobble(i);
      if (bare(c)) return -0.1 + wobble(i);
      return 0.35 + 0.4 * (r / height) + wobble(i);
    });
  }
  const georef = { epsg: 32615, origin: [720000, 4303000] as [number, number], pixel: 10 };
  const grid: Grid = { proj: '+proj=utm +zone=15 +datum=WGS84 +units=m +no_defs', origin: [720000, 4303000], res: [10, -10] };
  // Inset by 5 pixels, so every pixel counted is whole inside.
  const field = fieldOver(grid, [[5, 5], [195, 5], [195, 195], [5, 195]]);

  it('zones the bare field in the lowest class and leaves the lake out (97 % / 90 %)', async () => {
    const path = join(dir, 'lake-bare.tif');
    writeFileSync(path, tiffBytes({ width, height, pixels: ndvi(true), georef }));
    const result = await computeZones(path, field, { zones: 5 });
    const lakeMask = Float32Array.from({ length: width * height }, (_, i) => (lake(i % width, Math.floor(i / width)) ? 1 : 0));
    const c = await measure(path, field, result, () => false, () => true);
    const inLake = await measureMask(path, field, result, lakeMask);
    console.log(`generated: land zoned ${pct(inLake.landZoned)}, lake left out ${pct(inLake.waterLeftOut)}, test ${JSON.stringify(result.leftOut.waterTest)}`);
    expect(inLake.landZoned).toBeGreaterThanOrEqual(0.97);
    expect(inLake.waterLeftOut).toBeGreaterThanOrEqual(0.9);
    expect(c.landPixels).toBe(190 * 190);
    expect(result.leftOut.waterTest?.index).toBe('index');
    // The bare field is zoned, in the lowest class.
    const lowest = result.zones[0]!;
    expect(lowest.mean).toBeLessThan(0);
    expect(lowest.areaHa).toBeGreaterThan(0.9 * 55 * 190 * 0.01);
  });

  it('without a lake, nothing is water: the bare field and the crop are all zoned; mask_water false zones the lake too', async () => {
    const dry = join(dir, 'bare.tif');
    writeFileSync(dry, tiffBytes({ width, height, pixels: ndvi(false), georef }));
    const result = await computeZones(dry, field, { zones: 5 });
    expect(result.leftOut).toEqual({ waterHa: 0, noDataHa: 0 });
    expect(result.validAreaHa).toBeCloseTo(geometryAreaHa(field), 1);
    const wet = join(dir, 'lake-kept.tif');
    writeFileSync(wet, tiffBytes({ width, height, pixels: ndvi(true), georef }));
    const all = await computeZones(wet, field, { zones: 5, maskWater: false });
    expect(all.leftOut.waterHa).toBe(0);
    expect(all.validAreaHa).toBeCloseTo(geometryAreaHa(field), 1);
    expect(zoningRecord({ maskWater: false }, all)).toMatchObject({ mask_water: false, water_ha: 0, no_data_ha: 0 });
  });
});

/** As `measure`, with water given as a mask on the raster's grid (1 = water). */
async function measureMask(raster: string, field: Polygon, result: ZoningResult, water: Float32Array): Promise<Coverage> {
  const inField = await burn(raster, [field]);
  const zoned = await burn(raster, result.zones.map((z) => z.geometry));
  const c = { landZoned: 0, waterLeftOut: 0, landPixels: 0, waterPixels: 0 };
  for (let i = 0; i < inField.length; i++) {
    if (!inField[i]) continue;
    if (water[i]) {
      c.waterPixels++;
      if (!zoned[i]) c.waterLeftOut++;
    } else {
      c.landPixels++;
      if (zoned[i]) c.landZoned++;
    }
  }
  return { ...c, landZoned: c.landZoned / c.landPixels, waterLeftOut: c.waterLeftOut / c.waterPixels };
}
