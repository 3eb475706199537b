// POST /upload with part shapefile_zip (issue 4): real LPIS exports in four coordinate systems and
// three encodings, and broken archives, each with its exact answer. Nothing is created on failure.
// A .prj that cannot be read, or names a grid file or an impossible parameter, is refused naming it.
import { randomBytes } from 'node:crypto';
import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import type { Api } from '../helpers/api';
import { createCompany, registerCompany } from '../helpers/company';
import { baseUrl } from '../helpers/context';
import { rawZip } from '../helpers/raw-zip';
import { missingShared, sharedPath } from '../helpers/shared-data';
import { ogr2ogrAvailable, shapefileZip, square } from '../helpers/shapefile-zip';
import { polygonLayer, squareRing, zipOf } from '../unit/uploads/shp-writer';

const uploadZip = (api: Api, data: Uint8Array, parts: Record<string, string> = {}) =>
  api.upload('/upload', { shapefile_zip: { data, name: 'fields.zip', type: 'application/zip' }, ...parts });
const uploadShared = (api: Api, file: string) => api.upload('/upload', { shapefile_zip: { file: sharedPath('vector', 'lpis', file), type: 'application/zip' } });
const fieldCount = async (api: Api) => (await api.get('/api/fields')).body.features.length as number;

interface Lpis {
  file: string;
  crs: string;
  encoding: string;
  created: number;
  /** The area column the agency stored, and its factor to hectares. */
  areaColumn: string;
  toHa: number;
}

// Expected answers, from the files' .prj/.cpg and GDAL's reading of them.
const LPIS: Lpis[] = [
  { file: 'sk_lpis_2024.zip', crs: 'EPSG:5514', encoding: 'windows-1252', created: 100, areaColumn: 'Shape_Area', toHa: 1e-4 },
  { file: 'cz_lpis_2023.zip', crs: 'EPSG:4258', encoding: 'utf-8', created: 100, areaColumn: 'ZAKRES_VYM', toHa: 1 },
  { file: 'de_bb_gsa_2025.zip', crs: 'EPSG:25833', encoding: 'windows-1252', created: 100, areaColumn: 'groesse', toHa: 1 },
  { file: 'bg_arable_2024.zip', crs: 'EPSG:32635', encoding: 'utf-8', created: 100, areaColumn: 'AREA', toHa: 1e-4 },
  { file: 'ro_eurocrops_2021.zip', crs: 'EPSG:32635', encoding: 'utf-8', created: 100, areaColumn: 'AREA_HA', toHa: 1e-4 },
];

const missingLpis = missingShared('vector', 'lpis', 'sk_lpis_2024.zip');
if (missingLpis) console.warn(`skipping LPIS shapefile imports: ${missingLpis}`);

describe.skipIf(!!missingLpis)('shapefile import of real LPIS exports', () => {
  for (const l of LPIS) {
    it(`imports ${l.file}: ${l.created} fields in ${l.crs}, ${l.encoding}, areas as the agency measured`, async () => {
      const { api } = await registerCompany(baseUrl());
      const res = await uploadShared(api, l.file);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ success: true, fields_created: l.created, skipped: [], duplicates_skipped: 0, crs: l.crs, encoding: l.encoding });
      const list = (await api.get('/api/fields')).body.features as { id: number }[];
      expect(list).toHaveLength(l.created);
      for (const { id } of list) {
        const f = (await api.get(`/api/fields/${id}`)).body;
        const expected = Number(f.attributes[l.areaColumn]) * l.toHa;
        // The agency's column is rounded (to 0.0001 ha at best): half a percent, or that rounding.
        expect(Math.abs(f.area - expected), `field ${id}: ${f.area} ha vs ${expected} ha`).toBeLessThanOrEqual(Math.max(0.005 * expected, 0.0001) + 1e-9);
      }
    });
  }

  it('decodes Czech and German text and keeps every attribute', async () => {
    const { api } = await registerCompany(baseUrl());
    expect((await uploadShared(api, 'cz_lpis_2023.zip')).status).toBe(200);
    expect((await uploadShared(api, 'de_bb_gsa_2025.zip')).status).toBe(200);
    const details = await Promise.all(((await api.get('/api/fields')).body.features as { id: number }[]).map(async ({ id }) => (await api.get(`/api/fields/${id}`)).body));
    const values = details.flatMap((f) => Object.values(f.attributes).filter((v): v is string => typeof v === 'string'));
    expect(values).toContain('Dočasný travní porost');
    expect(values.some((v) => v.includes('Begrünung'))).toBe(true);
    expect(values.join('')).not.toMatch(/\uFFFD|Ã|Å¡/);
    const cz = details.find((f) => 'ZAKRES_VYM' in f.attributes)!;
    expect(Object.keys(cz.attributes)).toEqual(expect.arrayContaining(['ID_UZ', 'DPB_ZKOD', 'PLOD_NAZE', 'ZAKRES_VYM']));
    // The register's block code is not a cadastral number: it names the field and stays an attribute.
    expect(cz.name).toBe(cz.attributes.DPB_ZKOD);
    expect(details.every((f) => f.parcel_number === null)).toBe(true);
  });

  it('keeps holes and multi-part parcels (17 rings in Brandenburg, 84 in Romania)', async () => {
    const { api } = await registerCompany(baseUrl());
    await uploadShared(api, 'de_bb_gsa_2025.zip');
    await uploadShared(api, 'ro_eurocrops_2021.zip');
    const features = (await api.get('/api/fields')).body.features as { geometry: { type: string; coordinates: unknown[][] } }[];
    // Shapefile "parts" are rings: outer boundaries and holes.
    const rings = features.map((f) => (f.geometry.type === 'MultiPolygon' ? f.geometry.coordinates.reduce((n, p) => n + p.length, 0) : f.geometry.coordinates.length));
    expect(rings).toContain(17);
    expect(rings).toContain(84);
    expect(features.some((f) => f.geometry.type === 'Polygon' && f.geometry.coordinates.length > 1)).toBe(true);
  });

  it('repairs the Slovak parcel whose hole touches itself and keeps lossy text as it is', async () => {
    const { api } = await registerCompany(baseUrl());
    await uploadShared(api, 'sk_lpis_2024.zip');
    const list = (await api.get('/api/fields?q=524130701/1')).body.features as { id: number }[];
    expect(list).toHaveLength(1);
    const f = (await api.get(`/api/fields/${list[0]!.id}`)).body;
    expect(Math.abs(f.area - f.attributes.Shape_Area / 1e4)).toBeLessThan(0.001 * f.area);
    const all = await Promise.all(((await api.get('/api/fields')).body.features as { id: number }[]).map(async ({ id }) => (await api.get(`/api/fields/${id}`)).body));
    // The source already lost its Slovak letters to '?': they stay '?', never become other letters.
    const lossy = all.flatMap((x) => Object.values(x.attributes)).filter((v) => typeof v === 'string' && v.includes('?'));
    expect(lossy.length).toBeGreaterThan(0);
  });

  it('creates nothing the second time the same file is uploaded', async () => {
    const { api } = await registerCompany(baseUrl());
    expect((await uploadShared(api, 'sk_lpis_2024.zip')).body.fields_created).toBe(100);
    const again = await uploadShared(api, 'sk_lpis_2024.zip');
    expect(again.body).toMatchObject({ success: true, fields_created: 0, duplicates_skipped: 100 });
    expect(await fieldCount(api)).toBe(100);
  });
});

const noGdal = !ogr2ogrAvailable();
if (noGdal) console.warn('skipping generated shapefile tests: ogr2ogr (gdal-bin) is not installed');

const A = square(17.1, 48.15, 200);
const B = square(17.2, 48.15, 150);
const bowTie = { type: 'Polygon', coordinates: [[[17.3, 48.1], [17.31, 48.11], [17.31, 48.1], [17.3, 48.11], [17.3, 48.1]]] };

describe.skipIf(noGdal)('shapefile import of generated archives', () => {
  it('maps the usual columns, creates owners, and keeps parcel numbers in the spec form only', async () => {
    const { api } = await registerCompany(baseUrl());
    const zip = await shapefileZip({
      srs: 'EPSG:32633',
      encoding: 'CP1251',
      features: [
        { geometry: A, properties: { Name: 'Северное поле', owner: 'ООО Колос', status: 'аренда', cad_num: '50:12:0100101:123' } },
        // The same owner in capitals, as registers often write it: one owner, not two.
        { geometry: B, properties: { Name: 'Южное', owner: 'ООО КОЛОС', status: 'собственность', cad_num: '12/4' } },
      ],
    });
    const res = await uploadZip(api, zip);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ success: true, fields_created: 2, skipped: [], duplicates_skipped: 0, crs: 'EPSG:32633', encoding: 'windows-1251' });
    const fields = (await api.get('/api/fields')).body.features;
    expect(fields.map((f: { properties: object }) => f.properties)).toEqual([
      expect.objectContaining({ name: 'Северное поле', owner: 'ООО Колос', status: 'аренда', parcel_number: '50:12:0100101:123' }),
      expect.objectContaining({ name: 'Южное', owner: 'ООО Колос', status: 'собственность', parcel_number: null }),
    ]);
    expect(fields[0].properties.area).toBeCloseTo(4, 1);
    const owners = (await api.get('/api/owners')).body;
    expect(owners.map((o: { name: string }) => o.name)).toEqual(['ООО Колос']);
  });

  it('imports the same file sent four times at once only once, its owner once', async () => {
    const { api } = await registerCompany(baseUrl());
    const zip = await shapefileZip({ features: [A, B].map((geometry, i) => ({ geometry, properties: { NAME: `P${i}`, OWNER: 'Agro' } })) });
    // A double click or a retry: each import checked against the fields before the others' (4 → 3 copies each).
    const answers = await Promise.all(Array.from({ length: 4 }, () => uploadZip(api, zip)));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(answers.map((r) => r.body.fields_created).sort()).toEqual([0, 0, 0, 2]);
    expect(await fieldCount(api)).toBe(2);
    expect((await api.get('/api/owners')).body.map((o: { name: string }) => o.name)).toEqual(['Agro']);
  });

  it('refuses a request with both a shapefile and a raster, importing neither', async () => {
    const { api } = await registerCompany(baseUrl(), { language: 'en' });
    const zip = await shapefileZip({ features: [{ geometry: A, properties: { NAME: 'P' } }] });
    const res = await api.upload('/upload', { shapefile_zip: { data: zip, name: 'fields.zip', type: 'application/zip' }, raster_file: { data: new Uint8Array(16), name: 'ndvi.tif', type: 'image/tiff' } });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('Send one file a request: shapefile_zip or raster_file, not both');
    expect(await fieldCount(api)).toBe(0);
  });

  it('says a file part sent without a file name must be a file, whatever its size', async () => {
    const { api } = await registerCompany(baseUrl(), { language: 'en' });
    // Without a file name a part is text to multipart: a raster past the 1 MB text limit had been
    // refused as too large, a small one as missing.
    for (const [part, size] of [['raster_file', 2 * 1024 * 1024], ['shapefile_zip', 100]] as const) {
      const res = await api.upload('/upload', { [part]: 'x'.repeat(size) });
      expect(res.status, res.text).toBe(422);
      expect(res.body).toEqual({ success: false, error: `The part ${part} must be sent as a file, with a file name` });
    }
    expect(await fieldCount(api)).toBe(0);
  });

  it('says a multipart body that ends before its closing boundary is incomplete, not of the wrong type', async () => {
    const { api } = await registerCompany(baseUrl(), { language: 'en' });
    const boundary = 'fieldmap-cut-form';
    const body = `--${boundary}\r\nContent-Disposition: form-data; name="shapefile_zip"; filename="fields.zip"\r\nContent-Type: application/zip\r\n\r\nPK`;
    const res = await api.request('POST', '/upload', body, { 'content-type': `multipart/form-data; boundary=${boundary}` });
    expect(res.status, res.text).toBe(400);
    expect(res.body).toEqual({ success: false, error: 'The upload could not be read: its multipart/form-data body is incomplete or malformed' });
    expect(await fieldCount(api)).toBe(0);
  });

  it('takes columns from the mapping part, and refuses a mapping naming a missing column', async () => {
    const { api } = await registerCompany(baseUrl());
    const zip = await shapefileZip({ features: [{ geometry: A, properties: { Name: 'wrong', POLE: 'Right name', KN: '7:1' } }] });
    const bad = await uploadZip(api, zip, { mapping: JSON.stringify({ name: 'nope' }) });
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({ success: false, error: 'The mapping names a column that is not in the attribute table: nope' });
    const notJson = await uploadZip(api, zip, { mapping: '{name:' });
    expect(notJson.status).toBe(422);
    expect(await fieldCount(api)).toBe(0);
    const res = await uploadZip(api, zip, { mapping: JSON.stringify({ name: 'pole', parcel_number: 'KN' }) });
    expect(res.body.fields_created, res.text).toBe(1);
    expect((await api.get('/api/fields')).body.features[0].properties).toMatchObject({ name: 'Right name', parcel_number: '7:1' });
  });

  it('skips empty shapes and crossing boundaries with the reason, in the user language', async () => {
    const { api } = await registerCompany(baseUrl(), { language: 'ru' });
    const zip = await shapefileZip({
      features: [
        { geometry: A, properties: { name: 'good' } },
        { geometry: bowTie, properties: { name: 'bow tie' } },
      ],
    });
    const res = await uploadZip(api, zip);
    expect(res.status, res.text).toBe(200);
    expect(res.body.fields_created).toBe(1);
    expect(res.body.skipped).toEqual([{ feature: 'fields #2 (bow tie)', reason: expect.stringMatching(/пересека/i) }]);
  });

  it('imports several layers in subfolders, without .shx, and lon/lat without .prj', async () => {
    const { api } = await registerCompany(baseUrl());
    const one = await JSZip.loadAsync(await shapefileZip({ features: [{ geometry: A, properties: { name: 'a' } }], folder: 'farm/north', omit: ['shx'] }));
    const two = await JSZip.loadAsync(await shapefileZip({ features: [{ geometry: B, properties: { name: 'b' } }], folder: 'farm/south', layer: 'south', omit: ['prj'] }));
    for (const [name, file] of Object.entries(two.files)) if (!file.dir) one.file(name, await file.async('uint8array'));
    const res = await uploadZip(api, await one.generateAsync({ type: 'uint8array' }));
    expect(res.status, res.text).toBe(200);
    expect(res.body.fields_created).toBe(2);
    expect(res.body.crs).toBe('EPSG:4326');
  });

  it('refuses broken archives with the reason and creates nothing', async () => {
    const c = await createCompany(baseUrl());
    const api = c.as.operator;
    const cases: [string, Uint8Array, number, string][] = [
      ['not a zip', randomBytes(2000), 422, 'The file is not a ZIP archive or is damaged'],
      ['no .dbf', await shapefileZip({ features: [{ geometry: A }], omit: ['dbf'] }), 422, 'The shapefile is incomplete: fields.dbf is missing'],
      ['no .shp', await shapefileZip({ features: [{ geometry: A }], omit: ['shp'] }), 422, 'The shapefile is incomplete: fields.shp is missing'],
      ['points', await shapefileZip({ features: [{ geometry: { type: 'Point', coordinates: [17, 48] } }] }), 422, 'Layer fields does not contain polygons (shape type 1)'],
      ['lines', await shapefileZip({ features: [{ geometry: { type: 'LineString', coordinates: [[17, 48], [17.1, 48]] } }] }), 422, 'Layer fields does not contain polygons (shape type 3)'],
      ['bad .prj', await shapefileZip({ features: [{ geometry: A }], replace: { prj: 'PROJCS["nonsense"]' } }), 422, 'The coordinate system nonsense is not recognised'],
      ['UTM without .prj', await shapefileZip({ features: [{ geometry: A }], srs: 'EPSG:32633', omit: ['prj'] }), 422, 'Layer fields has no .prj file and its coordinates are not longitude/latitude; add the .prj'],
      ['no shapefile', await new JSZip().file('readme.txt', 'hello').generateAsync({ type: 'uint8array' }), 422, 'The archive contains no shapefile (.shp with .dbf)'],
    ];
    // A second, valid layer in the same archive as a point layer: nothing of it is created either.
    const mixed = await JSZip.loadAsync(await shapefileZip({ features: [{ geometry: A }], layer: 'good' }));
    const points = await JSZip.loadAsync(await shapefileZip({ features: [{ geometry: { type: 'Point', coordinates: [17, 48] } }], layer: 'pts' }));
    for (const [name, file] of Object.entries(points.files)) mixed.file(name, await file.async('uint8array'));
    cases.push(['mixed', await mixed.generateAsync({ type: 'uint8array' }), 422, 'Layer pts does not contain polygons (shape type 1)']);

    for (const [label, data, status, error] of cases) {
      const res = await uploadZip(api, data);
      expect([label, res.status, res.body]).toEqual([label, status, { success: false, error }]);
    }
    expect(await fieldCount(api)).toBe(0);
  });

  it('checks the archive before extracting: traversal, links, bombs, too many entries, too large', async () => {
    const { api } = await registerCompany(baseUrl());
    const traversal = new JSZip().file('../../evil.shp', 'x', { createFolders: false });
    const absolute = new JSZip().file('/etc/evil.shp', 'x', { createFolders: false });
    const link = new JSZip().file('fields.shp', '/etc/passwd', { unixPermissions: 0o120777 });
    const bomb = new JSZip().file('fields.dbf', new Uint8Array(20 * 1024 * 1024));
    const many = new JSZip();
    for (let i = 0; i < 2001; i++) many.file(`f${i}.txt`, '');
    const gen = (z: JSZip) => z.generateAsync({ type: 'uint8array', compression: 'DEFLATE', platform: 'UNIX' });
    const cases: [Uint8Array, string][] = [
      [await gen(traversal), 'The archive contains an unsafe path: ../../evil.shp'],
      [await gen(absolute), 'The archive contains an unsafe path: /etc/evil.shp'],
      [await gen(link), 'The archive contains a link, which is not allowed: fields.shp'],
      [await gen(bomb), expect.stringMatching(/^The archive entry fields\.dbf expands \d+ times; this looks like a zip bomb$/) as unknown as string],
      [await gen(many), 'The archive has 2,001 entries; at most 2,000 are allowed'],
    ];
    for (const [data, error] of cases) {
      const res = await uploadZip(api, data);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ success: false, error });
    }
    const big = await uploadZip(api, randomBytes(51 * 1024 * 1024));
    expect(big.status).toBe(413);
    expect(big.body.success).toBe(false);
    expect(await fieldCount(api)).toBe(0);
  });

  // A thousand entries of exactly 1 MB of zeros (1 MB of upload) were written out as a gigabyte before
  // the total limit refused them: here twenty of them, and 300 of 60 kB that inflate only together.
  it('refuses zip bombs made of many entries before extracting them', async () => {
    const { api } = await registerCompany(baseUrl());
    const zeros = async (count: number, size: number) => {
      const z = await JSZip.loadAsync(await shapefileZip({ features: [{ geometry: A }] }));
      for (let i = 0; i < count; i++) z.file(`f${i}.bin`, new Uint8Array(size));
      return z.generateAsync({ type: 'uint8array', compression: 'DEFLATE' });
    };
    const perEntry = await uploadZip(api, await zeros(20, 1024 * 1024));
    expect([perEntry.status, perEntry.body]).toEqual([422, { success: false, error: expect.stringMatching(/^The archive entry f0\.bin expands [\d,]+ times; this looks like a zip bomb$/) }]);
    const whole = await uploadZip(api, await zeros(300, 60 * 1024));
    expect([whole.status, whole.body]).toEqual([422, { success: false, error: expect.stringMatching(/^The archive expands [\d,]+ times as a whole; this looks like a zip bomb$/) }]);
    expect(await fieldCount(api)).toBe(0);
  });

  it('reads large archives in a worker thread with the same answers, refusals included', async () => {
    const { api } = await registerCompany(baseUrl());
    // 3 MB of incompressible padding puts the archive over the in-request limit (2 MB).
    const padded = async (zip: Uint8Array) => {
      const z = await JSZip.loadAsync(zip);
      z.file('padding.bin', randomBytes(3 * 1024 * 1024), { compression: 'STORE' });
      return z.generateAsync({ type: 'uint8array' });
    };
    const good = await padded(await shapefileZip({ srs: 'EPSG:32633', features: [{ geometry: A, properties: { name: 'in a thread' } }] }));
    expect(good.length).toBeGreaterThan(3 * 1024 * 1024);
    const res = await uploadZip(api, good);
    expect(res.body).toEqual({ success: true, fields_created: 1, skipped: [], duplicates_skipped: 0, crs: 'EPSG:32633', encoding: 'utf-8' });
    const points = await padded(await shapefileZip({ features: [{ geometry: { type: 'Point', coordinates: [17, 48] } }] }));
    const refused = await uploadZip(api, points);
    expect([refused.status, refused.body]).toEqual([422, { success: false, error: 'Layer fields does not contain polygons (shape type 1)' }]);
    expect(await fieldCount(api)).toBe(1);
 
    // Enough features for two reading threads to get shares (runs of 64 records, taken in turn), with a
    // crossing boundary in the second run and in the third: fields and skipped features keep the file's
    // order.
    const names = Array.from({ length: 150 }, (_, i) => `parcel ${i + 1}`);
    const many = await padded(
      await shapefileZip({
        features: names.map((name, i) => ({ geometry: i === 69 || i === 129 ? bowTie : square(18 + (i % 10) * 0.01, 48 + Math.floor(i / 10) * 0.01, 100), properties: { name } })),
      }),
    );
    const shared = await uploadZip(api, many);
    expect(shared.status, shared.text).toBe(200);
    expect(shared.body).toMatchObject({ fields_created: 148, duplicates_skipped: 0 });
    expect(shared.body.skipped.map((s: { feature: string }) => s.feature)).toEqual(['fields #70 (parcel 70)', 'fields #130 (parcel 130)']);
    const listed = (await api.get('/api/fields')).body.features.map((f: { properties: { name: string } }) => f.properties.name);
    expect(listed).toEqual(['in a thread', ...names.filter((_, i) => i !== 69 && i !== 129)]);
  });

  it('lets operators and above import, and refuses viewers', async () => {
    const c = await createCompany(baseUrl());
    const zip = await shapefileZip({ features: [{ geometry: A }] });
    expect((await uploadZip(c.as.viewer, zip)).status).toBe(403);
    expect((await uploadZip(c.as.operator, zip)).body.fields_created).toBe(1);
  });
});

// yauzl reads only stored and deflated entries; what else an archiver writes, a damaged entry header
// and a name that is both a file and a folder had answered 500.
describe('archives that cannot be unpacked', () => {
  it('an entry compressed with Deflate64, BZip2 or LZMA answers 422 naming it and its method; nothing is created', async () => {
    const c = await createCompany(baseUrl(), { language: 'en' });
    const ru = await createCompany(baseUrl(), { language: 'ru' });
    for (const [method, label] of [[9, 'Deflate64 (9)'], [12, 'BZip2 (12)'], [14, 'LZMA (14)'], [97, '97']] as const) {
      const zip = rawZip([{ name: 'fields.shp', data: randomBytes(200) }, { name: 'fields.dbf', data: randomBytes(100), method }]);
      const res = await uploadZip(c.as.operator, zip);
      expect([res.status, res.body]).toEqual([
        422,
        { success: false, error: `The archive entry fields.dbf is compressed with a method that cannot be read (${label}); save the archive with ordinary ZIP (Deflate) compression` },
      ]);
    }
    const inRussian = await uploadZip(ru.as.operator, rawZip([{ name: 'fields.shp', data: randomBytes(200), method: 12 }]));
    expect([inRussian.status, inRussian.body.error]).toEqual([422, 'Файл fields.shp в архиве сжат неподдерживаемым методом (BZip2 (12)); сохраните архив с обычным сжатием ZIP (Deflate)']);
    expect(await fieldCount(c.as.operator)).toBe(0);
    expect((await fetch(`${baseUrl()}/api/health`)).status).toBe(200);
  });

  it('a damaged entry header, or a name that is both a file and a folder, answers 422 naming the entry', async () => {
    const c = await createCompany(baseUrl(), { language: 'en' });
    const cases: [string, Buffer, string][] = [
      ['damaged local header', rawZip([{ name: 'fields.shp', data: randomBytes(200) }, { name: 'fields.dbf', data: randomBytes(100), damagedLocalHeader: true }]), 'fields.dbf'],
      ['file, then folder', rawZip([{ name: 'a.shp', data: randomBytes(200) }, { name: 'a.shp/b.dbf', data: randomBytes(100) }]), 'a.shp/b.dbf'],
    ];
    for (const [label, zip, entry] of cases) {
      const res = await uploadZip(c.as.operator, zip);
      expect([label, res.status, res.body]).toEqual([label, 422, { success: false, error: `The archive entry ${entry} is damaged` }]);
    }
    expect(await fieldCount(c.as.operator)).toBe(0);
    expect((await fetch(`${baseUrl()}/api/health`)).status).toBe(200);
  });
});

// A .prj that is empty, binary, UTF-16 or not a coordinate system at all was answered "The coordinate
// system unknown is not recognised"; one naming a grid file (`+nadgrids=/etc/passwd`) made proj4 print
// to the server's stderr and every feature was skipped as "expected [longitude, latitude] pairs".
describe('a .prj that cannot be read or used', () => {
  const layer = (prj: string | Uint8Array) => zipOf(polygonLayer([{ rings: [squareRing(17, 48, 0.001)], name: 'one' }], { prj }));

  it('answers 422 naming the .prj, in the user language, before any feature is read; nothing is created', async () => {
    const en = await createCompany(baseUrl(), { language: 'en' });
    const cases: [string, Uint8Array, string][] = [
      ['empty', await layer(''), "The file fields.prj could not be read as a coordinate system (it should hold WKT text or an EPSG code); export the layer's .prj again from your GIS"],
      ['binary', await layer(randomBytes(500)), "The file fields.prj could not be read as a coordinate system (it should hold WKT text or an EPSG code); export the layer's .prj again from your GIS"],
      ['UTF-16', await layer(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('GEOGCS', 'utf16le')])), "The file fields.prj could not be read as a coordinate system (it should hold WKT text or an EPSG code); export the layer's .prj again from your GIS"],
      [
        'a grid file',
        await layer('+proj=utm +zone=33 +datum=WGS84 +units=m +no_defs +nadgrids=/etc/passwd'),
        'The coordinate system in fields.prj needs the datum grid file /etc/passwd, which the server does not have; save the layer in a system without one (for example ETRS89 / UTM or WGS 84)',
      ],
      ['a zero scale factor', await layer('+proj=tmerc +lon_0=15 +k=0 +x_0=500000 +datum=WGS84 +units=m'), 'The coordinate system in fields.prj has an impossible value: k = 0'],
    ];
    for (const [label, data, error] of cases) {
      const res = await uploadZip(en.as.operator, data);
      expect([label, res.status, res.body]).toEqual([label, 422, { success: false, error }]);
    }
    expect(await fieldCount(en.as.operator)).toBe(0);
    const ru = await createCompany(baseUrl(), { language: 'ru' });
    const inRussian = await uploadZip(ru.as.operator, await layer('this is not WKT ((((('));
    expect([inRussian.status, inRussian.body.error]).toEqual([422, 'Файл fields.prj не удалось прочитать как систему координат (в нём должен быть текст WKT или код EPSG); экспортируйте .prj слоя из ГИС заново']);
    const sk = await createCompany(baseUrl(), { language: 'sk' });
    const inSlovak = await uploadZip(sk.as.operator, await layer('EPSG:31467'));
    expect([inSlovak.status, inSlovak.body.error]).toEqual([
      422,
      'Súradnicový systém v fields.prj potrebuje súbor mriežky dátumu BETA2007.gsb, ktorý server nemá; uložte vrstvu v systéme bez neho (napríklad ETRS89 / UTM alebo WGS 84)',
    ]);
  });
});
