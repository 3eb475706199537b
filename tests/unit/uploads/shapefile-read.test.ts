// Reading shapefile archives (lib/uploads/shapefile-layers.ts) against GDAL as the oracle: the same
// vertices after reprojection to WGS84 (within 5 cm), the same decoded text; plus the repair of
// self-touching rings and the overlap measure used to skip duplicates.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Position } from 'geojson';
import * as shapefile from 'shapefile';
import { describe, expect, it } from 'vitest';
import { geometryAreaHa } from '@/lib/geo/area';
import type { FieldGeometry } from '@/lib/geo/geometry';
import { boundingBox, validateFieldGeometry } from '@/lib/geo/geometry';
import { boundaryIndex, intersectionOverUnion, sampledIntersectionOverUnion } from '@/lib/geo/overlap';
import { nestRings } from '@/lib/geo/nest-rings';
import { splitSelfTouchingRings } from '@/lib/geo/ring-split';
import { repairGeometry } from '@/lib/geo/repair';
import { detectEncoding, encodingFromCpg, pickColumns, readShapefileFiles } from '@/lib/uploads/shapefile-layers';
import { extractZipSafely } from '@/lib/uploads/zip-archive';
import { missingShared, sharedPath } from '../../helpers/shared-data';
import { ogr2ogrAvailable, shapefileZip, square } from '../../helpers/shapefile-zip';

const tmp = () => mkdtempSync(join(tmpdir(), 'shp-unit-'));
const readZip = async (zip: string, dir = tmp()) => readShapefileFiles(await extractZipSafely(zip, dir), dir);
const metres = (a: Position, b: Position) => {
  const dy = (a[1]! - b[1]!) * 111_320;
  const dx = (a[0]! - b[0]!) * 111_320 * Math.cos((a[1]! * Math.PI) / 180);
  return Math.hypot(dx, dy);
};
const ringsOf = (g: FieldGeometry) => (g.type === 'Polygon' ? g.coordinates : g.coordinates.flat());

const missing = missingShared('vector', 'lpis', 'sk_lpis_2024.zip') ?? (ogr2ogrAvailable() ? undefined : 'ogr2ogr (gdal-bin) is not installed');
if (missing) console.warn(`skipping the GDAL comparison: ${missing}`);

describe.skipIf(!!missing)('reprojection agrees with GDAL/PROJ', () => {
  for (const file of ['sk_lpis_2024', 'cz_lpis_2023', 'de_bb_gsa_2025', 'bg_arable_2024', 'ro_eurocrops_2021']) {
    it(`${file}: every vertex within 5 cm of ogr2ogr's`, async () => {
      const zip = sharedPath('vector', 'lpis', `${file}.zip`);
      const ours = await readZip(zip);
      const out = join(tmp(), 'gdal.geojson');
      const shp = execFileSync('unzip', ['-Z1', zip], { encoding: 'utf8' }).split('\n').find((n) => n.toLowerCase().endsWith('.shp'))!;
      execFileSync('ogr2ogr', ['-f', 'GeoJSON', out, `/vsizip/${zip}/${shp}`, '-t_srs', 'EPSG:4326', '-lco', 'COORDINATE_PRECISION=10'], { stdio: 'pipe' });
      const gdal = JSON.parse(readFileSync(out, 'utf8')).features as { geometry: FieldGeometry }[];
      let worst = 0;
      for (const f of ours.features) {
        const reference = ringsOf(gdal[f.index]!.geometry).flat();
        for (const ring of ringsOf(f.geometry)) {
          for (const p of ring.slice(0, 8)) worst = Math.max(worst, Math.min(...reference.map((q) => metres(p, q))));
        }
      }
      expect(worst).toBeLessThan(0.05);
    });
  }
});

describe('text encodings', () => {
  it('reads code pages from .cpg files as GIS tools write them', () => {
    expect(encodingFromCpg('1251')).toBe('windows-1251');
    expect(encodingFromCpg('CP1251\n')).toBe('windows-1251');
    expect(encodingFromCpg('ANSI 1250')).toBe('windows-1250');
    expect(encodingFromCpg('windows-1252')).toBe('windows-1252');
    expect(encodingFromCpg('UTF-8')).toBe('utf-8');
    expect(encodingFromCpg('866')).toBe('ibm866');
    expect(encodingFromCpg('nonsense')).toBeUndefined();
  });

  const cp = missingShared('vector', 'cp1251_points', 'shapefile-point-win1251.zip');
  it.skipIf(!!cp)('detects CP1251 without a .cpg and decodes it as the UTF-8 twin reads', async () => {
    const dir = tmp();
    execFileSync('unzip', ['-q', '-o', sharedPath('vector', 'cp1251_points', 'shapefile-point-win1251.zip'), '-d', join(dir, 'w')]);
    execFileSync('unzip', ['-q', '-o', sharedPath('vector', 'cp1251_points', 'shapefile-point-utf8.zip'), '-d', join(dir, 'u')]);
    const dbf = readFileSync(join(dir, 'w', 'layer.dbf'));
    const encoding = detectEncoding(dbf.subarray(dbf.readUInt16LE(8)));
    expect(encoding).toBe('windows-1251');
    const w = await shapefile.read(join(dir, 'w', 'layer.shp'), join(dir, 'w', 'layer.dbf'), { encoding });
    const u = await shapefile.read(join(dir, 'u', 'layer.shp'), join(dir, 'u', 'layer.dbf'), { encoding: 'utf-8' });
    expect(w.features.map((f) => f.properties)).toEqual(u.features.map((f) => f.properties));
    expect(String(u.features[0]!.properties!.unicode)).toMatch(/^Значимость этих проблем/);
  });

  it('keeps ASCII as UTF-8 and tells Cyrillic from Latin code pages by their bytes', () => {
    expect(detectEncoding(Buffer.from('plain ascii'))).toBe('utf-8');
    expect(detectEncoding(Buffer.from('Dočasný travní porost', 'utf8'))).toBe('utf-8');
    expect(detectEncoding(Buffer.from([0xcf, 0xee, 0xeb, 0xe5, 0x20, 0xb9, 0x31]))).toBe('windows-1251'); // "Поле №1"
    expect(detectEncoding(Buffer.from([0x47, 0x72, 0xfc, 0x6e, 0x6c, 0x61, 0x6e, 0x64]))).toBe('windows-1252'); // "Grünland"
    // Slovak without a .cpg: "Roľnícke družstvo Šaľa" in 1250, whose ľ is ¾ in 1252.
    expect(detectEncoding(Buffer.from([0x52, 0x6f, 0xbe, 0x6e, 0xed, 0x63, 0x6b, 0x65, 0x20, 0x64, 0x72, 0x75, 0x9e, 0x73, 0x74, 0x76, 0x6f, 0x20, 0x8a, 0x61, 0xbe, 0x61]))).toBe('windows-1250');
    expect(detectEncoding(Buffer.from([0x43, 0x61, 0x66, 0xe9, 0x20, 0x64, 0x75, 0x20, 0x70, 0xe8, 0x72, 0x65]))).toBe('windows-1252'); // "Café du père"
  });
});

describe('self-touching rings', () => {
  // A square with a hole shaped like a figure eight: both loops meet at (0.5, 0.5).
  const eight = [[0.3, 0.3], [0.5, 0.5], [0.7, 0.3], [0.7, 0.5], [0.5, 0.5], [0.3, 0.7], [0.3, 0.5], [0.3, 0.3]];
  const outer = [[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]];
  it('splits a figure-eight hole into two holes touching at a point, keeping the area', () => {
    const g: FieldGeometry = { type: 'Polygon', coordinates: [outer, eight] };
    const split = splitSelfTouchingRings(g)!;
    expect(split.type).toBe('Polygon');
    expect(split.coordinates).toHaveLength(3);
    expect(() => validateFieldGeometry(split)).not.toThrow();
    expect(geometryAreaHa(split)).toBeCloseTo(geometryAreaHa(g), 6);
  });

  it('splits an outer ring that pinches off a loop outside itself into two polygons', () => {
    const bow: FieldGeometry = { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [2, 1], [2, 2], [1, 2], [1, 1], [0, 1], [0, 0]]] };
    const split = splitSelfTouchingRings(bow)!;
    expect(split.type).toBe('MultiPolygon');
    expect(split.coordinates).toHaveLength(2);
    expect(geometryAreaHa(split)).toBeCloseTo(geometryAreaHa(bow), 6);
  });

  it('leaves simple rings alone', () => {
    expect(splitSelfTouchingRings({ type: 'Polygon', coordinates: [outer] })).toBeUndefined();
  });
});

describe('overlap', () => {
  const a = square(17, 48, 100) as FieldGeometry;
  const shifted = (g: FieldGeometry, dLon: number) => ({ type: 'Polygon', coordinates: [g.coordinates[0]!.map((p) => [(p as number[])[0]! + dLon, (p as number[])[1]!])] }) as FieldGeometry;
  it('measures intersection over union on the ellipsoid', () => {
    expect(intersectionOverUnion(a, a)).toBeCloseTo(1, 6);
    const width = (a.coordinates[0]![1] as number[])[0]! - 17;
    // Shifted by a tenth of its width: 0.9 / 1.1 overlap.
    expect(intersectionOverUnion(a, shifted(a, width / 10))).toBeCloseTo(0.9 / 1.1, 3);
    expect(intersectionOverUnion(a, shifted(a, width * 2))).toBe(0);
  });

  it('still measures a parcel and its copy from another coordinate system, which the clipper gives up on', () => {
    // "Поле с прудом" as read from a UTM file and from its copy in LAEA (EPSG:3035): the same
    // rectangle, its edges a fifth of a millimetre apart. turf's clipper threw on the pair, which
    // counted as no overlap, and the copy was imported as a second field.
    const utm: FieldGeometry = { type: 'Polygon', coordinates: [[[39.54, 47.099999999999994], [39.54, 47.10499999999999], [39.550000000000004, 47.10499999999999], [39.550000000000004, 47.1], [39.54, 47.099999999999994]]] };
    const laea: FieldGeometry = { type: 'Polygon', coordinates: [[[39.53999999999999, 47.100000002145386], [39.54000000000001, 47.10500000214633], [39.550000000000004, 47.10500000214633], [39.55000000000001, 47.100000002145364], [39.53999999999999, 47.100000002145386]]] };
    expect(intersectionOverUnion(utm, laea)).toBeGreaterThan(0.99);
    expect(boundaryIndex([utm]).hasDuplicate(boundingBox(laea), () => laea)).toBe(true);
    // The estimate the clipper falls back on agrees with the exact measure where both work.
    const width = (a.coordinates[0]![1] as number[])[0]! - 17;
    expect(sampledIntersectionOverUnion(a, shifted(a, width / 10))).toBeCloseTo(0.9 / 1.1, 2);
    expect(sampledIntersectionOverUnion(a, shifted(a, width * 2))).toBe(0);
  });

  it('finds a duplicate above the threshold only', () => {
    const width = (a.coordinates[0]![1] as number[])[0]! - 17;
    const index = boundaryIndex([a]);
    const probe = (g: FieldGeometry) => index.hasDuplicate(boundingBox(g), () => g);
    expect(probe(shifted(a, width / 100))).toBe(true);
    expect(probe(shifted(a, width / 10))).toBe(false);
    expect(probe(square(18, 48, 100) as FieldGeometry)).toBe(false);
  });
});

const CRS_CASES: [string, string, number, number][] = [
  // [label, -t_srs for ogr2ogr, lon, lat]
  ['WGS 84 / UTM 1N', 'EPSG:32601', -177.5, 52],
  ['WGS 84 / UTM 37N', 'EPSG:32637', 39.5, 45],
  ['WGS 84 / UTM 60S', 'EPSG:32760', 178.5, -40],
  ['ETRS89 / UTM 32N', 'EPSG:25832', 9.5, 51],
  ['S-JTSK / Krovak East North', 'EPSG:5514', 16.6, 49.2],
  // Shifts EPSG states in the coordinate-frame convention, which proj4 reads as position vector.
  ['S-JTSK [JTSK03] / Krovak East North (Slovakia)', 'EPSG:8353', 18.0, 48.3],
  ['Pulkovo 1942(58) / Stereo70 (Romania)', 'EPSG:3844', 25, 45.5],
  ['Pulkovo 1995 / Gauss-Kruger zone 7', 'EPSG:20007', 39, 47],
  // S-JTSK on Krovak's own south-west axes, from Greenwich and from Ferro (they landed in northern Russia).
  // (In Czechia: on the ESRI .prj it writes for 5513, GDAL takes the 6 m shift for both countries, not Slovakia's.)
  ['S-JTSK / Krovak (south, west)', 'EPSG:5513', 16.6, 49.2],
  ['S-JTSK (Ferro) / Krovak', 'EPSG:2065', 15, 49.8],
  // GDAL writes ESRI names without codes: the system is found by its name, or its datum by EPSG's.
  ['HD72 / EOV (Hungary)', 'EPSG:23700', 19, 47.3],
  ['LKS-92 / Latvia TM', 'EPSG:3059', 24.1, 56.9],
  ['D96/TM', 'EPSG:3794', 14.5, 46.05],
  ['SWEREF99 TM', 'EPSG:3006', 15, 59.3],
  ['NZGD2000 / NZTM', 'EPSG:2193', 172.6, -43.5],
  ['Pulkovo 1942 / Gauss-Kruger zone 7 (Russia)', 'EPSG:28407', 39.2, 51.7],
  ['Pulkovo 1942 / Gauss-Kruger zone 13 (Kazakhstan)', 'EPSG:28413', 76.9, 43.25],
  ['Pulkovo 1942 / Gauss-Kruger zone 10 (Turkmenistan)', 'EPSG:28410', 58.4, 37.9],
  ['MSK-50 zone 1 (WKT)', '+proj=tmerc +lat_0=0 +lon_0=35.48333333333 +k=1 +x_0=1250000 +y_0=-5712900.566 +ellps=krass +towgs84=23.57,-140.95,-79.8,0,0.35,0.79,-0.22 +units=m +no_defs', 36, 55.5],
  ['ETRS89 geographic', 'EPSG:4258', 13.4, 52.5],
  ['OSGB 1936 / British National Grid', 'EPSG:27700', -1.5, 52.6],
  ['Pulkovo 1942(58) / Poland CS92', 'EPSG:2180', 19.5, 52],
];

describe.skipIf(!ogr2ogrAvailable())('coordinate systems written by GDAL', () => {
  for (const [label, srs, lon, lat] of CRS_CASES) {
    it(`${label}: read back within 5 cm of GDAL`, async () => {
      const { shapefileZip } = await import('../../helpers/shapefile-zip');
      const dir = tmp();
      const zipPath = join(dir, 'in.zip');
      const { writeFileSync } = await import('node:fs');
      writeFileSync(zipPath, await shapefileZip({ features: [{ geometry: square(lon, lat, 300), properties: { name: label } }], srs }));
      const ours = await readZip(zipPath, join(dir, 'x'));
      expect(ours.features).toHaveLength(1);
      const out = join(dir, 'gdal.geojson');
      execFileSync('ogr2ogr', ['-f', 'GeoJSON', out, `/vsizip/${zipPath}/fields.shp`, '-t_srs', 'EPSG:4326', '-lco', 'COORDINATE_PRECISION=10'], { stdio: 'pipe' });
      const reference = ringsOf(JSON.parse(readFileSync(out, 'utf8')).features[0].geometry).flat();
      const worst = Math.max(...ringsOf(ours.features[0]!.geometry).flat().map((p) => Math.min(...reference.map((q) => metres(p, q)))));
      expect(worst).toBeLessThan(0.05);
    });
  }
});

describe('rings, columns and files as GIS tools write them', () => {
  const rect = (w: number, s: number, e: number, n: number): Position[] => [[w, s], [e, s], [e, n], [w, n], [w, s]];

  it('tells holes by how rings nest, whatever their winding', () => {
    // Outer ring counter-clockwise, hole clockwise: the other way round from the shapefile rule.
    const g = nestRings([rect(39.4, 47.2, 39.42, 47.21), rect(39.405, 47.202, 39.41, 47.205).reverse()]);
    expect(g.type).toBe('Polygon');
    expect(g.coordinates).toHaveLength(2);
    const whole = geometryAreaHa({ type: 'Polygon', coordinates: [rect(39.4, 47.2, 39.42, 47.21)] });
    const hole = geometryAreaHa({ type: 'Polygon', coordinates: [rect(39.405, 47.202, 39.41, 47.205)] });
    expect(geometryAreaHa(g)).toBeCloseTo(whole - hole, 6);
    // An island inside the hole is a part of its own; a ring far away too.
    const three = nestRings([rect(39.4, 47.2, 39.42, 47.21), rect(39.405, 47.202, 39.41, 47.205), rect(39.406, 47.203, 39.407, 47.204), rect(39.5, 47.2, 39.51, 47.21)]);
    expect(three.type).toBe('MultiPolygon');
    expect((three.coordinates as Position[][][]).map((p) => p.length).sort()).toEqual([1, 1, 2]);
  });

  it('untangles a boundary that overshoots its start, though its two parts touch at a vertex', () => {
    // A GPS walk that overshoots the corner it started from.
    const walk = { type: 'Polygon' as const, coordinates: [[[39.6, 47.26], [39.6, 47.27], [39.61, 47.27], [39.61, 47.26], [39.6001, 47.26], [39.59995, 47.26005], [39.6, 47.26]]] };
    const repaired = repairGeometry(walk)!;
    expect(repaired).toBeDefined();
    expect(geometryAreaHa(repaired)).toBeGreaterThan(84.1);
    expect(geometryAreaHa(repaired)).toBeLessThan(84.2);
  });

  it('finds columns whose names the DBF cut to 10 bytes', () => {
    // UTF-8 Cyrillic keeps 5 letters; a cut through a letter leaves a replacement character.
    expect(pickColumns(['назва', 'владе', 'стату', 'кад_н\ufffd'])).toMatchObject({ name: 'назва', owner: 'владе', status: 'стату', parcel_number: 'кад_н\ufffd' });
    expect(pickColumns(['наименован', 'собственни', 'кадастровы'])).toMatchObject({ name: 'наименован', owner: 'собственни', parcel_number: 'кадастровы' });
    expect(pickColumns(['nazov', 'pravny_vzt', 'cislo_parc'])).toMatchObject({ name: 'nazov', status: 'pravny_vzt', parcel_number: 'cislo_parc' });
    expect(pickColumns(['КН', 'Собственн'])).toMatchObject({ parcel_number: 'КН', owner: 'Собственн' });
    // A whole name wins over a cut one, and short names are not taken for cut ones.
    expect(pickColumns(['name', 'названи'])).toMatchObject({ name: 'name' });
    expect(pickColumns(['own', 'stat'])).toEqual({ identifier: undefined });
  });

  it.skipIf(!ogr2ogrAvailable())('reads upper-case file names, and refuses a damaged .shp or an unreadable column type with a reason', async () => {
    const JSZip = (await import('jszip')).default;
    const { writeFileSync } = await import('node:fs');
    const dir = tmp();
    const made = await JSZip.loadAsync(await shapefileZip({ features: [{ geometry: square(17.1, 48.1, 200), properties: { name: 'Veľké pole', sown: 5 } }], encoding: 'UTF-8' }));
    const write = async (name: string, edit: (file: string, bytes: Uint8Array) => [string, Uint8Array]) => {
      const zip = new JSZip();
      for (const [file, entry] of Object.entries(made.files)) {
        const [to, bytes] = edit(file, await entry.async('uint8array'));
        zip.file(to, bytes);
      }
      const path = join(dir, name);
      writeFileSync(path, await zip.generateAsync({ type: 'uint8array' }));
      return path;
    };
    // As Windows tools name them: PARCELS.SHP, PARCELS.DBF...
    const upper = await readZip(await write('upper.zip', (f, b) => [f.replace(/\.(\w+)$/, (m) => m.toUpperCase()).replace('fields', 'PARCELS'), b]));
    expect(upper.features.map((f) => f.name)).toEqual(['Veľké pole']);
    // A .shp cut inside its record.
    const cut = await write('cut.zip', (f, b) => [f, f.endsWith('.shp') ? b.subarray(0, 130) : b]);
    await expect(readZip(cut)).rejects.toMatchObject({ key: 'shp_corrupt', params: { file: 'fields.shp' } });
    // A Visual FoxPro integer column (type I), which the reader cannot decode.
    const foxpro = await write('foxpro.zip', (f, b) => {
      if (!f.endsWith('.dbf')) return [f, b];
      const out = Uint8Array.from(b);
      for (let at = 32; out[at] !== 0x0d; at += 32) if (new TextDecoder().decode(out.subarray(at, at + 4)).toLowerCase() === 'sown') out[at + 11] = 'I'.charCodeAt(0);
      return [f, out];
    });
    await expect(readZip(foxpro)).rejects.toMatchObject({ key: 'shp_dbf_column_type', params: { file: 'fields.dbf', column: 'sown', type: 'I' } });
  });

  it.skipIf(!ogr2ogrAvailable())('leaves out records the attribute table marks deleted, as GIS tools show the layer', async () => {
    const JSZip = (await import('jszip')).default;
    const { writeFileSync } = await import('node:fs');
    const names = ['Horné', 'Stredné', 'Dolné'];
    const made = await JSZip.loadAsync(
      await shapefileZip({ features: names.map((name, i) => ({ geometry: square(17.1 + i * 0.01, 48.1, 200), properties: { name } })), encoding: 'UTF-8' }),
    );
    const zip = new JSZip();
    for (const [file, entry] of Object.entries(made.files)) {
      const bytes = Uint8Array.from(await entry.async('uint8array'));
      if (file.endsWith('.dbf')) {
        // The deletion flag is the first byte of a record: '*' instead of ' '.
        const view = new DataView(bytes.buffer);
        bytes[view.getUint16(8, true) + view.getUint16(10, true)] = 0x2a;
      }
      zip.file(file, bytes);
    }
    const path = join(tmp(), 'deleted.zip');
    writeFileSync(path, await zip.generateAsync({ type: 'uint8array' }));
    const read = await readZip(path);
    expect(read.features.map((f) => f.name)).toEqual(['Horné', 'Dolné']);
    expect(read.skipped).toEqual([]);
    // GDAL lists the same two (its header count still says 3, as the file's header does).
    const listed = execFileSync('ogrinfo', ['-ro', '-al', `/vsizip/${path}`], { encoding: 'utf8' });
    expect([...listed.matchAll(/name \(String\) = (.+)/g)].map((m) => m[1])).toEqual(['Horné', 'Dolné']);
  });
});

describe.skipIf(!ogr2ogrAvailable())('damaged attribute tables and vertices that are not numbers', () => {
  const names = ['Horné', 'Stredné', 'Dolné'];
  const made = shapefileZip({ features: names.map((name, i) => ({ geometry: square(17.1 + i * 0.01, 48.1, 200), properties: { name } })), encoding: 'UTF-8' });

  /** The archive with its .dbf or .shp rewritten, read as an import reads it. */
  async function readEdited(ext: 'dbf' | 'shp', edit: (bytes: Buffer) => Buffer) {
    const JSZip = (await import('jszip')).default;
    const { writeFileSync } = await import('node:fs');
    const source = await JSZip.loadAsync(await made);
    const zip = new JSZip();
    for (const [file, entry] of Object.entries(source.files)) {
      const bytes = Buffer.from(await entry.async('uint8array'));
      zip.file(file, file.endsWith(`.${ext}`) ? edit(bytes) : bytes);
    }
    const path = join(tmp(), `${ext}-edited.zip`);
    writeFileSync(path, await zip.generateAsync({ type: 'uint8array' }));
    return readZip(path);
  }
  const dbfLayout = (dbf: Buffer) => ({ headerLength: dbf.readUInt16LE(8), recordLength: dbf.readUInt16LE(10) });

  it('reads the archive as GDAL wrote it', async () => {
    expect((await readEdited('dbf', (b) => b)).features.map((f) => f.name)).toEqual(names);
  });

  // The reader gave the shapes past the table's end no attributes, and the import called it a success.
  const damaged: [string, (dbf: Buffer) => Buffer][] = [
    ['a table with fewer records than the .shp (its header agreeing)', (b) => {
      const { headerLength, recordLength } = dbfLayout(b);
      const out = Buffer.from(b.subarray(0, headerLength + 2 * recordLength));
      out.writeUInt32LE(2, 4);
      return out;
    }],
    ['a table whose header counts 3 records, cut after the first', (b) => b.subarray(0, dbfLayout(b).headerLength + dbfLayout(b).recordLength)],
    ['a table of its header only', (b) => b.subarray(0, dbfLayout(b).headerLength)],
    ['a header length past the end of the file', (b) => Buffer.from(b).fill(0xff, 8, 10)],
    // These three were a TypeError inside the reader: a 500.
    ['an empty .dbf', () => Buffer.alloc(0)],
    ['a .dbf of 31 bytes', (b) => b.subarray(0, 31)],
    ['a header length of 5', (b) => {
      const out = Buffer.from(b);
      out.writeUInt16LE(5, 8);
      return out;
    }],
    ['a record length of 0', (b) => {
      const out = Buffer.from(b);
      out.writeUInt16LE(0, 10);
      return out;
    }],
  ];
  for (const [label, edit] of damaged) {
    it(`refuses ${label} as a damaged fields.dbf`, async () => {
      await expect(readEdited('dbf', edit)).rejects.toMatchObject({ key: 'shp_corrupt', params: { file: 'fields.dbf' } });
    });
  }

  it('still reads a table without its end-of-file byte', async () => {
    const read = await readEdited('dbf', (b) => {
      const { headerLength, recordLength } = dbfLayout(b);
      return b.subarray(0, headerLength + 3 * recordLength);
    });
    expect(read.features.map((f) => f.name)).toEqual(names);
  });

  /** Where each record's first vertex lies in a .shp of one-ring polygons. */
  function firstVertexOffsets(shp: Buffer): number[] {
    const out: number[] = [];
    for (let at = 100; at + 8 <= shp.length; at += 8 + 2 * shp.readInt32BE(at + 4)) out.push(at + 8 + 4 + 32 + 4 + 4 + 4);
    return out;
  }

  for (const [label, value] of [['NaN', Number.NaN], ['infinite', Number.POSITIVE_INFINITY]] as const) {
    it(`skips a polygon with a ${label} vertex, naming it, and imports the others`, async () => {
      // The second record, so that the first settles the coordinate system; proj4 threw on it (a 500).
      const read = await readEdited('shp', (b) => {
        const out = Buffer.from(b);
        out.writeDoubleLE(value, firstVertexOffsets(out)[1]! + 8);
        return out;
      });
      expect(read.features.map((f) => f.name)).toEqual(['Horné', 'Dolné']);
      expect(read.skipped).toEqual([{ seq: 1, feature: 'fields #2 (Stredné)', key: 'shp_not_finite', params: {} }]);
    });
  }

  it('skips a first polygon that is not numbers without taking the layer for lon/lat or settling its zone on it', async () => {
    const read = await readEdited('shp', (b) => {
      const out = Buffer.from(b);
      out.writeDoubleLE(Number.NaN, firstVertexOffsets(out)[0]!);
      return out;
    });
    expect(read.features.map((f) => f.name)).toEqual(['Stredné', 'Dolné']);
    expect(read.skipped).toMatchObject([{ seq: 0, key: 'shp_not_finite' }]);
    expect(read.crs).toBe('EPSG:4326');
  });
});
