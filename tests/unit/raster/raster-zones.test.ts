// Zoning real rasters against fields drawn over them: the zones must partition the valid part of
// the field, order classes by index and leave water and nodata out. The valid area is checked
// against an independent per-pixel count done here with geotiff.js, proj4 and turf.
import { bbox, booleanPointInPolygon, difference, feature, featureCollection, intersect, union } from '@turf/turf';
import { fromFile } from 'geotiff';
import type { MultiPolygon, Polygon, Position } from 'geojson';
import proj4 from 'proj4';
import { describe, expect, it } from 'vitest';
import { geometryAreaHa } from '@/lib/geo/area';
import { validateFieldGeometry } from '@/lib/geo/geometry';
import { computeZones, type ZoningOptions, type ZoningResult } from '@/lib/raster/zones';
import { missingShared, sharedPath } from '@/tests/helpers/shared-data';
import { DRONE_GRID, LANDSAT_GRID, NAIP_GRID, type Grid, fieldOver, lonLat } from '@/tests/helpers/raster-grids';

const NAIP = ['raster', 'naip', 'm_4709963_se_14_1_20190904.tif'];
const DRONE = ['raster', 'plantcv', '615.tif'];
const LANDSAT = ['raster', 'landsat', '2020.tif'];


/** Valid pixels (centre inside the field) times the pixel's geodesic area: the expected valid area. */
async function countValidHa(path: string, g: Grid, field: Polygon, valid: (px: number[]) => boolean): Promise<number> {
  const image = await (await fromFile(path)).getImage(0);
  const bands = (await image.readRasters({ interleave: false })) as unknown as ArrayLike<number>[];
  const width = image.getWidth();
  const height = image.getHeight();
  // Only pixels in the field's bounding box can count.
  const [west, south, east, north] = bbox(field);
  const corners = [proj4('WGS84', g.proj, [west, south]), proj4('WGS84', g.proj, [east, north]), proj4('WGS84', g.proj, [west, north]), proj4('WGS84', g.proj, [east, south])];
  const cols = corners.map(([x]) => (x! - g.origin[0]) / g.res[0]);
  const rows = corners.map(([, y]) => (y! - g.origin[1]) / g.res[1]);
  let count = 0;
  let area = 0;
  for (let r = Math.max(0, Math.floor(Math.min(...rows)) - 1); r < Math.min(height, Math.max(...rows) + 1); r++) {
    for (let c = Math.max(0, Math.floor(Math.min(...cols)) - 1); c < Math.min(width, Math.max(...cols) + 1); c++) {
      if (!booleanPointInPolygon(lonLat(g, c + 0.5, r + 0.5), field)) continue;
      if (!valid(bands.map((b) => b[r * width + c]!))) continue;
      count++;
      if (count === 1) {
        area = geometryAreaHa({ type: 'Polygon', coordinates: [[lonLat(g, c, r), lonLat(g, c + 1, r), lonLat(g, c + 1, r + 1), lonLat(g, c, r + 1), lonLat(g, c, r)]] });
      }
    }
  }
  return count * area;
}

const covered = (result: ZoningResult, p: Position) => result.zones.some((z) => booleanPointInPolygon(p, z.geometry));

function expectPartition(result: ZoningResult, field: Polygon, expectedValidHa: number): void {
  const { zones } = result;
  expect(zones.length).toBeGreaterThanOrEqual(2);
  const sum = zones.reduce((s, z) => s + z.areaHa, 0);
  expect(Math.abs(sum - result.validAreaHa) / result.validAreaHa).toBeLessThan(0.005);
  expect(Math.abs(result.validAreaHa - expectedValidHa) / expectedValidHa).toBeLessThan(0.005);
  // No overlaps between zones.
  for (let i = 0; i < zones.length; i++) {
    for (let j = i + 1; j < zones.length; j++) {
      const both = intersect(featureCollection([feature(zones[i]!.geometry), feature(zones[j]!.geometry)]));
      expect(both ? geometryAreaHa(both.geometry) : 0).toBeLessThan(sum * 1e-5);
    }
  }
  // Their union is as big as their sum (again: no overlap) and lies inside the field.
  const all = union(featureCollection(zones.map((z) => feature<Polygon | MultiPolygon>(z.geometry))))!;
  expect(Math.abs(geometryAreaHa(all.geometry) - sum) / sum).toBeLessThan(0.001);
  const outside = difference(featureCollection([all, feature(field)]));
  expect(outside ? geometryAreaHa(outside.geometry) : 0).toBeLessThan(sum * 1e-5);
  // Each zone is valid as a field boundary is (no ring crosses another or itself, holes inside their
  // polygon), and no ring passes twice through a vertex or repeats one in a row (OGC simple rings).
  for (const z of zones) {
    expect(() => validateFieldGeometry(z.geometry), z.name).not.toThrow();
    const rings = z.geometry.type === 'Polygon' ? z.geometry.coordinates : z.geometry.coordinates.flat();
    for (const ring of rings) expect(new Set(ring.slice(0, -1).map((p) => `${p[0]},${p[1]}`)).size, z.name).toBe(ring.length - 1);
  }
  // Mean index rises with class, colours run red to green.
  for (let i = 1; i < zones.length; i++) {
    expect(zones[i]!.classIndex).toBeGreaterThan(zones[i - 1]!.classIndex);
    expect(zones[i]!.mean).toBeGreaterThan(zones[i - 1]!.mean);
  }
  expect(zones[0]!.color).toBe('#d7191c');
  const { stats, histogram } = result;
  expect(stats.min).toBeLessThanOrEqual(stats.median);
  expect(stats.median).toBeLessThanOrEqual(stats.max);
  expect(stats.mean).toBeGreaterThan(stats.min);
  expect(stats.mean).toBeLessThan(stats.max);
  expect(stats.std).toBeGreaterThan(0);
  expect(histogram.counts).toHaveLength(64);
  expect(histogram.counts.every((c) => c >= 0)).toBe(true);
  expect(result.preview.png.subarray(1, 4).toString()).toBe('PNG');
}

const ndviValid = (nir: number, red: number, nodata: number) => nir !== nodata && red !== nodata && nir + red > 0 && nir >= red;
/** A pixel with data that the result's water test left as land: its water index (a, b) below the cut. */
const landBelowCut = (result: ZoningResult, nir: number, red: number, a: number, b: number, nodata: number) =>
  nir !== nodata && red !== nodata && nir + red > 0 && !((a - b) / (a + b) >= (result.leftOut.waterTest?.cut ?? Infinity));

describe('computeZones on NAIP (4-band R,G,B,NIR, UTM 14N, COG, nodata 0)', () => {
  const skip = missingShared(...NAIP);
  if (skip) console.warn(skip);
  // From a pond (pixels 60..120 x 260..320, NDWI about 0.6) across cropland and past the tile's west edge.
  const field = fieldOver(NAIP_GRID, [[-40, 240], [300, 200], [330, 480], [20, 520]]);

  it.skipIf(skip)('partitions the field minus water and no data, orders classes and leaves the pond and the area off the tile out', async () => {
    const path = sharedPath(...NAIP);
    const steps: string[] = [];
    const result = await computeZones(path, field, { zones: 5, method: 'jenks' }, (p, step) => steps.push(`${p}:${step}`));
    expect(result.indexName).toBe('ndvi');
    expect(steps.at(-1)).toBe('100:done');
    const expected = await countValidHa(path, NAIP_GRID, field, ([r, g, , n]) => landBelowCut(result, n!, r!, g!, n!, 0));
    expectPartition(result, field, expected);
    expect(result.leftOut.waterTest?.index).toBe('ndwi');
    expect(covered(result, lonLat(NAIP_GRID, 90, 290))).toBe(false); // pond
    expect(covered(result, lonLat(NAIP_GRID, -20, 400))).toBe(false); // west of the tile
    expect(covered(result, lonLat(NAIP_GRID, 200, 350))).toBe(true);
    expect(result.validAreaHa).toBeLessThan(geometryAreaHa(field) * 0.95);
    expect(result.stats.min).toBeGreaterThanOrEqual(-1);
    expect(result.stats.max).toBeLessThanOrEqual(1);
  });

  for (const method of ['quantile', 'equal', 'kmeans'] as const) {
    it.skipIf(skip)(`${method}: 3 and 7 classes still partition the field`, async () => {
      const path = sharedPath(...NAIP);
      for (const zones of [3, 7]) {
        const result = await computeZones(path, field, { zones, method, minZoneAreaHa: 0.05 });
        expect(result.zones.length).toBeLessThanOrEqual(zones);
        expectPartition(result, field, await countValidHa(path, NAIP_GRID, field, ([r, g, , n]) => landBelowCut(result, n!, r!, g!, n!, 0)));
      }
    });
  }

  it.skipIf(skip)('merges patches smaller than minZoneAreaHa', async () => {
    const path = sharedPath(...NAIP);
    const fine = await computeZones(path, field, { minZoneAreaHa: 0 });
    const coarse = await computeZones(path, field, { minZoneAreaHa: 2 });
    const parts = (r: ZoningResult) => r.zones.reduce((s, z) => s + (z.geometry.type === 'Polygon' ? 1 : z.geometry.coordinates.length), 0);
    expect(parts(coarse)).toBeLessThan(parts(fine));
  });
});

describe('computeZones on a drone clip (float32 B,G,R,RE,NIR reflectance, nodata -10000)', () => {
  const skip = missingShared(...DRONE);
  if (skip) console.warn(skip);
  const field = fieldOver(DRONE_GRID, [[-5, -5], [170, -5], [170, 185], [-5, 185]]);

  for (const index of ['ndvi', 'ndre'] as const) {
    it.skipIf(skip)(`${index}: partitions the clip's valid pixels and leaves nodata out`, async () => {
      const path = sharedPath(...DRONE);
      const opts: Partial<ZoningOptions> = { zones: 4, method: 'quantile', index, minZoneAreaHa: 0.00002 };
      const result = await computeZones(path, field, opts);
      expect(result.indexName).toBe(index);
      const other = index === 'ndvi' ? 2 : 3;
      const expected = await countValidHa(path, DRONE_GRID, field, (px) => ndviValid(px[4]!, px[other]!, -10000));
      expectPartition(result, field, expected);
      expect(covered(result, lonLat(DRONE_GRID, 1.5, 0.5))).toBe(false); // first pixels are -10000
    });
  }

  it.skipIf(skip)('averages pixels finer than minCellM into cells of about that size: far fewer corners, the same ground', async () => {
    const path = sharedPath(...DRONE);
    const opts: Partial<ZoningOptions> = { zones: 4, method: 'quantile', minZoneAreaHa: 0.0005 };
    const fine = await computeZones(path, field, opts);
    const coarse = await computeZones(path, field, { ...opts, minCellM: 0.35 });
    const corners = (r: ZoningResult) => r.zones.reduce((n, z) => n + (z.geometry.type === 'Polygon' ? [z.geometry.coordinates] : z.geometry.coordinates).flat(2).length, 0);
    expect([fine.cellFactor, coarse.cellFactor]).toEqual([1, 10]); // 3.5 cm pixels
    expect(corners(coarse)).toBeLessThan(corners(fine) / 3);
    expect(coarse.validAreaHa).toBeGreaterThan(fine.validAreaHa * 0.95);
    expect(coarse.validAreaHa).toBeLessThan(fine.validAreaHa * 1.05);
  });
});

describe('computeZones on Landsat (EPSG:4326, bands SWIR1,NIR,Red,Green, malformed ExtraSamples)', () => {
  const skip = missingShared(...LANDSAT);
  if (skip) console.warn(skip);
  // Over the river at pixels 240..300 x 120..180 and the forest around it.
  const field = fieldOver(LANDSAT_GRID, [[200, 90], [340, 100], [330, 210], [210, 200]]);
  const bandOrder = ['swir1', 'nir', 'red', 'green'] as const;

  it.skipIf(skip)('with the band order given, zones NDVI and leaves the river out by MNDWI', async () => {
    const path = sharedPath(...LANDSAT);
    const result = await computeZones(path, field, { zones: 5, method: 'jenks', bandOrder: [...bandOrder] });
    expect(result.leftOut.waterTest?.index).toBe('mndwi');
    const expected = await countValidHa(path, LANDSAT_GRID, field, ([s, n, r, g]) => landBelowCut(result, n!, r!, g!, s!, 0));
    expectPartition(result, field, expected);
    expect(result.stats.mean).toBeGreaterThan(0.5); // tropical forest
  });

  it.skipIf(skip)('without it, the usual 4-band order (R,G,B,NIR) gives a different, wrong index', async () => {
    const path = sharedPath(...LANDSAT);
    const right = await computeZones(path, field, { bandOrder: [...bandOrder] });
    const wrong = await computeZones(path, field, { maskWater: false });
    expect(Math.abs(right.stats.mean - wrong.stats.mean)).toBeGreaterThan(0.1);
  });
});
