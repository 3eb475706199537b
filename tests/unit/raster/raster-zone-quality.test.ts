// What an agronomist reads off the zones: names that say what a zone holds, how many zones were made
// of those asked, no piece too small for a machine to act on, an area never above the field's, the
// band order a multi-band file was read with, and single-band integer files read only in a scale
// that is certain. Real rasters from the shared data, and small TIFFs made here (gdal_translate for
// integer types).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { booleanPointInPolygon } from '@turf/turf';
import type { Polygon, Position } from 'geojson';
import proj4 from 'proj4';
import { describe, expect, it } from 'vitest';
import { geometryAreaHa } from '@/lib/geo/area';
import { AppError } from '@/lib/errors';
import { translate } from '@/lib/i18n/messages';
import { inspectRaster } from '@/lib/raster/inspect';
import { computeZones, inspectIndexRaster, nameDigits, zoningRecord, type ZoningResult } from '@/lib/raster/zones';
import { missingShared, sharedPath } from '@/tests/helpers/shared-data';
import { tiffBytes, type TiffSpec } from '@/tests/helpers/tiff';

const NAIP = ['raster', 'naip', 'm_4709963_se_14_1_20190904.tif'];
const LANDSAT = ['raster', 'landsat', '2020.tif'];
const NAIP_GRID = { proj: '+proj=utm +zone=14 +datum=NAD83 +units=m +no_defs', origin: [485899, 5209246], res: [5, -5] };
const LANDSAT_GRID = { proj: '+proj=longlat +datum=WGS84 +no_defs', origin: [-74.72249415376068, -8.282107593468341], res: [0.0008084837557075694, -0.0008084837557075694] };
type Grid = typeof NAIP_GRID;
const lonLat = (g: Grid, c: number, r: number): Position => proj4(g.proj, 'WGS84', [g.origin[0]! + c * g.res[0]!, g.origin[1]! + r * g.res[1]!]);
function fieldOver(g: Grid, pixels: Array<[number, number]>): Polygon {
  const ring = pixels.map(([c, r]) => lonLat(g, c, r));
  return { type: 'Polygon', coordinates: [[...ring, ring[0]!]] };
}
const parts = (r: ZoningResult) => r.zones.flatMap((z) => (z.geometry.type === 'Polygon' ? [z.geometry.coordinates] : z.geometry.coordinates));
const sumHa = (r: ZoningResult) => r.zones.reduce((s, z) => s + z.areaHa, 0);

const dir = mkdtempSync(join(tmpdir(), 'raster-quality-'));
function writeTiff(name: string, spec: TiffSpec): string {
  const path = join(dir, name);
  writeFileSync(path, tiffBytes(spec));
  return path;
}
/** The file's footprint as a field (its corners, from the 65-point footprint). */
async function footprintField(path: string): Promise<Polygon> {
  const fp = (await inspectRaster(path)).footprintWgs84.coordinates[0]!;
  return { type: 'Polygon', coordinates: [[0, 16, 32, 48, 64].map((i) => fp[i]!)] };
}
async function failure(promise: Promise<unknown>): Promise<AppError> {
  const err = await promise.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

/**
 * Each zone's name gives its class's interval: neighbours' intervals never overlap (they meet at the
 * class break), rise with the class, and each interval lies within the zone's own min..max.
 */
function expectNamesAgree(result: ZoningResult): void {
  const names = result.zones.map((z) => z.name.replace(/^\d+: /, ''));
  expect(new Set(names).size, names.join(' | ')).toBe(names.length);
  const ranges = result.zones.map((z) => {
    const m = /^(\d+): (-?\d+\.(\d+))–(-?\d+\.\d+)$/.exec(z.name);
    expect(m, z.name).not.toBeNull();
    const [lo, hi, half] = [Number(m![2]), Number(m![4]), 0.5 * 10 ** -m![3]!.length + 1e-9];
    expect(Number(m![1])).toBe(z.classIndex);
    expect(lo, `${z.name}: min ${z.min}`).toBeGreaterThanOrEqual(z.min - half);
    expect(hi, `${z.name}: max ${z.max}`).toBeLessThanOrEqual(z.max + half);
    expect(hi, z.name).toBeGreaterThan(lo);
    // The mean and quartiles are the zone's figures, kept beside the name.
    expect(z.q1).toBeLessThanOrEqual(z.mean);
    expect(z.q3).toBeGreaterThanOrEqual(z.mean);
    return [lo, hi] as const;
  });
  for (let i = 1; i < ranges.length; i++) expect(ranges[i]![0], names.join(' | ')).toBeGreaterThanOrEqual(ranges[i - 1]![1]);
}

describe('zone names say what the zones hold', () => {
  const skip = missingShared(...NAIP);
  const field = fieldOver(NAIP_GRID, [[-40, 240], [300, 200], [330, 480], [20, 520]]);

  it.skipIf(skip)('after smoothing and merging, the named range holds the mean and lies within min..max (jenks, quantile, a large minimum)', async () => {
    const path = sharedPath(...NAIP);
    for (const opts of [{ zones: 5 }, { zones: 7, method: 'quantile' as const }, { zones: 5, minZoneAreaHa: 5 }]) {
      expectNamesAgree(await computeZones(path, field, opts));
    }
  });

  it('takes more decimals when two decimals would make names equal or a range a single value', () => {
    expect(nameDigits([[0.18, 0.34], [0.35, 0.46]])).toBe(2);
    expect(nameDigits([[0.5201, 0.5249], [0.5249, 0.529]])).toBe(3);
    expect(nameDigits([[0.5201, 0.5202], [0.5203, 0.5204]])).toBe(4);
  });
});

describe('the zones made, of those asked, are recorded', () => {
  const skip = missingShared(...NAIP);
  const field = fieldOver(NAIP_GRID, [[-40, 240], [300, 200], [330, 480], [20, 520]]);

  it.skipIf(skip)('a large minimum zone merges classes away: zones_made and why', async () => {
    const path = sharedPath(...NAIP);
    const opts = { zones: 5, minZoneAreaHa: 5 };
    const result = await computeZones(path, field, opts);
    expect(result.zones.length).toBeLessThan(5);
    const leftOut = { mask_water: true, water_ha: expect.any(Number), no_data_ha: expect.any(Number), water_test: { index: 'ndwi', cut: expect.any(Number) } };
    expect(zoningRecord(opts, result)).toEqual({ zones: 5, method: 'jenks', min_zone_area_ha: 5, zones_made: result.zones.length, zones_short: 'small_patches', ...leftOut });
    const all = await computeZones(path, field, { zones: 5 });
    expect(zoningRecord({ zones: 5 }, all)).toEqual({ zones: 5, method: 'jenks', min_zone_area_ha: 0.1, zones_made: 5, ...leftOut });
  });

  it('an index of three values asked for five zones makes three: few_values', async () => {
    const [width, height] = [60, 40];
    const pixels = new Float32Array(width * height).map((_, i) => (i % width < 20 ? 0.2 : i % width < 40 ? 0.5 : 0.8));
    const path = writeTiff('three-values.tif', { width, height, pixels, georef: { epsg: 32615, origin: [720000, 4303000], pixel: 10 } });
    const result = await computeZones(path, await footprintField(path), { zones: 5, minZoneAreaHa: 0.01 });
    expect(result.zones).toHaveLength(3);
    expect(zoningRecord({ zones: 5 }, result)).toMatchObject({ zones: 5, zones_made: 3, zones_short: 'few_values' });
  });
});

describe('no zone piece is too small for a machine, and the zones partition what they cover', () => {
  it.skipIf(missingShared(...NAIP))('7 zones over most of the NAIP tile: no part under half the minimum zone (clip slivers, islands in water)', async () => {
    const field = fieldOver(NAIP_GRID, [[10.3, 10.7], [920.2, 12.4], [915.5, 700.1], [12.2, 710.6]]);
    const result = await computeZones(sharedPath(...NAIP), field, { zones: 7 });
    const areas = parts(result).map((p) => geometryAreaHa({ type: 'Polygon', coordinates: p }));
    expect(Math.min(...areas)).toBeGreaterThanOrEqual(0.05);
    expect(result.validAreaHa).toBeCloseTo(sumHa(result), 9);
  });

  it('an island of valid pixels in nodata smaller than the minimum zone is left unzoned; one as big is a zone', async () => {
    const [width, height] = [40, 30];
    // 10 m pixels: a 20 x 30 block (6 ha) on the left, nodata elsewhere but for a 2 x 2 island
    // (0.04 ha) and a 4 x 4 one (0.16 ha) on the right.
    const pixels = new Float32Array(width * height).map((_, i) => {
      const [c, r] = [i % width, Math.floor(i / width)];
      if (c < 20) return c < 10 ? 0.3 : 0.7;
      if (c >= 25 && c < 27 && r >= 5 && r < 7) return 0.5;
      if (c >= 30 && c < 34 && r >= 20 && r < 24) return 0.6;
      return -9999;
    });
    const path = writeTiff('islands.tif', { width, height, pixels, nodata: '-9999', georef: { epsg: 32615, origin: [720000, 4303000], pixel: 10 } });
    const result = await computeZones(path, await footprintField(path), { zones: 3, method: 'equal', minZoneAreaHa: 0.1 });
    const at = (c: number, r: number) => proj4('EPSG:32615', 'WGS84', [720000 + c * 10, 4303000 - r * 10]);
    const covered = (p: Position) => result.zones.some((z) => booleanPointInPolygon(p, z.geometry));
    expect(covered(at(26, 6))).toBe(false);
    expect(covered(at(32, 22))).toBe(true);
    expect(result.validAreaHa).toBeCloseTo(6.16, 2);
  });

  it('a field smaller than the minimum zone is still zoned, not left without a zone', async () => {
    const [width, height] = [6, 6];
    const pixels = new Float32Array(width * height).map((_, i) => (i % width < 3 ? 0.3 : 0.7));
    const path = writeTiff('tiny.tif', { width, height, pixels, georef: { epsg: 32615, origin: [720000, 4303000], pixel: 10 } });
    const result = await computeZones(path, await footprintField(path), { zones: 3, minZoneAreaHa: 1 });
    expect(result.validAreaHa).toBeCloseTo(0.36, 2);
  });
});

describe('area_processed is the zones clipped to the field, never more than the field', () => {
  it.skipIf(missingShared(...NAIP))('a field on cropland with every index value kept: the zones cover it exactly', async () => {
    // Whole pixels with their centre inside made 0.024 % more than the field here.
    const field = fieldOver(NAIP_GRID, [[150.63, 331.37], [231.34, 322.1], [242.15, 400.13], [161.16, 410.86]]);
    const result = await computeZones(sharedPath(...NAIP), field, { zones: 5, maskWater: false });
    expect(Math.abs(result.validAreaHa / geometryAreaHa(field) - 1)).toBeLessThan(2e-5);
    expect(result.validAreaHa).toBeCloseTo(sumHa(result), 9);
  });

  it.skipIf(missingShared(...LANDSAT))('a small field on 90 m Landsat pixels: no whole pixels beyond its edge', async () => {
    const field = fieldOver(LANDSAT_GRID, [[300.4, 40.3], [314.7, 41.2], [313.2, 52.6], [301.1, 51.8]]);
    const result = await computeZones(sharedPath(...LANDSAT), field, { zones: 3, bandOrder: ['swir1', 'nir', 'red', 'green'], minZoneAreaHa: 1 });
    expect(result.validAreaHa).toBeLessThanOrEqual(geometryAreaHa(field) * (1 + 1e-5));
    expect(result.validAreaHa).toBeCloseTo(sumHa(result), 9);
  });
});

describe('the band order a multi-band file was read with is recorded, and a missing band is named', () => {
  const skipLandsat = missingShared(...LANDSAT);
  const landsatField = fieldOver(LANDSAT_GRID, [[200, 90], [340, 100], [330, 210], [210, 200]]);

  it.skipIf(skipLandsat)('Landsat without bands: the usual 4-band order, recorded as assumed; with them, as given', async () => {
    const path = sharedPath(...LANDSAT);
    const assumed = await computeZones(path, landsatField, { zones: 3 });
    expect(assumed.input).toEqual({ bands: { order: ['red', 'green', 'blue', 'nir'], source: 'assumed' } });
    const given = await computeZones(path, landsatField, { zones: 3, bandOrder: ['swir1', 'nir', 'red', 'green'] });
    expect(given.input).toEqual({ bands: { order: ['swir1', 'nir', 'red', 'green'], source: 'given' } });
  });

  it('bands the file identifies by GDAL colour interpretation (NIR, Red) are read as such, recorded as from the file', async () => {
    const [width, height] = [20, 10];
    const pixels = new Float32Array(width * height * 2);
    for (let i = 0; i < width * height; i++) pixels.set([0.3, 0.1], i * 2);
    const gdalMetadata =
      '<GDALMetadata><Item name="COLORINTERP" sample="0" role="colorinterp">NIR</Item>' +
      '<Item name="COLORINTERP" sample="1" role="colorinterp">Red</Item></GDALMetadata>';
    const path = writeTiff('colorinterp.tif', { width, height, bands: 2, pixels, gdalMetadata, georef: { epsg: 32615, origin: [720000, 4303000], pixel: 10 } });
    const result = await computeZones(path, await footprintField(path), { zones: 3 });
    expect(result.indexName).toBe('ndvi');
    expect(result.stats.mean).toBeCloseTo(0.5, 5);
    expect(result.input).toEqual({ bands: { order: ['nir', 'red'], source: 'file' } });
  });

  it.skipIf(missingShared(...NAIP))('ndre of a 4-band NAIP file: the order is known, there is no red-edge band', async () => {
    const err = await failure(inspectIndexRaster(sharedPath(...NAIP), 'ndre'));
    expect([err.key, err.params]).toEqual(['raster_band_missing', { index: 'ndre', missing: 'rededge', order: 'red, green, blue, nir', source: 'assumed' }]);
    expect(translate('en', `errors.${err.key}`, err.params as Record<string, string>)).toBe(
      "Cannot compute the ndre index: it needs a rededge band, and the raster's bands are red, green, blue, nir (the usual order for their count; name them with bands if the file stores them otherwise)",
    );
    for (const locale of ['ru', 'sk'] as const) expect(translate(locale, `errors.${err.key}`, err.params as Record<string, string>)).toContain('rededge');
    const given = await failure(inspectIndexRaster(sharedPath(...NAIP), 'ndre', ['red', 'green', 'blue', 'nir']));
    expect(translate('en', `errors.${given.key}`, given.params as Record<string, string>)).toBe("Cannot compute the ndre index: it needs a rededge band, and the raster's bands are red, green, blue, nir");
  });
});

describe('a single-band integer index is read only in a scale that is certain', () => {
  const [width, height] = [30, 20];
  // NDVI 0.2 on the left, 0.6 on the right, as float; gdal_translate writes the integer copies.
  const ndvi = new Float32Array(width * height).map((_, i) => (i % width < 15 ? 0.2 : 0.6));
  const georef = { epsg: 32615, origin: [720000, 4303000] as [number, number], pixel: 10 };
  const integerCopy = (name: string, values: Float32Array, type: string, extra: string[] = []) => {
    const src = writeTiff(`${name}-src.tif`, { width, height, pixels: values, georef });
    const out = join(dir, `${name}.tif`);
    execFileSync('gdal_translate', ['-q', '-ot', type, ...extra, src, out]);
    return out;
  };

  it('Byte and UInt16 without a scale (NDVI x 100, 0..255, x 10000 all occur) answer 422 naming the type', async () => {
    for (const [type, values] of [['Byte', ndvi.map((v) => v * 100)], ['UInt16', ndvi.map((v) => v * 10000)]] as const) {
      const path = integerCopy(`plain-${type}`, values, type);
      const err = await failure(inspectIndexRaster(path, 'auto'));
      expect([err.key, err.params]).toEqual(['raster_index_scale_unknown', { type }]);
    }
  });

  it('Byte with the scale and offset in the file is read by them', async () => {
    // (NDVI + 1) x 100: 120 and 160, back by x 0.01 - 1.
    const path = integerCopy('scaled-byte', ndvi.map((v) => (v + 1) * 100), 'Byte', ['-a_scale', '0.01', '-a_offset', '-1']);
    const result = await computeZones(path, await footprintField(path), { zones: 3 });
    expect(result.stats.min).toBeCloseTo(0.2, 5);
    expect(result.stats.max).toBeCloseTo(0.6, 5);
    expect(result.input).toEqual({ index_encoding: 'file_scale' });
  });

  it('Int16 is read as x 10000 (MODIS, Sentinel-2 products); Int16 NDVI x 100 is refused, not read as 0.002', async () => {
    const tenThousand = integerCopy('int16-x10000', ndvi.map((v) => v * 10000), 'Int16');
    const result = await computeZones(tenThousand, await footprintField(tenThousand), { zones: 3 });
    expect([result.stats.min, result.stats.max].map((v) => Math.round(v * 100) / 100)).toEqual([0.2, 0.6]);
    expect(result.input).toEqual({ index_encoding: 'int_x10000' });
    const hundred = integerCopy('int16-x100', ndvi.map((v) => v * 100), 'Int16');
    const err = await failure(computeZones(hundred, await footprintField(hundred), { zones: 3 }));
    expect([err.key, err.params]).toEqual(['raster_index_scale_unknown', { type: 'Int16' }]);
  });
});
