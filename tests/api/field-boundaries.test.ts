// Merging fields into one and splitting one along a line: register parcels made into the fields farmed.
import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import { boundaryFingerprint } from '@/lib/scans/boundary';
import { tenantDb } from '@/lib/db/tenant';
import { assertFieldsUnchanged } from '@/lib/fields/fields';
import { saveScan } from '@/lib/scans/scans';
import { geometryAreaHa } from '@/lib/geo/area';
import { createCompany, registerCompany } from '../helpers/company';
import { baseUrl, directDb, retried } from '../helpers/context';
import { missingShared, sharedPath } from '../helpers/shared-data';
import { waitForTask } from '../helpers/tasks';

const rect = (lon: number, lat: number, dLon = 0.01, dLat = 0.01) => ({
  type: 'Polygon' as const,
  coordinates: [[[lon, lat], [lon + dLon, lat], [lon + dLon, lat + dLat], [lon, lat + dLat], [lon, lat]]],
});
const ha = (g: Parameters<typeof geometryAreaHa>[0]) => Math.round(geometryAreaHa(g) * 1e4) / 1e4;

const NAIP = ['raster', 'naip', 'm_4709963_se_14_1_20190904.tif'] as const;
const missingNaip = missingShared(...NAIP);
if (missingNaip) console.warn(`skipping the merge test with a scan: ${missingNaip}`);

describe('merging fields', () => {
  it('joins adjacent parcels into the first field, with one boundary, their area and the others remembered', async () => {
    const { api } = await registerCompany(baseUrl(), { language: 'en' });
    const owner = (await api.post('/api/owners', { name: 'Agro' })).body.id as number;
    const west = rect(21, 48);
    const east = rect(21.01, 48);
    const a = (await api.post('/api/fields', { name: 'West', geometry: west, owner_id: owner, status: 'Аренда', parcel_number: '1:2' })).body.id as number;
    const b = (await api.post('/api/fields', { name: 'East', geometry: east, parcel_number: '1:3' })).body.id as number;
    const statsBefore = (await api.get('/api/stats')).body;

    const res = await api.post('/api/fields/merge', { ids: [a, b] });
    expect(res.status, res.text).toBe(200);
    const field = res.body.field;
    // The first field stays, with its name, owner, status and parcel number.
    expect(field).toMatchObject({ id: a, name: 'West', owner: { id: owner, name: 'Agro' }, status: 'Аренда', parcel_number: '1:2' });
    // The shared edge is gone: one ring around both.
    expect(field.geometry.type).toBe('Polygon');
    expect(field.geometry.coordinates).toHaveLength(1);
    expect(field.area).toBeCloseTo(ha(west) + ha(east), 3);
    expect(field.attributes.merged_from).toEqual([{ id: b, name: 'East', parcel_number: '1:3', area: ha(east), geometry: east, attributes: {} }]);
    expect(await api.get(`/api/fields/${a}`).then((r) => r.body)).toEqual(field);

    // The other is gone from everything.
    expect((await api.get(`/api/fields/${b}`)).status).toBe(404);
    expect(JSON.parse((await api.get('/api/fields')).text).features.map((f: { id: number }) => f.id)).toEqual([a]);
    const stats = (await api.get('/api/stats')).body;
    expect(stats.total_fields).toBe(1);
    expect(stats.total_area).toBeCloseTo(statsBefore.total_area, 3);

    // Merged again (with a new name), the list of fields taken in grows.
    const c = (await api.post('/api/fields', { name: 'North', geometry: rect(21, 48.01, 0.02) })).body.id as number;
    const again = await api.post('/api/fields/merge', { ids: [a, c], name: 'Big field' });
    expect(again.status, again.text).toBe(200);
    expect(again.body.field.name).toBe('Big field');
    expect(again.body.field.attributes.merged_from.map((m: { name: string }) => m.name)).toEqual(['East', 'North']);
    expect(again.body.field.geometry.coordinates).toHaveLength(1);
  });

  it('keeps fields apart as parts of one field, and keeps holes', async () => {
    const { api } = await registerCompany(baseUrl());
    const withHole = {
      type: 'Polygon' as const,
      coordinates: [rect(30, 50).coordinates[0]!, [[30.004, 50.004], [30.004, 50.006], [30.006, 50.006], [30.006, 50.004], [30.004, 50.004]]],
    };
    const a = (await api.post('/api/fields', { name: 'Near', geometry: withHole })).body.id as number;
    const b = (await api.post('/api/fields', { name: 'Across the road', geometry: rect(30.0102, 50) })).body.id as number;
    const res = await api.post('/api/fields/merge', { ids: [a, b] });
    expect(res.status, res.text).toBe(200);
    expect(res.body.field.geometry.type).toBe('MultiPolygon');
    expect(res.body.field.geometry.coordinates).toHaveLength(2);
    expect(res.body.field.area).toBeCloseTo(ha(withHole) + ha(rect(30.0102, 50)), 3);
  });

  it('refuses what it cannot do, and changes nothing', async () => {
    const c = await createCompany(baseUrl());
    const api = c.as.admin;
    const a = (await api.post('/api/fields', { name: 'A', geometry: rect(40, 40) })).body.id as number;
    const b = (await api.post('/api/fields', { name: 'B', geometry: rect(40.01, 40) })).body.id as number;
    const other = await createCompany(baseUrl());
    const foreign = (await other.as.owner.post('/api/fields', { name: 'Theirs', geometry: rect(40.02, 40) })).body.id as number;

    // Another company's field among them: 404, and neither field changes.
    expect((await api.post('/api/fields/merge', { ids: [a, foreign] })).status).toBe(404);
    expect((await other.as.owner.get(`/api/fields/${foreign}`)).status).toBe(200);
    expect((await api.get(`/api/fields/${a}`)).body.geometry).toEqual(rect(40, 40));
    // Merging takes fields away: below admin, 403.
    expect((await c.as.operator.post('/api/fields/merge', { ids: [a, b] })).status).toBe(403);

    for (const [body, error] of [
      [{ ids: [a] }, 'ids: at least two different fields'],
      [{ ids: [a, a] }, 'ids: at least two different fields'],
      [{ ids: Array.from({ length: 101 }, (_, i) => i + 1) }, 'ids: at most 100'],
      [{ ids: [a, b], name: ' ' }, 'name: at least 1 character'],
    ] as const) {
      const bad = await c.as.admin.post('/api/fields/merge', body, { 'Accept-Language': 'en' });
      expect(bad.status, JSON.stringify(body)).toBe(422);
      expect(bad.body.error).toContain(error);
    }
    expect((await api.get(`/api/fields/${b}`)).status).toBe(200);
  });

  it.skipIf(!!missingNaip)('the field kept keeps its scans; a field taken in may have none', async () => {
    const { api } = await registerCompany(baseUrl(), { language: 'en' });
    const scanned = (await api.post('/api/fields', { name: 'Scanned', geometry: rect(-99.17, 47.01, 0.03, 0.02) })).body.id as number;
    const plain = (await api.post('/api/fields', { name: 'Plain', geometry: rect(-99.14, 47.01, 0.01, 0.02) })).body.id as number;
    const upload = await api.upload('/upload', { raster_file: { file: sharedPath(...NAIP), name: 'naip.tif', type: 'image/tiff' }, field_id: String(scanned), zones: '3' });
    expect(upload.status, upload.text).toBe(202);
    const task = await waitForTask(api, upload.body.task_id);
    expect(task.status).toBe('completed');

    // Taken into another field, its scan would describe a boundary that no longer exists.
    const refused = await api.post('/api/fields/merge', { ids: [plain, scanned] });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('Only the field kept may have scans or zones, so that none is lost; these others have some too: Scanned.');
    expect((await api.get(`/api/fields/${plain}`)).status).toBe(200);

    const res = await api.post('/api/fields/merge', { ids: [scanned, plain] });
    expect(res.status, res.text).toBe(200);
    const scans = (await api.get(`/api/fields/${scanned}/scans`)).body;
    expect(scans.scans.map((s: { id: number }) => s.id)).toEqual([task.result.scan_id]);
    expect((await api.get(`/api/scans/${task.result.scan_id}`)).status).toBe(200);
  });
});

describe('splitting a field', () => {
  it('cuts a field along a line: the largest part stays the field, the others become fields like it', async () => {
    const { api } = await registerCompany(baseUrl(), { language: 'en' });
    const owner = (await api.post('/api/owners', { name: 'Agro' })).body.id as number;
    const geometry = rect(25, 49, 0.02, 0.01);
    const id = (await api.post('/api/fields', { name: 'Long field', geometry, owner_id: owner, status: 'Аренда', parcel_number: '7:1', area: 17.5 })).body.id as number;
    const whole = ha(geometry);

    // A bent line drawn past both edges: west of it a quarter of the field.
    const line = { type: 'LineString', coordinates: [[25.005, 48.99], [25.005, 49.005], [25.005, 49.005], [25.005, 49.02, 120]] };
    const res = await api.post(`/api/fields/${id}/split`, { line });
    expect(res.status, res.text).toBe(200);
    const { field, created } = res.body;
    expect(field).toMatchObject({ id, name: 'Long field', owner: { id: owner, name: 'Agro' }, status: 'Аренда', parcel_number: '7:1' });
    // The cadastral area given is replaced by the part's own.
    expect(field.area).toBeCloseTo(whole * 0.75, 2);
    expect(created).toEqual([{ id: expect.any(Number), name: 'Long field (2)', area: expect.closeTo(whole * 0.25, 2) }]);
    expect(Math.abs(field.area + created[0].area - whole)).toBeLessThan(whole * 1e-5);

    const part = (await api.get(`/api/fields/${created[0].id}`)).body;
    expect(part).toMatchObject({ owner: { id: owner }, status: 'Аренда', parcel_number: '7:1', attributes: { split_from: { id, name: 'Long field' } } });
    // Merged again, the parts are the field as it was: they share the line as an edge.
    // Cut again, a part takes the register's attributes, not what the field was merged from.
    const merged = await api.post('/api/fields/merge', { ids: [id, created[0].id] });
    expect(merged.body.field.geometry.coordinates).toHaveLength(1);
    expect(Math.abs(merged.body.field.area - whole)).toBeLessThan(whole * 1e-5);
    const again = await api.post(`/api/fields/${id}/split`, { line });
    expect(again.status, again.text).toBe(200);
    expect(again.body.field.attributes.merged_from).toHaveLength(1);
    expect((await api.get(`/api/fields/${again.body.created[0].id}`)).body.attributes).toEqual({ split_from: { id, name: 'Long field' } });
  });

  it('refuses a line that does not cut the field, and changes nothing', async () => {
    const c = await createCompany(baseUrl());
    const geometry = rect(26, 49);
    const id = (await c.as.operator.post('/api/fields', { name: 'F', geometry })).body.id as number;
    const cases = [
      [{ type: 'LineString', coordinates: [[27, 49], [27, 50]] }, 422, 'The line must cross the field from one edge to another, so that it divides the field into parts.'],
      [{ type: 'LineString', coordinates: [[26.002, 48.99], [26.002, 49.02], [26.008, 49.005], [25.99, 49.005]] }, 422, 'The cutting line crosses itself.'],
      [{ type: 'LineString', coordinates: [[26.005, 49], [26.005, 49]] }, 422, 'Invalid data: line.coordinates: at least two different points'],
      [{ type: 'Point', coordinates: [26.005, 49] }, 422, 'Invalid data: line.type'],
      [{ type: 'LineString', coordinates: [[26.005, 95], [26.005, 49]] }, 422, 'Invalid data: line.coordinates.0.1: at most 90'],
    ] as const;
    for (const [line, status, error] of cases) {
      const res = await c.as.operator.post(`/api/fields/${id}/split`, { line });
      expect(res.status, JSON.stringify(line)).toBe(status);
      expect(res.body.error).toContain(error);
    }
    expect((await c.as.operator.get(`/api/fields/${id}`)).body.geometry).toEqual(geometry);
    expect((await c.as.viewer.post(`/api/fields/${id}/split`, { line: cases[0][0] })).status).toBe(403);
    const other = await createCompany(baseUrl());
    expect((await other.as.owner.post(`/api/fields/${id}/split`, { line: { type: 'LineString', coordinates: [[26.005, 48.99], [26.005, 49.02]] } })).status).toBe(404);
    expect(JSON.parse((await c.as.viewer.get('/api/fields')).text).features).toHaveLength(1);
  });
});

describe('taking a merged parcel back out', () => {
  it('makes it a field again, with its old id and register data, and the field keeps the rest', async () => {
    const c = await createCompany(baseUrl());
    const api = c.as.operator;
    const owner = (await api.post('/api/owners', { name: 'Lessee' })).body.id as number;
    const parcels = [rect(22, 48), rect(22.01, 48), rect(22.02, 48)];
    const [a, b, d] = (await Promise.all(
      parcels.map((geometry, i) => api.post('/api/fields', { name: `P${i + 1}`, geometry, parcel_number: `7:${i + 1}`, ...(i === 1 ? { area: 1.2345 } : {}) })),
    )).map((r) => r.body.id as number) as [number, number, number];
    await api.put(`/api/fields/${a}`, { owner_id: owner, status: 'Аренда' });
    expect((await c.as.admin.post('/api/fields/merge', { ids: [a, b, d], name: 'Whole' })).status).toBe(200);

    const res = await api.post(`/api/fields/${a}/unmerge`, { merged_id: b });
    expect(res.status, res.text).toBe(200);
    // Its old id, name, parcel number and area (a cadastral one, given at its creation), the field's owner and status.
    expect(res.body.restored).toEqual({ id: b, name: 'P2', area: 1.2345 });
    const restored = (await api.get(`/api/fields/${b}`)).body;
    expect(restored).toMatchObject({ name: 'P2', parcel_number: '7:2', area: 1.2345, owner: { id: owner, name: 'Lessee' }, status: 'Аренда', attributes: {} });
    expect(ha(restored.geometry)).toBeCloseTo(ha(parcels[1]!), 4);
    // The middle parcel out: the field is its two ends, apart, and remembers only the other parcel.
    expect(res.body.field).toMatchObject({ id: a, name: 'Whole' });
    expect(res.body.field.geometry.type).toBe('MultiPolygon');
    expect(res.body.field.area).toBeCloseTo(ha(parcels[0]!) + ha(parcels[2]!), 3);
    expect(res.body.field.attributes.merged_from.map((m: { id: number }) => m.id)).toEqual([d]);
    // Once more: nothing remembered is left.
    const last = await api.post(`/api/fields/${a}/unmerge`, { merged_id: d });
    expect(last.status, last.text).toBe(200);
    expect(last.body.field.attributes).toEqual({});
    expect(last.body.field.area).toBeCloseTo(ha(parcels[0]!), 3);
    expect(JSON.parse((await api.get('/api/fields')).text).features.map((f: { id: number }) => f.id).sort()).toEqual([a, b, d].sort());
  });

  it('comes back only as far as it lies within the field now, measured again', async () => {
    const { api } = await registerCompany(baseUrl());
    const a = (await api.post('/api/fields', { name: 'A', geometry: rect(24, 48) })).body.id as number;
    const b = (await api.post('/api/fields', { name: 'B', geometry: rect(24.01, 48), area: 9.99 })).body.id as number;
    expect((await api.post('/api/fields/merge', { ids: [a, b] })).status).toBe(200);
    // Redrawn: the eastern half of B is no longer farmed.
    expect((await api.put(`/api/fields/${a}`, { geometry: rect(24, 48, 0.015) })).status).toBe(200);
    const res = await api.post(`/api/fields/${a}/unmerge`, { merged_id: b });
    expect(res.status, res.text).toBe(200);
    expect(res.body.restored.area).toBeCloseTo(ha(rect(24.01, 48, 0.005)), 3);
    expect(res.body.field.area).toBeCloseTo(ha(rect(24, 48)), 3);
  });

  it('refuses what it cannot do, and changes nothing', async () => {
    const c = await createCompany(baseUrl());
    const other = await createCompany(baseUrl());
    const api = c.as.operator;
    const a = (await api.post('/api/fields', { name: 'A', geometry: rect(23, 48) })).body.id as number;
    const b = (await api.post('/api/fields', { name: 'B', geometry: rect(23.01, 48) })).body.id as number;
    expect((await c.as.admin.post('/api/fields/merge', { ids: [a, b] })).status).toBe(200);
    const before = (await api.get(`/api/fields/${a}`)).body;

    // Not merged into this field, another company's field, no body.
    expect((await api.post(`/api/fields/${a}/unmerge`, { merged_id: a })).status).toBe(404);
    expect((await other.as.owner.post(`/api/fields/${a}/unmerge`, { merged_id: b })).status).toBe(404);
    expect((await api.post(`/api/fields/${a}/unmerge`, {})).status).toBe(422);
    expect((await c.as.viewer.post(`/api/fields/${a}/unmerge`, { merged_id: b })).status).toBe(403);
    // Redrawn to the first parcel alone, the field no longer holds the second.
    expect((await api.put(`/api/fields/${a}`, { geometry: rect(23, 48) })).status).toBe(200);
    const outside = await api.post(`/api/fields/${a}/unmerge`, { merged_id: b });
    expect(outside.status).toBe(422);
    expect(outside.body.error).toBe('The parcel “B” lies outside the field’s present boundary: there is nothing to take out');
    // Redrawn to the second alone, taking it out would leave nothing.
    expect((await api.put(`/api/fields/${a}`, { geometry: rect(23.01, 48) })).status).toBe(200);
    const whole = await api.post(`/api/fields/${a}/unmerge`, { merged_id: b });
    expect(whole.status).toBe(422);
    expect(whole.body.error).toBe('The parcel “B” covers the whole field: nothing of the field would be left');
    const after = (await api.get(`/api/fields/${a}`)).body;
    expect(after.attributes).toEqual(before.attributes);
    expect((await api.get(`/api/fields/${b}`)).status).toBe(404);
  });
});

describe.skipIf(!!missingNaip)('a scanned field split', () => {
  it('exports its prescription zones within the boundary it has now, not the one they were made for', async () => {
    const { api } = await registerCompany(baseUrl(), { language: 'en' });
    const id = (await api.post('/api/fields', { name: 'Scanned', geometry: rect(-99.17, 47.01, 0.03, 0.02) })).body.id as number;
    const upload = await api.upload('/upload', { raster_file: { file: sharedPath(...NAIP), name: 'naip.tif', type: 'image/tiff' }, field_id: String(id), zones: '3' });
    expect(upload.status, upload.text).toBe(202);
    const task = await waitForTask(api, upload.body.task_id);
    expect(task.status).toBe('completed');
    // The scan knows the boundary it was made for, so an export of the unchanged field need not clip.
    const scan = (await api.get(`/api/scans/${task.result.scan_id}`)).body.scan;
    expect(scan.details.boundary).toBe(boundaryFingerprint((await api.get(`/api/fields/${id}`)).body.geometry));
    /** The longitudes of the task data's points: the boundary's and the treatment zones'. */
    const eastings = async () => {
      const res = await fetch(`${baseUrl()}/api/field/export/isoxml/${id}?rates=1:100,2:150,3:200`, { headers: { cookie: `session_token=${api.cookie}` } });
      expect(res.status).toBe(200);
      const xml = await (await JSZip.loadAsync(Buffer.from(await res.arrayBuffer()))).file(/TASKDATA\.XML$/i)[0]!.async('string');
      const zones = [...xml.matchAll(/<TZN [^>]*>[\s\S]*?<\/TZN>/g)].map((m) => m[0]).join('');
      return [...zones.matchAll(/<PNT [^>]*D="(-?[\d.]+)"/g)].map((m) => Number(m[1]));
    };
    const before = await eastings();
    expect(Math.min(...before)).toBeLessThan(-99.165);

    // The western third cut off: the kept field's zones stop at the cut.
    const split = await api.post(`/api/fields/${id}/split`, { line: { type: 'LineString', coordinates: [[-99.16, 47.0], [-99.16, 47.04]] } });
    expect(split.status, split.text).toBe(200);
    const after = await eastings();
    expect(after.length).toBeGreaterThan(0);
    expect(Math.min(...after)).toBeGreaterThanOrEqual(-99.16 - 1e-7);
  });
});

describe('work done outside the write lock', () => {
  it('is written only if the fields are still as they were read', async () => {
    const { api, user } = await registerCompany(baseUrl());
    const id = (await api.post('/api/fields', { name: 'Read', geometry: rect(27, 49) })).body.id as number;
    const db = tenantDb(directDb(), user.company.id);
    const read = await db.field.findUniqueOrThrow({ where: { id }, select: { id: true, updatedAt: true } });
    await expect(assertFieldsUnchanged(db, [read])).resolves.toBeUndefined();
    // Renamed meanwhile (a merge or a cut computed on the old row must not be written).
    await new Promise((r) => setTimeout(r, 5));
    expect((await api.put(`/api/fields/${id}`, { name: 'Renamed' })).status).toBe(200);
    await expect(assertFieldsUnchanged(db, [read])).rejects.toMatchObject({ kind: 'conflict', key: 'fields_changed_meanwhile' });
    // Gone meanwhile.
    const fresh = await db.field.findUniqueOrThrow({ where: { id }, select: { id: true, updatedAt: true } });
    expect((await api.del(`/api/fields/${id}`)).status).toBe(200);
    await expect(assertFieldsUnchanged(db, [fresh])).rejects.toMatchObject({ key: 'fields_changed_meanwhile' });
  });
});

describe('a large field', () => {
  it('is cut in a worker thread, with the same answers and refusals as a small one', async () => {
    const { api } = await registerCompany(baseUrl(), { language: 'en' });
    // 40,000 vertices (over the 30,000 cut in the request's own thread): a wobbly disc of about 3 km.
    const n = 40_000;
    const ring = Array.from({ length: n }, (_, i) => {
      const a = (i / n) * 2 * Math.PI;
      const r = 0.01 * (1 + 0.05 * Math.sin(9 * a));
      return [28 + r * Math.cos(a) * 1.5, 50 + r * Math.sin(a)];
    });
    const geometry = { type: 'Polygon' as const, coordinates: [[...ring, ring[0]!]] };
    const id = (await api.post('/api/fields', { name: 'Big', geometry })).body.id as number;
    const whole = (await api.get(`/api/fields/${id}`)).body.area as number;

    const missed = await api.post(`/api/fields/${id}/split`, { line: { type: 'LineString', coordinates: [[29, 49], [29, 51]] } });
    expect(missed.status).toBe(422);
    expect(missed.body.error).toBe('The line must cross the field from one edge to another, so that it divides the field into parts.');

    const res = await api.post(`/api/fields/${id}/split`, { line: { type: 'LineString', coordinates: [[28.005, 49.98], [28.005, 50.02]] } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.created).toHaveLength(1);
    expect(Math.abs(res.body.field.area + res.body.created[0].area - whole)).toBeLessThan(whole * 1e-5);
    expect(res.body.field.area).toBeGreaterThan(res.body.created[0].area);
  });
});

describe('a scan made before scans recorded their boundary', () => {
  it('is taken to have been made for the boundary the field had until it was redrawn', async () => {
    const { api, user } = await registerCompany(baseUrl(), { language: 'en' });
    const before = rect(31, 49);
    const id = (await api.post('/api/fields', { name: 'Old scan', geometry: before })).body.id as number;
    const scan = await retried(() => saveScan(directDb(), user.company.id, id, {
      source: 'raster', fileName: 'old.tif', indexName: 'ndvi', capturedAt: null, stats: { mean: 0.5, std: 0.1, median: 0.5 },
      histogram: { min: 0, max: 1, counts: [1] }, previewPath: '/nonexistent/preview.png', previewBounds: [[49, 31], [49.01, 31.01]],
    }, [{ classIndex: 1, name: '1', min: 0, max: 1, mean: 0.5, areaHa: ha(before), color: '#00ff00', geometry: before }]));
    expect((await api.get(`/api/scans/${scan.id}`)).body.scan.details.boundary).toBeUndefined();

    expect((await api.put(`/api/fields/${id}`, { geometry: rect(31.005, 49, 0.005) })).status).toBe(200);
    expect((await api.get(`/api/scans/${scan.id}`)).body.scan.details.boundary).toBe(boundaryFingerprint(before));
    // Redrawn again, it still names the boundary it was made for.
    expect((await api.put(`/api/fields/${id}`, { geometry: rect(31.006, 49, 0.004) })).status).toBe(200);
    expect((await api.get(`/api/scans/${scan.id}`)).body.scan.details.boundary).toBe(boundaryFingerprint(before));
    // A rename leaves it alone.
    expect((await api.put(`/api/fields/${id}`, { name: 'Renamed' })).status).toBe(200);
    expect((await api.get(`/api/scans/${scan.id}`)).body.scan.details.boundary).toBe(boundaryFingerprint(before));
  });
});
