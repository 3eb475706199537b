// An index GeoTIFF becomes zones through POST /upload and a background task (issue 5), on a real
// NAIP tile (4 bands R,G,B,NIR, UTM 14N).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bbox } from '@turf/turf';
import { describe, expect, it } from 'vitest';
import { scratchPostgres } from '@/lib/db/scratch';
import { geometryAreaHa } from '@/lib/geo/area';
import { Api } from '../helpers/api';
import { createCompany, registerCompany } from '../helpers/company';
import { baseUrl, directDb, serverEnv } from '../helpers/context';
import { startServer } from '../helpers/server';
import { missingShared, sharedPath } from '../helpers/shared-data';
import { waitForTask } from '../helpers/tasks';
import { allNodataIndexTiff } from '../helpers/tiff';
import en from '../../messages/en.json';
import ru from '../../messages/ru.json';

const NAIP = ['raster', 'naip', 'm_4709963_se_14_1_20190904.tif'] as const;
const missing = missingShared(...NAIP);
if (missing) console.warn(`skipping raster zoning API tests: ${missing}`);

// A field well inside the tile's footprint (-99.1856..-99.1241 E, 47.0041..47.0366 N).
const FIELD = { type: 'Polygon', coordinates: [[[-99.17, 47.01], [-99.14, 47.01], [-99.14, 47.03], [-99.17, 47.03], [-99.17, 47.01]]] };

const uploadRaster = (api: Api, parts: Record<string, string> = {}, file = sharedPath(...NAIP)) =>
  api.upload('/upload', { raster_file: { file, name: 'naip_2019.tif', type: 'image/tiff' }, ...parts });

describe.skipIf(!!missing)('raster zones', () => {
  it('finds the field under the raster, answers 202 at once, and the task makes a partition of zones', async () => {
    const { api } = await registerCompany(baseUrl());
    const fieldId = (await api.post('/api/fields', { name: 'NAIP field', geometry: FIELD })).body.id;
    const res = await uploadRaster(api, { zones: '4', method: 'quantile' });
    expect(res.status, res.text).toBe(202);
    // NAIP carries no date: the answer says so (the form asks for one), and no other field lies under it.
    expect(res.body).toEqual({ success: true, task_id: expect.stringMatching(/^[0-9a-f-]{36}$/), field_id: fieldId, captured_at: null, also_covers: [] });
    const task = await waitForTask(api, res.body.task_id);
    expect(task.error).toBeNull();
    expect(task).toMatchObject({ status: 'completed', percent: 100, result: { zones_created: expect.any(Number), area_processed: expect.any(Number), scan_id: expect.any(Number) } });
    expect(task.result.zones_created).toBeGreaterThanOrEqual(3);

    const scans = await api.get(`/api/fields/${fieldId}/scans`);
    expect(scans.body.scans.map((s: { id: number }) => s.id)).toEqual([task.result.scan_id]);
    const scan = (await api.get(`/api/scans/${task.result.scan_id}`)).body.scan;
    expect(scan).toMatchObject({ source: 'raster', status: 'completed', index: 'ndvi', file_name: 'naip_2019.tif' });
    expect(scan.histogram.counts).toHaveLength(64);
    const zones = scan.zones.features;
    expect(zones.length).toBe(task.result.zones_created);
    // Zones partition the valid part of the field: their areas add up to what was processed.
    const sum = zones.reduce((s: number, z: { geometry: never }) => s + geometryAreaHa(z.geometry), 0);
    expect(Math.abs(sum - task.result.area_processed) / task.result.area_processed).toBeLessThan(0.0005);
    // The zones as clipped to the field: never more than the field (whole pixels with their centre inside were).
    expect(task.result.area_processed).toBeLessThanOrEqual(geometryAreaHa(FIELD as never) * (1 + 1e-5));
    // Mean index rises with class.
    const means = zones.map((z: { properties: { mean: number } }) => z.properties.mean);
    expect([...means].sort((a, b) => a - b)).toEqual(means);

    const png = await fetch(`${baseUrl()}/api/scans/${task.result.scan_id}/preview.png`, { headers: { cookie: `session_token=${api.cookie}` } });
    expect(png.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await png.arrayBuffer()).subarray(1, 4).toString()).toBe('PNG');

    // The raster is the company's own upload: it has no orthomosaic or index of ours to download.
    for (const kind of ['orthomosaic', 'index']) {
      const none = await api.get(`/api/scan/${task.result.scan_id}/export/${kind}`);
      expect(none.status).toBe(404);
      expect(none.body.error).toMatch(/only a processed drone survey has an orthomosaic/);
    }
    expect(JSON.stringify(scan)).not.toContain(serverEnv().DATA_DIR!);

    // An uploaded raster is not classified; a user names its crop, which the scan then reports with
    // confidence 1, and `auto` goes back to no crop at all.
    const classify = `/api/scan/${task.result.scan_id}/classify`;
    expect((await api.get(classify)).body).toMatchObject({ crop_type: null, confidence: null, details: { automatic: null, user_value: null } });
    const named = await api.put(`/api/scans/${task.result.scan_id}`, { crop_type: ' Sugar_beet ' });
    expect(named.status, named.text).toBe(200);
    // It answers the scan as GET /api/scans/{id} does, with the classification in it.
    expect(named.body).toMatchObject({ success: true, scan: { id: task.result.scan_id, crop_type: 'sugar_beet', zones: { features: expect.any(Array) } } });
    expect(named.body.scan.classification).toMatchObject({ scan_id: task.result.scan_id, crop_type: 'sugar_beet', confidence: 1, details: { automatic: null, user_value: 'sugar_beet' } });
    expect((await api.get(`/api/scans/${task.result.scan_id}`)).body.scan.classification).toEqual(named.body.scan.classification);
    expect((await api.get(classify)).body).toMatchObject({ crop_type: 'sugar_beet', confidence: 1 });
    expect((await api.get(`/api/fields/${fieldId}/scans`)).body.scans[0].crop_type).toBe('sugar_beet');
    for (const [body, error] of [
      [{ crop_type: 'DROP TABLE' }, 'Invalid data: crop_type: wrong format'],
      [{ crop_type: 7 }, 'Invalid data: crop_type: expected text'],
      [{}, 'Invalid data: nothing to change: give crop_type, captured_at or both'],
    ] as const) {
      const bad = await api.put(`/api/scans/${task.result.scan_id}`, body);
      expect(bad.status).toBe(422);
      expect(bad.body.error).toBe(error);
    }
    expect((await api.get(classify)).body.crop_type).toBe('sugar_beet');
    expect((await api.put(`/api/scans/${task.result.scan_id}`, { crop_type: 'auto' })).body.scan.classification).toMatchObject({ crop_type: null, confidence: null, details: { user_value: null } });
  });

  it('names the other fields a raster placed by itself covers, the most covered first, and the date the scan will carry', async () => {
    const { api } = await registerCompany(baseUrl());
    const big = (await api.post('/api/fields', { name: 'Big', geometry: FIELD })).body.id;
    const small = { type: 'Polygon', coordinates: [[[-99.135, 47.012], [-99.13, 47.012], [-99.13, 47.016], [-99.135, 47.016], [-99.135, 47.012]]] };
    const smallId = (await api.post('/api/fields', { name: 'Small', geometry: small })).body.id;
    // Half of it past the tile's eastern edge (-99.1241 E): covered less than Small.
    const edge = { type: 'Polygon', coordinates: [[[-99.126, 47.02], [-99.122, 47.02], [-99.122, 47.021], [-99.126, 47.021], [-99.126, 47.02]]] };
    const edgeId = (await api.post('/api/fields', { name: 'Edge', geometry: edge })).body.id;
    await api.post('/api/fields', { name: 'Far away', geometry: { type: 'Polygon', coordinates: [[[17, 48], [17.01, 48], [17.01, 48.01], [17, 48.01], [17, 48]]] } });
    const auto = await uploadRaster(api, { zones: '3', captured_at: '2019-09-04' });
    expect(auto.status, auto.text).toBe(202);
    expect(auto.body).toMatchObject({ field_id: big, captured_at: '2019-09-04T00:00:00.000Z', also_covers: [{ id: smallId, name: 'Small' }, { id: edgeId, name: 'Edge' }] });
    // A field chosen is the one zoned: no others are named.
    const chosen = await uploadRaster(api, { field_id: String(smallId), zones: '3' });
    expect(chosen.status, chosen.text).toBe(202);
    expect(chosen.body).toEqual({ success: true, task_id: expect.any(String), field_id: smallId, captured_at: null });
    for (const task of [auto.body.task_id, chosen.body.task_id]) expect((await waitForTask(api, task)).status).toBe('completed');
  });

  it('exports a 500 ha field’s zones as an ISOXML grid (built in a worker thread) with the rates given; refuses a grid flag it does not know and a rate past 100 t/ha', async () => {
    const { api } = await registerCompany(baseUrl(), { language: 'ru' });
    await api.post('/api/fields', { name: 'Поле "Южное" & луг', geometry: FIELD });
    const task = await waitForTask(api, (await uploadRaster(api, { zones: '3' })).body.task_id);
    const scanId = task.result.scan_id as number;
    const get = (query: string) => fetch(`${baseUrl()}/api/scan/${scanId}/export/isoxml?${query}`, { headers: { cookie: `session_token=${api.cookie}` } });
    const res = await get('rates=1:100,2:150,3:200&grid=1');
    expect(res.status).toBe(200);
    expect(Number(res.headers.get('ratelimit-limit'))).toBe(60);
    expect(res.headers.get('content-disposition')).toContain(`filename*=UTF-8''${encodeURIComponent('Поле -Южное- & луг_TASKDATA.zip')}`);
    const JSZip = (await import('jszip')).default;
    const zip = await JSZip.loadAsync(Buffer.from(await res.arrayBuffer()));
    const xml = await zip.file('TASKDATA/TASKDATA.XML')!.async('string');
    expect(xml).toContain('C="Поле &quot;Южное&quot; &amp; луг"');
    const attr = (name: string) => /<GRD [^>]*>/.exec(xml)![0].match(new RegExp(` ${name}="([^"]*)"`))![1]!;
    const [columns, rows] = [Number(attr('E')), Number(attr('F'))];
    // A cell a 10 m side: the field's 2.3 x 2.2 km.
    expect(columns * rows).toBeGreaterThan(40_000);
    const cells = await zip.file(`TASKDATA/${attr('G')}.BIN`)!.async('nodebuffer');
    expect(cells.length).toBe(columns * rows * 4);
    const rates = new Set<number>();
    for (let i = 0; i < cells.length; i += 4) rates.add(cells.readInt32LE(i));
    // mg/m²: 100, 150 and 200 kg/ha (ground no zone covers, the mean of them), and nothing outside the field.
    for (const rate of [10_000, 15_000, 20_000]) expect(rates).toContain(rate);
    expect([...rates].every((r) => r === 0 || (r >= 10_000 && r <= 20_000))).toBe(true);

    for (const [query, message] of [
      ['rates=1:100,2:150,3:200&grid=yes', ru.errors.export_grid_flag],
      ['rates=1:100,2:21474837,3:200', 'Норма для класса зон 2 больше 100 000 кг/га'],
    ] as const) {
      const bad = await get(query);
      expect(bad.status, query).toBe(422);
      expect(((await bad.json()) as { error: string }).error.replace(/\u00a0/g, ' ')).toBe(message);
    }
  });

  it('a scan’s capture date: given at upload or set later, it orders the field’s scans', async () => {
    const { api } = await registerCompany(baseUrl(), { language: 'en' });
    const fieldId = (await api.post('/api/fields', { name: 'Three years', geometry: FIELD })).body.id;
    const scanOf = async (parts: Record<string, string>) => {
      const res = await uploadRaster(api, { zones: '3', ...parts });
      expect(res.status, res.text).toBe(202);
      return (await waitForTask(api, res.body.task_id)).result.scan_id as number;
    };
    // NAIP carries no TIFF date: without one given the scan's date is not known.
    const undated = await scanOf({});
    const dated2009 = await scanOf({ captured_at: '2009-08-18' });
    // A date-time with an offset is the instant it names.
    const dated2016 = await scanOf({ captured_at: '2016-08-16T10:30:00+02:00' });
    const list = async () => (await api.get(`/api/fields/${fieldId}/scans`)).body.scans as { id: number; captured_at: string | null; created_at: string }[];
    const before = await list();
    expect(before.map((s) => [s.id, s.captured_at])).toEqual([
      // Latest taken first; a scan whose date no one knows goes by its upload, today.
      [undated, null],
      [dated2016, '2016-08-16T08:30:00.000Z'],
      [dated2009, '2009-08-18T00:00:00.000Z'],
    ]);

    // Set later, with the crop in the same request; the undated scan moves to its place.
    const set = await api.put(`/api/scans/${undated}`, { captured_at: '2009-06-01', crop_type: 'wheat' });
    expect(set.status, set.text).toBe(200);
    expect(set.body.scan).toMatchObject({ id: undated, captured_at: '2009-06-01T00:00:00.000Z', crop_type: 'wheat' });
    expect((await list()).map((s) => s.id)).toEqual([dated2016, dated2009, undated]);
    // The field's report takes the scan taken last when none is named, and gives its date.
    const report = await fetch(`${baseUrl()}/api/field/export/pdf/${fieldId}`, { headers: { cookie: `session_token=${api.cookie}` } });
    expect(report.status).toBe(200);
    const pdf = join(mkdtempSync(join(tmpdir(), 'report-')), 'field.pdf');
    writeFileSync(pdf, Buffer.from(await report.arrayBuffer()));
    const text = execFileSync('pdftotext', [pdf, '-'], { encoding: 'utf8' });
    expect(text).toContain('Data date: August 16, 2016');
    // It lists the field's three scans too, the latest taken first.
    expect(text).toContain('SCANS OF THIS FIELD');
    expect(text.indexOf('August 18, 2009')).toBeGreaterThan(text.indexOf('SCANS OF THIS FIELD'));
    expect(text.indexOf('June 1, 2009')).toBeGreaterThan(text.indexOf('August 18, 2009'));

    // Area by crop in a year: each field's crop is its last scan's of the year. In 2009 the field's
    // last scan (Aug 18) had no crop until one is named; the June scan's wheat does not count.
    const area = (await api.get(`/api/fields/${fieldId}`)).body.area as number;
    expect((await api.get('/api/stats?year=2009')).body).toMatchObject({ crop_year: 2009, by_crop: [{ crop: null, area }] });
    await api.put(`/api/scans/${dated2009}`, { crop_type: 'barley' });
    expect((await api.get('/api/stats?year=2009')).body.by_crop).toEqual([{ crop: 'barley', area }]);
    expect((await api.get('/api/stats?year=2010')).body.by_crop).toEqual([{ crop: null, area }]);

    for (const [value, status] of [['2009-02-30', 422], ['18.08.2009', 422], ['2999-01-01', 422], ['1899-12-31', 422], [20090818, 422]] as const) {
      const bad = await api.put(`/api/scans/${undated}`, { captured_at: value });
      expect(bad.status, String(value)).toBe(status);
      expect(bad.body.error).toBe(typeof value === 'number' ? 'Invalid data: captured_at: expected text' : 'Invalid data: captured_at: a date from 1900-01-01 to today, as YYYY-MM-DD');
    }
    // A bad date at upload is refused before any task is made.
    const tasksBefore = (await list()).length;
    const badUpload = await uploadRaster(api, { captured_at: '2019-13-01' });
    expect(badUpload.status).toBe(422);
    expect(badUpload.body.error).toBe('Invalid data: captured_at: a date from 1900-01-01 to today, as YYYY-MM-DD');
    expect((await list()).length).toBe(tasksBefore);
    expect((await list()).find((s) => s.id === undated)!.captured_at).toBe('2009-06-01T00:00:00.000Z');
  });

  it('keeps scans and tasks to their company', async () => {
    const a = await registerCompany(baseUrl());
    const b = await createCompany(baseUrl());
    await a.api.post('/api/fields', { name: 'F', geometry: FIELD });
    const res = await uploadRaster(a.api, { zones: '3' });
    const task = await waitForTask(a.api, res.body.task_id);
    for (const path of [`/api/tasks/${res.body.task_id}`, `/api/scans/${task.result.scan_id}`, `/api/scans/${task.result.scan_id}/preview.png`]) {
      expect((await b.as.owner.get(path)).status, path).toBe(404);
    }
    expect((await b.as.owner.del(`/api/scans/${task.result.scan_id}`)).status).toBe(404);
    expect((await b.as.owner.put(`/api/scans/${task.result.scan_id}`, { crop_type: 'wheat' })).status).toBe(404);
    expect((await b.as.viewer.upload('/upload', { raster_file: { file: sharedPath(...NAIP), name: 'x.tif' } })).status).toBe(403);
    // A field id of another company is not found, and nothing is queued.
    const foreign = await uploadRaster(b.as.owner, { field_id: String(res.body.field_id) });
    expect(foreign.status).toBe(404);
    expect((await a.api.del(`/api/scans/${task.result.scan_id}`)).status).toBe(200);
    expect((await a.api.get(`/api/scans/${task.result.scan_id}`)).status).toBe(404);
  });

  it('lists the company’s recent tasks: what was uploaded, by whom, to which field, and how it ended', async () => {
    const a = await createCompany(baseUrl(), { language: 'ru' });
    const b = await createCompany(baseUrl());
    const field = (await a.as.operator.post('/api/fields', { name: 'Under the raster', geometry: FIELD })).body.id as number;
    // A raster that passes every check at upload and fails once zoned: its pixels are all nodata.
    const blank = allNodataIndexTiff();
    const far = (await a.as.operator.post('/api/fields', { name: 'Far away', geometry: blank.field })).body.id as number;
    const done = await uploadRaster(a.as.operator, { zones: '3' });
    const doneTask = await waitForTask(a.as.operator, done.body.task_id);
    const failed = await a.as.operator.upload('/upload', { raster_file: { data: blank.bytes, name: 'blank.tif', type: 'image/tiff' }, field_id: String(far) });
    expect(failed.status, failed.text).toBe(202);
    expect((await waitForTask(a.as.operator, failed.body.task_id)).status).toBe('error');
    // It made no scan to remove it with: the raster it was given is gone already.
    expect(readdirSync(join(serverEnv().DATA_DIR!, 'companies', String(a.id), 'fields', String(far), 'rasters'))).toEqual([]);

    // A viewer sees them too: it is the company's record, newest first.
    const list = await a.as.viewer.get('/api/tasks');
    expect(list.status, list.text).toBe(200);
    expect(list.body.tasks.map((t: { task_id: string }) => t.task_id)).toEqual([failed.body.task_id, done.body.task_id]);
    const operator = { id: a.users.operator.id, name: a.users.operator.email };
    expect(list.body.tasks[0]).toMatchObject({
      status: 'error',
      // In the language of the one who asks (the viewer's is Russian).
      error: ru.errors.raster_no_valid_pixels,
      kind: 'raster_zones',
      file_name: 'blank.tif',
      field: { id: far, name: 'Far away' },
      scan_id: null,
      created_by: operator,
      finished_at: expect.any(String),
    });
    expect(list.body.tasks[1]).toMatchObject({ status: 'completed', result: doneTask.result, scan_id: doneTask.result.scan_id, field: { id: field, name: 'Under the raster' }, created_by: operator });
    // The payload (the stored raster's path, the field's boundary) stays inside.
    expect(list.text).not.toMatch(/rasterPath|fieldGeometry/);

    const ids = async (query: string) => (await a.as.viewer.get(`/api/tasks?${query}`)).body.tasks.map((t: { task_id: string }) => t.task_id);
    expect(await ids('status=error')).toEqual([failed.body.task_id]);
    expect(await ids('status=completed,error')).toEqual([failed.body.task_id, done.body.task_id]);
    expect(await ids('status=pending,running')).toEqual([]);
    expect(await ids(`field_id=${field}`)).toEqual([done.body.task_id]);
    expect(await ids('kind=raster_zones&limit=1')).toEqual([failed.body.task_id]);
    expect(await ids('kind=drone')).toEqual([]);
    for (const query of ['limit=0', 'limit=101', 'limit=two', 'status=done', 'status=error,', 'kind=zones', 'field_id=-1']) expect((await a.as.viewer.get(`/api/tasks?${query}`)).status, query).toBe(422);
    // Another company's list holds none of them; without a session there is none.
    expect((await b.as.owner.get('/api/tasks')).body.tasks).toEqual([]);
    expect((await new Api(baseUrl()).get('/api/tasks')).status).toBe(401);
  });

  it('mask_water: false at upload zones the lakes too, a re-zone remembers it and can turn it back; a value not true/false is 422 in the user’s language', async () => {
    const c = await createCompany(baseUrl(), { language: 'ru' });
    await c.as.operator.post('/api/fields', { name: 'With lakes', geometry: FIELD });
    const bad = await uploadRaster(c.as.operator, { mask_water: 'maybe' });
    expect([bad.status, bad.body.success]).toEqual([422, false]);
    expect(bad.body.error).toContain('mask_water');
    expect(bad.body.error).toContain(ru.validation.invalid_value.split('{')[0]!.trim());
    const kept = await waitForTask(c.as.operator, (await uploadRaster(c.as.operator, { mask_water: 'false' })).body.task_id);
    const scanId = kept.result.scan_id as number;
    const fieldHa = geometryAreaHa(FIELD as never);
    const all = (await c.as.viewer.get(`/api/scans/${scanId}`)).body.scan.details.zoning;
    expect(all).toMatchObject({ mask_water: false, water_ha: 0, no_data_ha: 0 });
    expect(all.water_test).toBeUndefined();
    expect(kept.result.area_processed).toBeGreaterThan(fieldHa * 0.99);
    // Made again with other classes: water is still zoned, as the scan was.
    const again = await waitForTask(c.as.agronomist, (await c.as.agronomist.post(`/api/scans/${scanId}/zones`, { zones: 4 })).body.task_id);
    expect((await c.as.viewer.get(`/api/scans/${scanId}`)).body.scan.details.zoning).toMatchObject({ zones: 4, mask_water: false, water_ha: 0 });
    expect(again.result.area_processed).toBeGreaterThan(fieldHa * 0.99);
    // Turned back: the lakes are left out and said to be, and the zones and water make up the field.
    const masked = await waitForTask(c.as.agronomist, (await c.as.agronomist.post(`/api/scans/${scanId}/zones`, { mask_water: true })).body.task_id);
    const zoning = (await c.as.viewer.get(`/api/scans/${scanId}`)).body.scan.details.zoning;
    expect(zoning).toMatchObject({ zones: 4, mask_water: true, no_data_ha: 0, water_test: { index: 'ndwi' } });
    expect(zoning.water_ha).toBeGreaterThan(fieldHa * 0.05);
    expect(masked.result.area_processed + zoning.water_ha).toBeGreaterThan(fieldHa * 0.99);
    expect(masked.result.area_processed + zoning.water_ha).toBeLessThan(fieldHa * 1.01);
    const wrong = await c.as.agronomist.post(`/api/scans/${scanId}/zones`, { mask_water: 'yes' });
    expect([wrong.status, wrong.body.error]).toEqual([422, expect.stringContaining('mask_water')]);
  });

  it('makes a scan’s zones again from its kept raster: other classes, the present boundary, the scan otherwise as it was', async () => {
    const c = await createCompany(baseUrl(), { language: 'en' });
    const fieldId = (await c.as.operator.post('/api/fields', { name: 'Zoned twice', geometry: FIELD })).body.id as number;
    const first = await waitForTask(c.as.operator, (await uploadRaster(c.as.operator, { zones: '5' })).body.task_id);
    const scanId = first.result.scan_id as number;
    const before = (await c.as.viewer.get(`/api/scans/${scanId}`)).body.scan;
    // Asked for and made (fewer when classes vanished, and why); the band order read, here assumed (NAIP names no band).
    expect(before.details.zoning).toEqual({
      zones: 5,
      method: 'jenks',
      min_zone_area_ha: 0.1,
      zones_made: first.result.zones_created,
      ...(first.result.zones_created < 5 ? { zones_short: expect.stringMatching(/^(few_values|small_patches)$/) } : {}),
      mask_water: true,
      water_ha: expect.any(Number),
      no_data_ha: 0,
      water_test: { index: 'ndwi', cut: expect.any(Number) },
    });
    expect(before.details.bands).toEqual({ order: ['red', 'green', 'blue', 'nir'], source: 'assumed' });

    // Three classes of equal area, for the field's west half only (redrawn since).
    const WEST = { type: 'Polygon', coordinates: [[[-99.17, 47.01], [-99.155, 47.01], [-99.155, 47.03], [-99.17, 47.03], [-99.17, 47.01]]] };
    expect(before.made_for_earlier_boundary).toBe(false);
    expect((await c.as.operator.put(`/api/fields/${fieldId}`, { geometry: WEST })).status).toBe(200);
    // A client reading the scan is told its zones are of the earlier boundary.
    expect((await c.as.viewer.get(`/api/scans/${scanId}`)).body.scan.made_for_earlier_boundary).toBe(true);
    const res = await c.as.agronomist.post(`/api/scans/${scanId}/zones`, { zones: 3, method: 'quantile' });
    expect([res.status, res.body], res.text).toEqual([202, { success: true, task_id: expect.stringMatching(/^[0-9a-f-]{36}$/), scan_id: scanId, field_id: fieldId }]);
    // One remaking at a time.
    const again = await c.as.agronomist.post(`/api/scans/${scanId}/zones`, { zones: 4 });
    expect([again.status, again.body.error]).toEqual([409, en.errors.scan_rezoning]);
    const task = await waitForTask(c.as.agronomist, res.body.task_id);
    expect(task).toMatchObject({ status: 'completed', error: null, result: { scan_id: scanId, zones_created: 3, area_processed: expect.any(Number) } });

    const after = (await c.as.viewer.get(`/api/scans/${scanId}`)).body.scan;
    const zones = after.zones.features as { id: number; geometry: never; properties: { class: number; area_ha: number } }[];
    expect(zones.map((z) => z.properties.class)).toEqual([1, 2, 3]);
    // New rows, within the present boundary, and a partition of what was processed there.
    expect(zones.some((z) => before.zones.features.some((o: { id: number }) => o.id === z.id))).toBe(false);
    const sum = zones.reduce((total, z) => total + geometryAreaHa(z.geometry), 0);
    expect(Math.abs(sum - task.result.area_processed) / task.result.area_processed).toBeLessThan(0.0005);
    expect(task.result.area_processed).toBeLessThanOrEqual(geometryAreaHa(WEST as never) * 1.001);
    for (const z of zones) expect(bbox(z.geometry)[2]).toBeLessThanOrEqual(-99.155 + 1e-6);
    // Quantiles: classes of about equal area.
    for (const z of zones) expect(Math.abs(z.properties.area_ha / sum - 1 / 3)).toBeLessThan(0.08);
    // Recorded: how, and for which boundary (so nothing is clipped any more); the rest is the scan's own.
    expect(after.details).toMatchObject({ zoning: { zones: 3, method: 'quantile', min_zone_area_ha: 0.1, zones_made: 3 }, cell_factor: 1, bands: before.details.bands });
    // The preview is kept, and so is its legend.
    expect(after.preview.legend).toEqual(before.preview.legend);
    expect(after.details.boundary).not.toBe(before.details.boundary);
    expect(after.made_for_earlier_boundary).toBe(false);
    expect(after).toMatchObject({ id: scanId, status: 'completed', index: before.index, stats: before.stats, histogram: before.histogram, preview: before.preview, file_name: 'naip_2019.tif' });
    // The company's tasks name it.
    const listed = (await c.as.viewer.get('/api/tasks?kind=rezone')).body.tasks;
    expect(listed).toMatchObject([{ task_id: res.body.task_id, kind: 'rezone', file_name: 'naip_2019.tif', scan_id: scanId, field: { id: fieldId } }]);

    // What is left out stays as last made; bad options are refused before any task.
    const bad = [{ zones: 9 }, { method: 'magic' }, { min_zone_area_ha: -1 }, { zone: 3 }];
    for (const body of bad) expect((await c.as.operator.post(`/api/scans/${scanId}/zones`, body)).status, JSON.stringify(body)).toBe(422);
    // A typo is named, not run as the old zoning.
    expect((await c.as.operator.post(`/api/scans/${scanId}/zones`, { zone: 3 })).body.error).toContain('zone');
    expect((await c.as.viewer.post(`/api/scans/${scanId}/zones`, {})).status).toBe(403);

    // A field moved off the raster: the task fails and the scan keeps its zones, and its raster.
    const far = { type: 'Polygon', coordinates: [[[20, 48], [20.01, 48], [20.01, 48.01], [20, 48.01], [20, 48]]] };
    expect((await c.as.operator.put(`/api/fields/${fieldId}`, { geometry: far })).status).toBe(200);
    const missed = await waitForTask(c.as.operator, (await c.as.operator.post(`/api/scans/${scanId}/zones`, {})).body.task_id);
    expect([missed.status, missed.error]).toEqual(['error', en.errors.raster_no_overlap]);
    const kept = (await c.as.viewer.get(`/api/scans/${scanId}`)).body.scan;
    expect(kept.status).toBe('completed');
    expect(kept.zones.features.map((z: { id: number }) => z.id)).toEqual(zones.map((z) => z.id));
    const rasters = join(serverEnv().DATA_DIR!, 'companies', String(c.id), 'fields', String(fieldId), 'rasters');
    expect(readdirSync(rasters)).toHaveLength(1);

    // Once its raster is gone there is nothing to make zones from.
    rmSync(join(rasters, readdirSync(rasters)[0]!));
    const gone = await c.as.operator.post(`/api/scans/${scanId}/zones`, {});
    expect([gone.status, gone.body.error]).toEqual([409, en.errors.scan_no_raster]);
  });

  it('a scan deleted while its zones are being made again ends that task, as failed, and nothing is written', async () => {
    const { api, user } = await registerCompany(baseUrl(), { language: 'en' });
    const fieldId = (await api.post('/api/fields', { name: 'Gone', geometry: FIELD })).body.id as number;
    const scanId = (await waitForTask(api, (await uploadRaster(api, { zones: '3' })).body.task_id)).result.scan_id as number;
    const rezone = await api.post(`/api/scans/${scanId}/zones`, { zones: 6 });
    expect(rezone.status, rezone.text).toBe(202);
    expect((await api.del(`/api/scans/${scanId}`)).status).toBe(200);
    const task = await waitForTask(api, rezone.body.task_id);
    expect([task.status, task.error]).toEqual(['error', en.errors.scan_gone]);
    // Whatever its runner was doing, the task stays as the deletion left it, and no zone is left behind.
    await new Promise((r) => setTimeout(r, 3000));
    expect((await api.get(`/api/tasks/${rezone.body.task_id}`)).body).toMatchObject({ status: 'error', error: en.errors.scan_gone });
    expect((await api.get(`/api/scans/${scanId}`)).status).toBe(404);
    const db = directDb();
    expect(await db.zone.count({ where: { fieldId } })).toBe(0);
    await db.$disconnect();
    expect(readdirSync(join(serverEnv().DATA_DIR!, 'companies', String(user.company.id), 'fields', String(fieldId), 'rasters'))).toEqual([]);
  });

  it('deleting a scan removes its files, its own copy of the raster included', async () => {
    const { api, user } = await registerCompany(baseUrl());
    const fieldId = (await api.post('/api/fields', { name: 'Twice', geometry: FIELD })).body.id as number;
    // The same file uploaded twice is two uploads, each with its own copy.
    const [first, second] = [await uploadRaster(api, { zones: '3' }), await uploadRaster(api, { zones: '4' })];
    const tasks = [await waitForTask(api, first.body.task_id), await waitForTask(api, second.body.task_id)];
    const companyDir = join(serverEnv().DATA_DIR!, 'companies', String(user.company.id));
    const rasters = join(companyDir, 'fields', String(fieldId), 'rasters');
    expect(readdirSync(rasters)).toHaveLength(2);
    const taskDir = (i: number) => join(companyDir, 'tasks', [first, second][i]!.body.task_id);
    expect(readdirSync(taskDir(0))).toEqual(['preview.png']);

    expect((await api.del(`/api/scans/${tasks[0]!.result.scan_id}`)).status).toBe(200);
    expect(existsSync(taskDir(0))).toBe(false);
    expect(readdirSync(rasters), 'the other scan keeps its raster').toHaveLength(1);
    expect((await api.del(`/api/scans/${tasks[1]!.result.scan_id}`)).status).toBe(200);
    expect(existsSync(taskDir(1))).toBe(false);
    expect(readdirSync(rasters)).toEqual([]);
    // The uploads stay in the company's task list, no longer naming the scans that are gone.
    const listed = (await api.get('/api/tasks')).body.tasks as { task_id: string; scan_id: number | null }[];
    expect(listed.filter((t) => [first, second].some((u) => u.body.task_id === t.task_id)).map((t) => t.scan_id)).toEqual([null, null]);
  });

  it('a field merged into another keeps its uploads in the task list, under the field it is now part of', async () => {
    const { api } = await registerCompany(baseUrl());
    const west = (await api.post('/api/fields', { name: 'West', geometry: { type: 'Polygon', coordinates: [[[-99.2, 47.01], [-99.17, 47.01], [-99.17, 47.03], [-99.2, 47.03], [-99.2, 47.01]]] } })).body.id as number;
    const naip = (await api.post('/api/fields', { name: 'Scanned', geometry: FIELD })).body.id as number;
    const uploaded = await uploadRaster(api, { field_id: String(naip), zones: '3' });
    const done = await waitForTask(api, uploaded.body.task_id);
    // A field with scans is not merged; with its scan deleted it is, and the upload had gone with it.
    expect((await api.del(`/api/scans/${done.result.scan_id}`)).status).toBe(200);
    expect((await api.post('/api/fields/merge', { ids: [west, naip] })).status).toBe(200);
    const listed = (await api.get('/api/tasks')).body.tasks as { task_id: string; field: { id: number; name: string } | null }[];
    expect(listed.find((t) => t.task_id === uploaded.body.task_id)?.field).toEqual({ id: west, name: 'West' });
  });

  // Read when the test runs: the table is built even when the suite is skipped for missing data.
  it.each([
    ['not a TIFF', () => Buffer.from('this is not an image at all'), 'x.tif', 415],
    ['a truncated TIFF', () => readFileSync(sharedPath(...NAIP)).subarray(0, 4096), 'cut.tif', 422],
    ['a file that is not named .tif', () => readFileSync(sharedPath(...NAIP)), 'image.png', 415],
  ] as const)('refuses %s before any task is made', async (_n, data, name, status) => {
    const { api } = await registerCompany(baseUrl(), { language: 'en' });
    await api.post('/api/fields', { name: 'F', geometry: FIELD });
    const res = await api.upload('/upload', { raster_file: { data: data(), name } });
    expect(res.status, res.text).toBe(status);
    expect(res.body).toEqual({ success: false, error: expect.any(String) });
  });

  // The other real rasters: another NAIP year, a Landsat tile in EPSG:4326 with odd tags, and a
  // 5-band float32 drone reflectance clip (3.5 cm pixels, so the smallest zone is set tiny).
  const others: [string, string[], Record<string, string>][] = [
    ['NAIP 2009 (4 bands, UTM 14N)', ['raster', 'naip', 'm_4709963_se_14_1_20090818.tif'], { zones: '4' }],
    ['Landsat (EPSG:4326, odd tags)', ['raster', 'landsat', '2020.tif'], { zones: '4' }],
    ['drone reflectance (5 bands, float32)', ['raster', 'plantcv', '615.tif'], { zones: '4', method: 'quantile', min_zone_area_ha: '0.00002' }],
  ];
  for (const [label, file, parts] of others) {
    it.skipIf(!!missingShared(...file))(`zones ${label} through the API: a partition, classes in index order`, async () => {
      const { api } = await registerCompany(baseUrl());
      // A field over the middle of the raster's footprint (GDAL reads the footprint).
      const info = JSON.parse(execFileSync('gdalinfo', ['-json', sharedPath(...file)], { encoding: 'utf8' }));
      const [w, s, e, n] = bbox({ type: 'Polygon', coordinates: info.wgs84Extent.coordinates });
      const [x0, x1, y0, y1] = [w + (e - w) * 0.2, w + (e - w) * 0.8, s + (n - s) * 0.2, s + (n - s) * 0.8];
      const geometry = { type: 'Polygon', coordinates: [[[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]] };
      const fieldId = (await api.post('/api/fields', { name: label, geometry })).body.id;
      const res = await api.upload('/upload', { raster_file: { file: sharedPath(...file), type: 'image/tiff' }, field_id: String(fieldId), ...parts });
      expect(res.status, res.text).toBe(202);
      const task = await waitForTask(api, res.body.task_id);
      expect(task.error).toBeNull();
      expect(task.status).toBe('completed');
      const zones = (await api.get(`/api/scans/${task.result.scan_id}`)).body.scan.zones.features;
      expect(zones.length).toBeGreaterThanOrEqual(2);
      const sum = zones.reduce((acc: number, z: { geometry: never }) => acc + geometryAreaHa(z.geometry), 0);
      // area_processed is answered to 1 m² (0.0001 ha): on the drone clip's 13 m² that rounding is the bound.
      expect(Math.abs(sum - task.result.area_processed)).toBeLessThanOrEqual(Math.max(0.005 * task.result.area_processed, 0.00005));
      const means = zones.map((z: { properties: { mean: number } }) => z.properties.mean);
      expect([...means].sort((a, b) => a - b)).toEqual(means);
    });
  }

  it.skipIf(!!missingShared('raster', 'landsat', '2020.tif'))('takes the band order of a file that names none from the upload (Landsat stored SWIR1,NIR,Red,Green)', async () => {
    const { api } = await registerCompany(baseUrl(), { language: 'en' });
    const file = sharedPath('raster', 'landsat', '2020.tif');
    const info = JSON.parse(execFileSync('gdalinfo', ['-json', file], { encoding: 'utf8' }));
    const [w, s, e, n] = bbox({ type: 'Polygon', coordinates: info.wgs84Extent.coordinates });
    const [x0, x1, y0, y1] = [w + (e - w) * 0.3, w + (e - w) * 0.7, s + (n - s) * 0.3, s + (n - s) * 0.7];
    const fieldId = (await api.post('/api/fields', { name: 'Landsat', geometry: { type: 'Polygon', coordinates: [[[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]] } })).body.id;
    const upload = (bands: string) => api.upload('/upload', { raster_file: { file, type: 'image/tiff' }, field_id: String(fieldId), zones: '3', bands });
    const named = await upload('swir1,nir,red,green');
    expect(named.status, named.text).toBe(202);
    const guessed = await upload('red,green,blue,nir');
    expect(guessed.status, guessed.text).toBe(202);
    const [right, wrong] = await Promise.all([waitForTask(api, named.body.task_id), waitForTask(api, guessed.body.task_id)]);
    const mean = async (t: { result: { scan_id: number } }) => (await api.get(`/api/scans/${t.result.scan_id}`)).body.scan.stats.mean;
    // Tropical forest: NDVI well above what the usual 4-band order makes of the same pixels.
    expect(await mean(right)).toBeGreaterThan(0.5);
    expect((await mean(right)) - (await mean(wrong))).toBeGreaterThan(0.05);
    const count = await upload('nir,red');
    expect(count.status).toBe(422);
    expect(count.body.error).toContain('the raster has 4');
    const words = await upload('swir1,nir,rouge,green');
    expect(words.status).toBe(422);
    expect(words.body.error).toMatch(/bands: .*rededge/);
  });

  it.skipIf(!!missingShared('raster', 'plantcv', 'rgb_uint16.tif'))('refuses a raster without a coordinate system before any task is made', async () => {
    const { api } = await registerCompany(baseUrl(), { language: 'en' });
    await api.post('/api/fields', { name: 'F', geometry: FIELD });
    const res = await api.upload('/upload', { raster_file: { file: sharedPath('raster', 'plantcv', 'rgb_uint16.tif') } });
    expect(res.status, res.text).toBe(422);
    expect(res.body).toEqual({ success: false, error: expect.stringMatching(/coordinate/i) });
  });

  it('refuses a raster over none of the company’s fields, and bad options', async () => {
    const { api } = await registerCompany(baseUrl(), { language: 'en' });
    await api.post('/api/fields', { name: 'Far away', geometry: { type: 'Polygon', coordinates: [[[20, 48], [20.01, 48], [20.01, 48.01], [20, 48]]] } });
    const none = await uploadRaster(api);
    expect(none.status).toBe(422);
    expect(none.body.error).toBe("The raster overlaps none of your company's fields; choose the field yourself");
    const bad = await uploadRaster(api, { zones: '9', method: 'magic' });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toContain('zones: at most 7');
    const missingPart = await api.upload('/upload', { something: 'else' });
    expect(missingPart.status).toBe(422);
  });

  it('refuses at once, keeping nothing, a raster that misses the field chosen or cannot give the index asked for', async () => {
    const { api, user } = await registerCompany(baseUrl(), { language: 'en' });
    const under = (await api.post('/api/fields', { name: 'Under it', geometry: FIELD })).body.id as number;
    const far = (await api.post('/api/fields', { name: 'Far away', geometry: { type: 'Polygon', coordinates: [[[20, 48], [20.01, 48], [20.01, 48.01], [20, 48]]] } })).body.id as number;
    const refusals: Array<[Record<string, string>, string]> = [
      // The wrong field chosen: the tile is in North Dakota.
      [{ field_id: String(far) }, en.errors.raster_no_overlap],
      // NAIP has red, green, blue and near infrared: no red edge (the order is the usual one, not unknown).
      [{ field_id: String(under), index: 'ndre' }, "Cannot compute the ndre index: it needs a rededge band, and the raster's bands are red, green, blue, nir (the usual order for their count; name them with bands if the file stores them otherwise)"],
      [{ field_id: String(under), index: 'evi' }, 'Unknown index evi for a raster of several bands; known: ndvi, ndre, gndvi'],
    ];
    for (const [parts, error] of refusals) {
      const res = await uploadRaster(api, parts);
      expect([res.status, res.body], JSON.stringify(parts)).toEqual([422, { success: false, error }]);
    }
    // No task was queued and no raster kept, for either field.
    expect((await api.get('/api/tasks')).body.tasks).toEqual([]);
    for (const id of [under, far]) expect(existsSync(join(serverEnv().DATA_DIR!, 'companies', String(user.company.id), 'fields', String(id), 'rasters')), `field ${id}`).toBe(false);
    // The same field with an index the bands give is taken.
    expect((await uploadRaster(api, { field_id: String(under), index: 'gndvi' })).status).toBe(202);
  });

  it('a task interrupted by a killed server is resumed after the restart and completes', async () => {
    // A database of its own (a PostgreSQL one in the PostgreSQL pass): at its restart the server takes
    // every task left running as its own to resume, and on the shared database those were the shared
    // server's, still at work (a drone survey then finished into a task it no longer held).
    const scratch = serverEnv().DATABASE_URL ? await scratchPostgres() : undefined;
    const server = await startServer({ env: scratch?.env ?? {} });
    const { api } = await registerCompany(server.url);
    await api.post('/api/fields', { name: 'F', geometry: FIELD });
    const res = await uploadRaster(api, { zones: '5' });
    expect(res.status).toBe(202);
    await server.stop('SIGKILL');
    const again = await server.restart();
    try {
      const task = await waitForTask(api, res.body.task_id);
      expect(task.status).toBe('completed');
      expect(task.result.zones_created).toBeGreaterThanOrEqual(3);
    } finally {
      await again.stop();
      await scratch?.drop();
    }
  });

  it('a zoning task past its time limit is stopped and fails with the reason; the next one is not held up', async () => {
    // A limit of 1 s (ZONING_TASK_LIMIT_S) against a NAIP tile that takes seconds: a task that never
    // ended had held its kind's only turn, every company's rasters behind it, until a restart.
    const scratch = serverEnv().DATABASE_URL ? await scratchPostgres() : undefined;
    const server = await startServer({ env: { ...(scratch?.env ?? {}), ZONING_TASK_LIMIT_S: '1' } });
    try {
      const { api, user } = await registerCompany(server.url, { language: 'en' });
      const fieldId = (await api.post('/api/fields', { name: 'F', geometry: FIELD })).body.id as number;
      const [first, second] = [await uploadRaster(api, { zones: '5' }), await uploadRaster(api, { zones: '4' })];
      expect([first.status, second.status]).toEqual([202, 202]);
      for (const res of [first, second]) {
        const task = await waitForTask(api, res.body.task_id, 60_000);
        expect([task.status, task.error]).toEqual(['error', en.errors.task_too_long.replace('{minutes}', '0.02')]);
      }
      // A task that fails for good takes its raster with it.
      const rasters = join(server.dataDir, 'companies', String(user.company.id), 'fields', String(fieldId), 'rasters');
      expect(existsSync(rasters) ? readdirSync(rasters) : []).toEqual([]);
      expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
    } finally {
      await server.stop();
      await scratch?.drop();
    }
  });
});
