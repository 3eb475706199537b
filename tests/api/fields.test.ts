import { describe, expect, it } from 'vitest';
import { geometryAreaHa } from '@/lib/geo/area';
import { createCompany, registerCompany } from '../helpers/company';
import { randomUUID } from 'node:crypto';
import { baseUrl, directDb, retried } from '../helpers/context';
import en from '../../messages/en.json';
import { ogr2ogrAvailable, shapefileZip, square } from '../helpers/shapefile-zip';

const noOgr = ogr2ogrAvailable() ? undefined : 'ogr2ogr (gdal-bin) is not installed: the 2,500-parcel shapefile cannot be made';
if (noOgr) console.warn(`skipping the long-list test: ${noOgr}`);

const rect = (lon: number, lat: number, d = 0.01) => ({
  type: 'Polygon' as const,
  coordinates: [[[lon, lat], [lon + d, lat], [lon + d, lat + d], [lon, lat + d], [lon, lat]]],
});

describe('fields', () => {
  it('creates a field (201) and answers it with area in hectares and its owner', async () => {
    const { api } = await registerCompany(baseUrl());
    const owner = await api.post('/api/owners', { name: 'Иванов И.И.' });
    expect(owner.headers.get('location')).toBe(`/api/owners/${owner.body.id}`);
    const geometry = rect(39.1, 45.1);
    const created = await api.post('/api/fields', { name: 'Поле 1', geometry, owner_id: owner.body.id, status: 'Собственность', parcel_number: '61:02:0600010:123' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ success: true, id: expect.any(Number) });
    expect(created.headers.get('location')).toBe(`/api/fields/${created.body.id}`);
    const res = await api.get(`/api/fields/${created.body.id}`);
    expect(res.body).toEqual({
      id: created.body.id, name: 'Поле 1', area: Math.round(geometryAreaHa(geometry) * 1e4) / 1e4, area_unit: 'ha',
      owner: { id: owner.body.id, name: 'Иванов И.И.' }, status: 'Собственность', parcel_number: '61:02:0600010:123',
      geometry, created_at: expect.any(String), updated_at: expect.any(String), attributes: {},
    });
  });

  it('lists fields as a GeoJSON FeatureCollection in id order', async () => {
    const { api } = await registerCompany(baseUrl());
    const a = await api.post('/api/fields', { name: 'A', geometry: rect(20, 48) });
    const b = await api.post('/api/fields', { name: 'B', geometry: rect(20.1, 48), status: 'Аренда' });
    const res = await api.get('/api/fields');
    expect(res.headers.get('content-type')).toContain('application/geo+json');
    const body = JSON.parse(res.text);
    expect(body.type).toBe('FeatureCollection');
    expect(body.features.map((f: { id: number }) => f.id)).toEqual([a.body.id, b.body.id]);
    expect(body.features[1]).toEqual({
      type: 'Feature', id: b.body.id,
      properties: { name: 'B', area: expect.any(Number), owner: null, owner_id: null, status: 'Аренда', parcel_number: null },
      geometry: rect(20.1, 48),
    });
  });

  it.skipIf(!!noOgr)('streams a list longer than one page, the same gzipped for a client that asks and plain otherwise', async () => {
    const { api } = await registerCompany(baseUrl());
    const features = Array.from({ length: 2500 }, (_, i) => ({
      geometry: square(30 + (i % 50) * 0.001, 50 + Math.floor(i / 50) * 0.001, 50),
      properties: { NAME: `P${i}`, STATUS: 'Аренда' },
    }));
    const imported = await api.upload('/upload', { shapefile_zip: { data: await shapefileZip({ features, encoding: 'UTF-8' }), name: 'p.zip', type: 'application/zip' } });
    expect(imported.body.fields_created, imported.text).toBe(2500);
    const gzipped = await api.get('/api/fields', { 'accept-encoding': 'gzip' });
    const plain = await api.get('/api/fields', { 'accept-encoding': 'identity' });
    expect(gzipped.headers.get('content-encoding')).toBe('gzip');
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(gzipped.text).toBe(plain.text);
    const list = JSON.parse(plain.text);
    expect(list.features.map((f: { properties: { name: string } }) => f.properties.name)).toEqual(features.map((_, i) => `P${i}`));
    const ids = list.features.map((f: { id: number }) => f.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    // A window over the last rows of the grid: the filter holds across pages.
    const window = JSON.parse((await api.get('/api/fields?bbox=30.0101,50.045,30.0199,50.0499')).text);
    expect(window.features.map((f: { properties: { name: string } }) => f.properties.name)).toEqual(
      features.map((_, i) => i).filter((i) => i >= 2250 && i % 50 >= 10 && i % 50 <= 19).map((i) => `P${i}`),
    );
  });

  it('filters by bbox, owner, status and text', async () => {
    const { api } = await registerCompany(baseUrl());
    const owner = (await api.post('/api/owners', { name: 'Kovač' })).body.id;
    const ids = [
      (await api.post('/api/fields', { name: 'North meadow', geometry: rect(18, 49), owner_id: owner, status: 'Аренда' })).body.id,
      (await api.post('/api/fields', { name: 'South', geometry: rect(18, 47), parcel_number: '12:345' })).body.id,
      (await api.post('/api/fields', { name: 'East', geometry: rect(19, 49), status: 'Аренда' })).body.id,
    ];
    const idsOf = async (q: string) => JSON.parse((await api.get(`/api/fields?${q}`)).text).features.map((f: { id: number }) => f.id);
    expect(await idsOf('bbox=17.9,48.9,18.5,49.5')).toEqual([ids[0]]);
    expect(await idsOf(`owner_id=${owner}`)).toEqual([ids[0]]);
    expect(await idsOf(`status=${encodeURIComponent('Аренда')}`)).toEqual([ids[0], ids[2]]);
    expect(await idsOf('q=meadow')).toEqual([ids[0]]);
    expect(await idsOf('q=MEADOW')).toEqual([ids[0]]);
    expect(await idsOf('q=345')).toEqual([ids[1]]);
    // Cyrillic and Slovak letters whatever their case, on SQLite too (its LIKE folds ASCII only).
    const ru = [
      (await api.post('/api/fields', { name: 'Поле №2 у реки', geometry: rect(20, 49) })).body.id,
      (await api.post('/api/fields', { name: 'NAIP поле Северное', geometry: rect(20, 48) })).body.id,
      (await api.post('/api/fields', { name: 'ČIERNA ZEM', geometry: rect(20, 47) })).body.id,
    ];
    for (const q of ['поле', 'Поле', 'ПОЛЕ']) expect(await idsOf(`q=${encodeURIComponent(q)}`), q).toEqual([ru[0], ru[1]]);
    expect(await idsOf(`q=${encodeURIComponent('северное')}`)).toEqual([ru[1]]);
    for (const q of ['čierna', 'Čierna zem']) expect(await idsOf(`q=${encodeURIComponent(q)}`), q).toEqual([ru[2]]);
    // Letters of any case anywhere in a word or a name, not only as names are commonly written.
    const mixed = [(await api.post('/api/fields', { name: 'АгроСервис', geometry: rect(20, 46) })).body.id, (await api.post('/api/fields', { name: 'Луг у Реки', geometry: rect(20, 45) })).body.id];
    for (const q of ['агросервис', 'оСЕР', 'АГРОСЕРВИС']) expect(await idsOf(`q=${encodeURIComponent(q)}`), q).toEqual([mixed[0]]);
    for (const q of ['луг у реки', 'Г У Р']) expect(await idsOf(`q=${encodeURIComponent(q)}`), q).toEqual([mixed[1]]);
    // LIKE's wildcards and escape are plain text in a search.
    const odd = [];
    for (const name of ['Pole_1', 'Pole11', '100% rye', '1000 rye', 'A\\B']) odd.push((await api.post('/api/fields', { name, geometry: rect(21, 49) })).body.id);
    expect(await idsOf('q=_')).toEqual([odd[0]]);
    expect(await idsOf(`q=${encodeURIComponent('pole_1')}`)).toEqual([odd[0]]);
    expect(await idsOf(`q=${encodeURIComponent('%')}`)).toEqual([odd[2]]);
    expect(await idsOf(`q=${encodeURIComponent('0% r')}`)).toEqual([odd[2]]);
    expect(await idsOf(`q=${encodeURIComponent('\\')}`)).toEqual([odd[4]]);
    const bad = await api.get('/api/fields?bbox=1,2,3', { 'accept-language': 'en' });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toContain('bbox: four numbers minLon');
    expect(bad.body.error).not.toContain('bbox: bbox');
    // Empty parts are no numbers (they were the box 0,0,0,0); an empty filter is no filter.
    expect((await api.get('/api/fields?bbox=,,,')).status).toBe(422);
    expect((await idsOf('owner_id=&status=&q=')).length).toBe(ids.length + ru.length + mixed.length + odd.length);
  });

  it('updates any subset, recomputes area when the geometry changes, keeps an explicit area until then', async () => {
    const { api } = await registerCompany(baseUrl());
    const id = (await api.post('/api/fields', { name: 'F', geometry: rect(25, 50), area: 99.5 })).body.id;
    expect((await api.get(`/api/fields/${id}`)).body.area).toBe(99.5);
    // Areas are kept to the square metre: a smaller one would be stored as 0.
    expect((await api.put(`/api/fields/${id}`, { area: 0.00004 })).status).toBe(422);
    const before = (await api.get(`/api/fields/${id}`)).body.updated_at;
    await new Promise((r) => setTimeout(r, 5));
    const renamed = await api.put(`/api/fields/${id}`, { name: 'F2', status: 'Субаренда' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.field).toMatchObject({ name: 'F2', status: 'Субаренда', area: 99.5 });
    expect(Date.parse(renamed.body.field.updated_at)).toBeGreaterThan(Date.parse(before));
    // The same boundary sent back is no change: the cadastral area stays.
    expect((await api.put(`/api/fields/${id}`, { name: 'F2', geometry: rect(25, 50) })).body.field.area).toBe(99.5);
    const moved = await api.put(`/api/fields/${id}`, { geometry: rect(25, 50, 0.02) });
    expect(moved.body.field.area).toBeCloseTo(geometryAreaHa(rect(25, 50, 0.02)), 3);
    const cleared = await api.put(`/api/fields/${id}`, { parcel_number: '', status: null });
    expect(cleared.body.field).toMatchObject({ parcel_number: null, status: null });
  });

  it('keeps holes and multipolygons as given', async () => {
    const { api } = await registerCompany(baseUrl());
    const withHole = { type: 'Polygon', coordinates: [rect(30, 50).coordinates[0], [[30.002, 50.002], [30.002, 50.004], [30.004, 50.004], [30.004, 50.002], [30.002, 50.002]]] };
    const id = (await api.post('/api/fields', { name: 'H', geometry: withHole })).body.id;
    const got = (await api.get(`/api/fields/${id}`)).body;
    expect(got.geometry).toEqual(withHole);
    expect(got.area).toBeCloseTo(geometryAreaHa(rect(30, 50)) - geometryAreaHa(rect(30.002, 50.002, 0.002)), 3);
    const multi = { type: 'MultiPolygon', coordinates: [rect(31, 50).coordinates, rect(31.1, 50).coordinates] };
    const m = (await api.post('/api/fields', { name: 'M', geometry: multi })).body.id;
    expect((await api.get(`/api/fields/${m}`)).body.geometry.type).toBe('MultiPolygon');
  });

  it.each([
    ['a line', { type: 'LineString', coordinates: [[0, 0], [1, 1]] }, 'The geometry must be a GeoJSON Polygon or MultiPolygon, got: LineString'],
    ['an unclosed ring', { type: 'Polygon', coordinates: [[[0, 0], [0.01, 0], [0.01, 0.01], [0, 0.01]]] }, 'Ring not closed (outer ring): the last position must equal the first'],
    ['a bow tie', { type: 'Polygon', coordinates: [[[0, 0], [0.01, 0.01], [0.01, 0], [0, 0.01], [0, 0]]] }, 'The boundary crosses itself at 0.005, 0.005'],
    ['latitude 91', { type: 'Polygon', coordinates: [[[0, 91], [1, 91], [1, 92], [0, 91]]] }, 'Coordinates out of range (outer ring): 0, 91; longitude must be within -180..180, latitude within -90..90'],
  ])('refuses %s with 422 and writes nothing', async (_n, geometry, message) => {
    const { api } = await registerCompany(baseUrl());
    const res = await api.post('/api/fields', { name: 'X', geometry });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ success: false, error: message });
    expect(JSON.parse((await api.get('/api/fields')).text).features).toHaveLength(0);
  });

  it('names the ring at fault in the user\'s language, and refuses a part inside another', async () => {
    const { api } = await registerCompany(baseUrl(), { language: 'ru' });
    const unclosed = { type: 'MultiPolygon', coordinates: [rect(31, 50).coordinates, [rect(31.1, 50).coordinates[0]!, [[31.102, 50.002], [31.104, 50.002], [31.104, 50.004], [31.102, 50.004]]]] };
    const res = await api.post('/api/fields', { name: 'X', geometry: unclosed });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('Контур не замкнут (многоугольник 2, отверстие 1): последняя точка должна совпадать с первой');
    const nested = { type: 'MultiPolygon', coordinates: [rect(31, 50).coordinates, rect(31.002, 50.002, 0.002).coordinates] };
    const overlap = await api.post('/api/fields', { name: 'X', geometry: nested });
    expect(overlap.status).toBe(422);
    expect(overlap.body.error).toMatch(/^Части 2 и 1 границы перекрываются/);
    expect(JSON.parse((await api.get('/api/fields')).text).features).toHaveLength(0);
  });

  it('refuses a bad parcel number, a missing name, and another company’s owner', async () => {
    const { api } = await registerCompany(baseUrl());
    const other = await registerCompany(baseUrl());
    const foreignOwner = (await other.api.post('/api/owners', { name: 'Theirs' })).body.id;
    const parcel = await api.post('/api/fields', { name: 'P', geometry: rect(1, 1), parcel_number: '61-02-12' });
    expect(parcel.status).toBe(422);
    expect(parcel.body.error).toContain('parcel_number: groups of digits separated by colons');
    expect((await api.post('/api/fields', { geometry: rect(1, 1) })).body.error).toContain('name: required');
    const owner = await api.post('/api/fields', { name: 'P', geometry: rect(1, 1), owner_id: foreignOwner });
    expect(owner.status).toBe(422);
    expect(owner.body.error).toBe('No such owner in your company');
    // A key this API does not know is named, not ignored with a 200 (the `owner` a GET answers, say).
    const id = (await api.post('/api/fields', { name: 'P', geometry: rect(1, 1) })).body.id;
    const unknown = await api.put(`/api/fields/${id}`, { owner: { id: foreignOwner, name: 'Theirs' }, parcelNumber: '1:2' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error).toContain('unknown fields: owner, parcelNumber');
    expect((await api.put(`/api/fields/${id}`, {})).body.error).toContain('nothing to change');
    // Names and statuses are one line: a line break or a control character breaks rows, tooltips,
    // titles and the names in flight plans and task data.
    for (const res of [
      await api.post('/api/fields', { name: 'North\nfield', geometry: rect(1, 1) }),
      await api.put(`/api/fields/${id}`, { status: 'Аренда\r' + 'x' }),
      await api.post('/api/owners', { name: 'Agro\tCo' }),
      await api.put(`/api/auth/profile`, { first_name: 'Ann\u0007' }),
    ]) {
      expect(res.status, res.text).toBe(422);
      expect(res.body.error).toMatch(/: one line of text, without line breaks or control characters$/);
    }
    // Ids past PostgreSQL's integer are refused as such (they reached the database there: a 500).
    const huge = 2 ** 31;
    for (const res of [
      await api.post('/api/fields', { name: 'P', geometry: rect(1, 1), owner_id: huge }),
      await api.put(`/api/fields/${id}`, { owner_id: huge }),
      await api.patch('/api/fields', { ids: [id, huge], status: 'x' }),
      await api.post('/api/fields/merge', { ids: [id, huge] }),
      await api.get(`/api/fields?owner_id=${huge}`),
      await api.get(`/api/tasks?field_id=${huge}`),
      await api.get(`/api/fields?owner_id=${'9'.repeat(30)}`),
    ]) {
      expect(res.status, res.text).toBe(422);
      expect(res.body.error).toContain('2147483647');
      expect(res.body.error).not.toContain('9007199254740991');
    }
    // An id in a query is digits: Number() read each of these as 1, another record than the client meant.
    for (const given of ['0x1', '1e0', '1.0', '+1', ' 1', '1 ']) {
      const res = await api.get(`/api/fields?owner_id=${encodeURIComponent(given)}`);
      expect(res.status, given).toBe(422);
      expect(res.body.error).toBe('Invalid data: owner_id: a whole number from 1, in digits (an id)');
    }
    expect((await api.get('/api/tasks?field_id=1e0')).status).toBe(422);
    expect((await api.get(`/api/fields/${id}`)).body).toMatchObject({ name: 'P', owner: null, status: null });
  });

  it('another company’s field answers 404, exactly like a missing one, and stays untouched', async () => {
    const a = await createCompany(baseUrl());
    const b = await registerCompany(baseUrl());
    const id = (await b.api.post('/api/fields', { name: 'Theirs', geometry: rect(5, 5) })).body.id;
    for (const res of [
      await a.as.owner.get(`/api/fields/${id}`),
      await a.as.owner.put(`/api/fields/${id}`, { name: 'Mine now' }),
      await a.as.owner.del(`/api/fields/${id}`),
      await a.as.owner.get('/api/fields/999999999'),
      await a.as.owner.get('/api/fields/abc'),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.success).toBe(false);
    }
    expect((await b.api.get(`/api/fields/${id}`)).body.name).toBe('Theirs');
    expect(JSON.parse((await a.as.owner.get('/api/fields')).text).features).toHaveLength(0);
  });

  it('deletes a field (admin and owner only)', async () => {
    const c = await createCompany(baseUrl());
    const id = (await c.as.operator.post('/api/fields', { name: 'D', geometry: rect(7, 7) })).body.id;
    expect((await c.as.agronomist.del(`/api/fields/${id}`)).status).toBe(403);
    expect((await c.as.admin.del(`/api/fields/${id}`)).body).toEqual({ success: true });
    expect((await c.as.admin.get(`/api/fields/${id}`)).status).toBe(404);
  });

  it('keeps a field while a task of it runs (409), in a delete and in a merge, so the upload’s record stays', async () => {
    const { api, user } = await registerCompany(baseUrl(), { language: 'en' });
    const busyId = (await api.post('/api/fields', { name: 'Uploading', geometry: rect(8, 8) })).body.id as number;
    const otherId = (await api.post('/api/fields', { name: 'Next door', geometry: rect(8.01, 8) })).body.id as number;
    // A task as an upload leaves it while it is processed; written here, so that no runner ends it meanwhile.
    const db = directDb();
    const taskId = randomUUID();
    await retried(() => db.task.create({ data: { id: taskId, companyId: user.company.id, kind: 'raster_zones', status: 'running', fieldId: busyId } }));
    const refused = await api.del(`/api/fields/${busyId}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe(en.errors.field_task_running);
    const merge = await api.post('/api/fields/merge', { ids: [otherId, busyId] });
    expect([merge.status, merge.body.error]).toEqual([409, en.errors.merge_fields_uploading.replace('{names}', 'Uploading')]);
    await retried(() => db.task.update({ where: { id: taskId }, data: { status: 'completed' } }));
    expect((await api.del(`/api/fields/${busyId}`)).status).toBe(200);
    await db.$disconnect();
  });

  it('a task written while the field is being deleted is waited for and kept: the delete is refused (409)', async () => {
    const { api, user } = await registerCompany(baseUrl(), { language: 'en' });
    const id = (await api.post('/api/fields', { name: 'Racing', geometry: rect(9, 9) })).body.id as number;
    const db = directDb();
    const taskId = randomUUID();
    // An upload's task row, written and not yet committed when the delete comes: the delete had
    // checked for tasks before it, found none, then removed the field and the task with it.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let written!: () => void;
    const isWritten = new Promise<void>((resolve) => (written = resolve));
    const writing = db.$transaction(
      async (tx) => {
        // Running (under no runner's lock) rather than pending, which the server's runner would take up.
        await tx.task.create({ data: { id: taskId, companyId: user.company.id, kind: 'raster_zones', status: 'running', fieldId: id } });
        written();
        await released;
      },
      { maxWait: 20_000, timeout: 30_000 },
    );
    await isWritten;
    const deleting = api.del(`/api/fields/${id}`);
    await new Promise((r) => setTimeout(r, 1000));
    release();
    await writing;
    const refused = await deleting;
    expect([refused.status, refused.body.error]).toEqual([409, en.errors.field_task_running]);
    expect((await db.task.findUnique({ where: { id: taskId } }))?.fieldId).toBe(id);
    await retried(() => db.task.update({ where: { id: taskId }, data: { status: 'error' } }));
    expect((await api.del(`/api/fields/${id}`)).status).toBe(200);
    await db.$disconnect();
  });
});

describe('many fields at once', () => {
  it('PATCH /api/fields gives many fields one owner or status, all of them or none', async () => {
    const { api } = await registerCompany(baseUrl(), { language: 'en' });
    const owner = (await api.post('/api/owners', { name: 'Agro Owner' })).body.id as number;
    const [a, b, c] = await Promise.all([0, 1, 2].map(async (i) => (await api.post('/api/fields', { name: `F${i}`, geometry: rect(21 + i / 10, 48), status: 'Собственность' })).body.id as number));
    const before = (await api.get(`/api/fields/${a}`)).body.updated_at;

    // A repeated id is one field.
    const res = await api.patch('/api/fields', { ids: [a, b, a], owner_id: owner, status: 'Аренда' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ success: true, updated: 2 });
    for (const id of [a, b]) expect((await api.get(`/api/fields/${id}`)).body).toMatchObject({ owner: { id: owner, name: 'Agro Owner' }, status: 'Аренда' });
    expect((await api.get(`/api/fields/${c}`)).body).toMatchObject({ owner: null, status: 'Собственность' });
    expect((await api.get(`/api/fields/${a}`)).body.updated_at > before).toBe(true);
    const stats = (await api.get('/api/stats')).body;
    expect(Object.keys(stats.by_status).sort()).toEqual(['Аренда', 'Собственность']);

    // Only what is given changes; null takes it away.
    expect((await api.patch('/api/fields', { ids: [b], owner_id: null })).body.updated).toBe(1);
    expect((await api.get(`/api/fields/${b}`)).body).toMatchObject({ owner: null, status: 'Аренда' });

    // One field of another company in the list: 404, and none of them changes.
    const other = await createCompany(baseUrl());
    const foreign = (await other.as.owner.post('/api/fields', { name: 'Theirs', geometry: rect(22, 48) })).body.id as number;
    const mixed = await api.patch('/api/fields', { ids: [a, foreign], status: 'Субаренда' });
    expect(mixed.status).toBe(404);
    expect((await api.get(`/api/fields/${a}`)).body.status).toBe('Аренда');
    expect((await other.as.owner.get(`/api/fields/${foreign}`)).body.status).toBeNull();
    // Nor can another company's owner be given.
    const theirOwner = (await other.as.owner.post('/api/owners', { name: 'Their owner' })).body.id as number;
    const badOwner = await api.patch('/api/fields', { ids: [a], owner_id: theirOwner });
    expect(badOwner.status).toBe(422);
    expect((await api.get(`/api/fields/${a}`)).body.owner.id).toBe(owner);

    for (const [body, error] of [
      [{ ids: [a] }, 'Invalid data: nothing to change: give owner_id, status or both'],
      [{ ids: [], status: 'Аренда' }, 'Invalid data: ids: at least 1 item'],
      [{ ids: Array.from({ length: 10_001 }, (_, i) => i + 1), status: 'Аренда' }, 'Invalid data: ids: at most 10,000 items'],
      [{ ids: ['one'], status: 'Аренда' }, 'Invalid data: ids.0: expected a number'],
      [{ status: 'Аренда' }, 'Invalid data: ids: required'],
    ] as const) {
      const bad = await api.patch('/api/fields', body);
      expect(bad.status, JSON.stringify(body).slice(0, 60)).toBe(422);
      expect(bad.body.error).toBe(error);
    }
  });
});

describe('many fields at once, more than one statement holds', () => {
  it.skipIf(!!noOgr)('PATCH /api/fields changes 1,200 imported parcels in one request', async () => {
    const { api } = await registerCompany(baseUrl());
    const features = Array.from({ length: 1200 }, (_, i) => ({ geometry: square(30 + (i % 40) * 0.01, 50 + Math.floor(i / 40) * 0.01), properties: { name: `P${i}` } }));
    const imported = await api.upload('/upload', { shapefile_zip: { data: await shapefileZip({ features, encoding: 'UTF-8' }), name: 'p.zip', type: 'application/zip' } });
    expect(imported.body.fields_created).toBe(1200);
    const ids = (JSON.parse((await api.get('/api/fields')).text).features as { id: number }[]).map((f) => f.id);
    const res = await api.patch('/api/fields', { ids, status: 'Аренда' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.updated).toBe(1200);
    const stats = (await api.get('/api/stats')).body;
    expect(Object.keys(stats.by_status)).toEqual(['Аренда']);
    expect(stats.total_fields).toBe(1200);
  });
});

describe('owners', () => {
  it('lists owners with field counts and areas, names unique per company only', async () => {
    const { api } = await registerCompany(baseUrl());
    const other = await registerCompany(baseUrl());
    const id = (await api.post('/api/owners', { name: 'Farmer' })).body.id;
    expect((await other.api.post('/api/owners', { name: 'Farmer' })).status).toBe(201);
    const dup = await api.post('/api/owners', { name: 'Farmer' });
    expect(dup.status).toBe(409);
    // Whatever the case, Cyrillic too (SQLite folds ASCII only): the same person written another way.
    const ivanov = (await api.post('/api/owners', { name: 'Иванов И.И.' })).body.id;
    for (const name of ['ИВАНОВ И.И.', ' иванов и.и. ', 'FARMER']) expect((await api.post('/api/owners', { name })).status, name).toBe(409);
    expect((await api.put(`/api/owners/${ivanov}`, { name: 'ИВАНОВ И.И.' })).status).toBe(200);
    expect((await api.put(`/api/owners/${ivanov}`, { name: 'farmer' })).status).toBe(409);
    await api.del(`/api/owners/${ivanov}`);
    await api.post('/api/fields', { name: 'a', geometry: rect(10, 10), owner_id: id });
    await api.post('/api/fields', { name: 'b', geometry: rect(10.1, 10), owner_id: id });
    const list = await api.get('/api/owners');
    const fields = JSON.parse((await api.get('/api/fields')).text).features;
    const sum = fields.reduce((s: number, f: { properties: { area: number } }) => s + f.properties.area, 0);
    expect(list.body).toEqual([{ id, name: 'Farmer', fields_count: 2, total_area: Math.round(sum * 1e4) / 1e4 }]);
  });

  it('takes one of many spellings of a name sent at once, and one rename to it', async () => {
    const { api } = await registerCompany(baseUrl());
    // Each request alone finds the name free; the check and the write are one step per company.
    const spellings = ['Колос', 'КОЛОС', 'колос', ' Колос ', 'кОЛОС', 'КОЛОС ', 'Колос', 'колоС'];
    const created = await Promise.all(spellings.map((name) => api.post('/api/owners', { name })));
    expect(created.map((r) => r.status).sort()).toEqual([201, ...Array(spellings.length - 1).fill(409)]);
    const others = await Promise.all(['A', 'B', 'C', 'D'].map(async (name) => (await api.post('/api/owners', { name })).body.id as number));
    const renamed = await Promise.all(others.map((id, i) => api.put(`/api/owners/${id}`, { name: i % 2 ? 'Нива' : 'НИВА' })));
    expect(renamed.map((r) => r.status).sort()).toEqual([200, 409, 409, 409]);
    const names = (await api.get('/api/owners')).body.map((o: { name: string }) => o.name.trim().toLowerCase()).sort();
    // One Колос, one Нива (the owner renamed), and the three owners the other renames left alone.
    expect(names).toHaveLength(5);
    expect(names.filter((n: string) => n === 'колос' || n === 'нива')).toEqual(['колос', 'нива']);
  });

  it('renames, and deleting keeps the fields without an owner', async () => {
    const c = await createCompany(baseUrl());
    const id = (await c.as.operator.post('/api/owners', { name: 'Old' })).body.id;
    const f = (await c.as.operator.post('/api/fields', { name: 'x', geometry: rect(11, 11), owner_id: id })).body.id;
    expect((await c.as.operator.put(`/api/owners/${id}`, { name: 'New' })).body.owner).toEqual({ id, name: 'New' });
    expect((await c.as.operator.del(`/api/owners/${id}`)).status).toBe(403);
    const before = (await c.as.viewer.get(`/api/fields/${f}`)).body.updated_at;
    await new Promise((r) => setTimeout(r, 5));
    expect((await c.as.admin.del(`/api/owners/${id}`)).body).toEqual({ success: true });
    const after = (await c.as.viewer.get(`/api/fields/${f}`)).body;
    expect(after.owner).toBeNull();
    // The field changed: a client syncing by updated_at must see it.
    expect(Date.parse(after.updated_at)).toBeGreaterThan(Date.parse(before));
  });
});

describe('statistics', () => {
  it('sums area by status and by owner, agreeing with the field list', async () => {
    const { api } = await registerCompany(baseUrl());
    const o1 = (await api.post('/api/owners', { name: 'Big' })).body.id;
    const o2 = (await api.post('/api/owners', { name: 'Small' })).body.id;
    await api.post('/api/fields', { name: '1', geometry: rect(40, 50, 0.03), owner_id: o1, status: 'Собственность' });
    await api.post('/api/fields', { name: '2', geometry: rect(40.1, 50, 0.01), owner_id: o2, status: 'Аренда' });
    await api.post('/api/fields', { name: '3', geometry: rect(40.2, 50, 0.02), status: 'Аренда' });
    await api.post('/api/fields', { name: '4', geometry: rect(40.3, 50, 0.005) });
    const stats = (await api.get('/api/stats')).body;
    const f = JSON.parse((await api.get('/api/fields')).text).features.map((x: { properties: { area: number } }) => x.properties.area);
    const r = (n: number) => Math.round(n * 1e4) / 1e4;
    expect(stats).toEqual({
      success: true, total_fields: 4, total_area: r(f[0] + f[1] + f[2] + f[3]), area_unit: 'ha',
      by_status: { 'Собственность': f[0], 'Аренда': r(f[1] + f[2]), '': f[3] },
      by_owner: [{ name: 'Big', area: f[0] }, { name: null, area: r(f[2] + f[3]) }, { name: 'Small', area: f[1] }],
      // No scans: no field has a crop known this year.
      crop_year: new Date().getUTCFullYear(),
      by_crop: [{ crop: null, area: r(f[0] + f[1] + f[2] + f[3]) }],
    });
    const bad = await api.get('/api/stats?year=last');
    expect(bad.status).toBe(422);
    expect(bad.body.error).toContain('year');
  });
});
