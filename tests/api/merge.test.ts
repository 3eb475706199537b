// POST /api/fields/merge: fields farmed as one become the first of them, with the union of their boundaries.
import { describe, expect, it } from 'vitest';
import { geometryAreaHa } from '@/lib/geo/area';
import { createCompany, registerCompany } from '../helpers/company';
import { baseUrl } from '../helpers/context';
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
    expect(field.attributes.merged_from).toEqual([{ id: b, name: 'East', parcel_number: '1:3', area: ha(east), attributes: {} }]);
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
      [{ ids: [a, b], name: ' ' }, 'name: at least 1 characters'],
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
    expect(refused.body.error).toBe('Only the field kept (the first) may have scans or zones, so that none is lost; these others have some too: Scanned.');
    expect((await api.get(`/api/fields/${plain}`)).status).toBe(200);

    const res = await api.post('/api/fields/merge', { ids: [scanned, plain] });
    expect(res.status, res.text).toBe(200);
    const scans = (await api.get(`/api/fields/${scanned}/scans`)).body;
    expect(scans.scans.map((s: { id: number }) => s.id)).toEqual([task.result.scan_id]);
    expect((await api.get(`/api/scans/${task.result.scan_id}`)).status).toBe(200);
  });
});
