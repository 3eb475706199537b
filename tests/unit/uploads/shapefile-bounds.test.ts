// The bounds of one shapefile record and of its .prj, read through readShapefileFiles as the import
// reads them. A polygon of 20,000 parts held the web process for 87 s (the `shapefile` library sorted
// its rings by testing every hole against every outer ring, then every pair of rings was compared
// again); rings wound round one vertex, or crossing 90,000 times, held it for minutes more; a .prj
// naming a grid file made proj4 print to stderr and every vertex NaN. Each is now refused, named, in
// one pass over the record's header or the .prj. No timing is asserted: the bench measures speed.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_RINGS, MAX_VERTICES } from '@/lib/geo/geometry';
import { MAX_REPAIRED_CROSSINGS } from '@/lib/geo/repair';
import { polygonRecord, readShapefileFiles } from '@/lib/uploads/shapefile-layers';
import { type Ring, type ShpFeature, polygonLayer, squareRing, squaresSideBySide } from './shp-writer';

/** The layer's files written to a folder of their own, read as the import reads an extracted archive. */
function read(features: ShpFeature[], opts: Parameters<typeof polygonLayer>[1] = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'shp-bounds-'));
  const files = Object.entries(polygonLayer(features, opts)).map(([name, data]) => {
    writeFileSync(join(dir, name), data);
    return join(dir, name);
  });
  return readShapefileFiles(files, dir);
}

const ringsOf = (g: { type: string; coordinates: unknown }) => (g.type === 'Polygon' ? (g.coordinates as Ring[]) : (g.coordinates as Ring[][]).flat());

afterEach(() => vi.restoreAllMocks());

describe('a record of many parts', () => {
  it('a polygon of 20,000 parts is skipped with the bound, from its header; the feature beside it is imported', async () => {
    const read20k = await read([{ rings: squaresSideBySide(20_000), name: 'parts' }, { rings: [squareRing(17, 48, 0.001)], name: 'plain' }]);
    expect(read20k.features.map((f) => f.name)).toEqual(['plain']);
    expect(read20k.skipped).toEqual([{ seq: 0, feature: 'fields #1 (parts)', key: 'geometry_too_many_rings', params: { count: 20_000, max: MAX_RINGS } }]);
  });

  it('the record reader answers a record over the bounds from its counts, without reading a point', () => {
    // A record's header only: type, box, 20,000 parts and 80,000 points, then their part starts and
    // room for the points (zeros; never read).
    const record = new DataView(new ArrayBuffer(44 + 4 * 20_000 + 16 * 80_000));
    record.setInt32(0, 5, true);
    record.setInt32(36, 20_000, true);
    record.setInt32(40, 80_000, true);
    expect(polygonRecord(record)).toEqual({ type: 'OverBounds', rings: 20_000, vertices: 60_000 });
    record.setInt32(36, 1, true);
    record.setInt32(40, MAX_VERTICES + 2, true);
    expect(() => polygonRecord(record)).toThrow(RangeError); // counts the record is too short for: damaged
  });

  it('lists rings as the .shp does, whatever their winding: nesting decides which are holes', () => {
    const outer = squareRing(17, 48, 0.01).reverse(); // anticlockwise: a "hole" by the shapefile rule
    const hole = squareRing(17.004, 48.004, 0.002); // clockwise: an "outer ring"
    const points = [...outer, ...hole];
    const record = new DataView(new ArrayBuffer(44 + 8 + 16 * points.length));
    record.setInt32(0, 5, true);
    record.setInt32(36, 2, true);
    record.setInt32(40, points.length, true);
    record.setInt32(48, outer.length, true);
    points.forEach(([x, y], i) => {
      record.setFloat64(52 + 16 * i, x, true);
      record.setFloat64(60 + 16 * i, y, true);
    });
    expect(polygonRecord(record)).toEqual({ type: 'MultiPolygon', coordinates: [[outer], [hole]] });
  });

  it('a polygon of 1,000 parts, the bound, is imported whole, its parts and a hole nested', async () => {
    const parts = squaresSideBySide(999);
    const withHole = [squareRing(35.9, 55.9, 0.01), squareRing(35.903, 55.903, 0.002)];
    const { features, skipped } = await read([{ rings: [...parts.slice(0, 998), ...withHole] }]);
    expect(skipped).toEqual([]);
    expect(features).toHaveLength(1);
    const g = features[0]!.geometry;
    expect(g.type).toBe('MultiPolygon');
    expect(g.coordinates).toHaveLength(999);
    expect(ringsOf(g)).toHaveLength(MAX_RINGS);
    expect((g.coordinates as Ring[][]).filter((p) => p.length === 2)).toHaveLength(1);
  });
});

describe('a record of empty parts', () => {
  it('is no polygon, skipped, even first in a layer whose system needs a first point (S-JTSK): it had answered 500', async () => {
    const krovak = [[-600_000, -1_200_000], [-599_900, -1_200_000], [-599_900, -1_199_900], [-600_000, -1_199_900], [-600_000, -1_200_000]] as Ring;
    const { features, skipped } = await read([{ rings: [[]], name: 'empty' }, { rings: [krovak], name: 'plain' }], { prj: 'EPSG:5514' });
    expect(features.map((f) => f.name)).toEqual(['plain']);
    expect(skipped.map((s) => s.seq)).toEqual([0]);
  });
});

describe('records too intricate to check or to repair', () => {
  it('a ring wound round one vertex 30,000 times, and a thousand rings nested in one another, are refused as too intricate', async () => {
    const petals = 30_000;
    const centre: [number, number] = [38, 54];
    const flower: Ring = [];
    for (let k = 0; k < petals; k++) {
      const [a, b] = [(2 * Math.PI * k) / petals, (2 * Math.PI * (k + 0.5)) / petals];
      flower.push(centre, [38 + 0.01 * Math.cos(a), 54 + 0.01 * Math.sin(a)], [38 + 0.01 * Math.cos(b), 54 + 0.01 * Math.sin(b)]);
    }
    flower.push(centre);
    const circle = (r: number): Ring => {
      const ring = Array.from({ length: 96 }, (_, k): [number, number] => [37 + r * Math.cos((2 * Math.PI * k) / 96), 55 + r * Math.sin((2 * Math.PI * k) / 96)]);
      return [...ring, ring[0]!];
    };
    const nested = Array.from({ length: 1000 }, (_, i) => circle(0.01 * (1 - i / 1000)));
    const { features, skipped } = await read([{ rings: [flower.reverse()], name: 'flower' }, { rings: nested, name: 'nested' }]);
    expect(features).toEqual([]);
    expect(skipped.map((s) => [s.feature, s.key])).toEqual([
      ['fields #1 (flower)', 'geometry_too_complex'],
      ['fields #2 (nested)', 'geometry_too_complex'],
    ]);
  });

  it('a ring crossing itself 90,000 times is refused with where it crosses, without the repair trying it', async () => {
    const ring: Ring = [];
    for (let i = 0; i < 300; i++) ring.push(...((i % 2 ? [[40.03, 52 + i * 1e-4], [40, 52 + i * 1e-4]] : [[40, 52 + i * 1e-4], [40.03, 52 + i * 1e-4]]) as Ring));
    for (let i = 0; i < 300; i++) ring.push(...((i % 2 ? [[40 + i * 1e-4, 51.999], [40 + i * 1e-4, 52.03]] : [[40 + i * 1e-4, 52.03], [40 + i * 1e-4, 51.999]]) as Ring));
    ring.push(ring[0]!);
    const { features, skipped } = await read([{ rings: [ring] }]);
    expect(features).toEqual([]);
    expect(skipped).toMatchObject([{ key: 'geometry_self_intersection' }]);
    expect(MAX_REPAIRED_CROSSINGS).toBeLessThan(90_000);
  });
});

describe('the .prj, checked before any feature is read', () => {
  const one: ShpFeature[] = [{ rings: [squareRing(17, 48, 0.001)] }];

  it.each([
    ['empty', ''],
    ['garbage', 'this is not WKT ((((('],
    ['binary', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0x00, 0xfe])],
    ['UTF-16 without a system', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('GEOGCS', 'utf16le')])],
    ['an EPSG code that is not one', 'EPSG:-1'],
  ])('a .prj that is %s could not be read, naming the file', async (_label, prj) => {
    await expect(read(one, { prj })).rejects.toMatchObject({ key: 'shp_prj_unreadable', params: { file: 'fields.prj' } });
  });

  it('a WKT written in UTF-16 with its byte-order mark is read', async () => {
    const prj = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]', 'utf16le')]);
    expect((await read(one, { prj })).features).toHaveLength(1);
  });

  it('a system that needs a grid file is refused naming it, and proj4 never looks for the file', async () => {
    const log = vi.spyOn(console, 'log');
    await expect(read(one, { prj: '+proj=utm +zone=33 +datum=WGS84 +units=m +no_defs +nadgrids=/etc/passwd' })).rejects.toMatchObject({
      key: 'shp_prj_grid',
      params: { file: 'fields.prj', grid: '/etc/passwd' },
    });
    await expect(read(one, { prj: 'EPSG:31467' })).rejects.toMatchObject({ key: 'shp_prj_grid', params: { grid: 'BETA2007.gsb' } });
    expect(log).not.toHaveBeenCalled();
  });

  it('impossible parameters are refused naming them: a zero scale factor, a NaN meridian, a UTM zone 99999, an empty ellipsoid', async () => {
    const tm = (params: string) =>
      `PROJCS["x",GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],PARAMETER["False_Easting",500000.0],${params},UNIT["Meter",1.0]]`;
    for (const [prj, parameter, value] of [
      [tm('PARAMETER["Central_Meridian",15],PARAMETER["Scale_Factor",0]'), 'Scale_Factor', '0'],
      [tm('PARAMETER["Central_Meridian",NaN],PARAMETER["Scale_Factor",0.9996]'), 'Central_Meridian', 'NaN'],
      ['+proj=utm +zone=99999 +datum=WGS84 +units=m +no_defs', 'zone', '99999'],
      ['GEOGCS["x",DATUM["y",SPHEROID["z",0,0],TOWGS84[NaN,Infinity,1e308,0,0,0,0]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]]', 'SPHEROID z', '0'],
    ]) {
      await expect(read(one, { prj })).rejects.toMatchObject({ key: 'shp_prj_bad_parameter', params: { file: 'fields.prj', parameter, value } });
    }
  });
});
