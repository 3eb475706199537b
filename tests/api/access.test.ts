// Walks every route of the permission table for each of the five roles, for a user of another
// company, and with no session: 2xx when the role is high enough, 403 below it, 401 without a session,
// 404 for another company's ids. A route missing here fails the first test.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROUTES, type RouteKey } from '@/lib/auth/permissions';
import { ROLES, type Role, hasRole } from '@/lib/auth/roles';
import { Api, unique } from '../helpers/api';
import { PASSWORD, type TestCompany, createCompany } from '../helpers/company';
import { baseUrl, directDb, retried } from '../helpers/context';
import { saveScan } from '@/lib/scans/scans';
import { tiffBytes } from '../helpers/tiff';

const rect = (lon: number, lat: number) => ({ type: 'Polygon', coordinates: [[[lon, lat], [lon + 0.01, lat], [lon + 0.01, lat + 0.01], [lon, lat + 0.01], [lon, lat]]] });

interface Probe {
  /** Path with {id} filled by `id` (made fresh for every call, so destructive calls do not interfere). */
  path: string;
  /** The JSON body; it is given `id` too, for routes that name their objects in it. */
  body?: (c: TestCompany, id?: number | string) => unknown;
  /** Creates the object the path names, as the company's owner; returns its id. */
  id?: (c: TestCompany) => Promise<number | string>;
  /** Routes whose path holds no id of a company's object, or that act on the caller only. */
  noForeignId?: boolean;
  multipart?: boolean;
  /** The status an allowed role gets when not 2xx (the probe's input is refused after the permission check). */
  allowedStatus?: number;
}

const newField = async (c: TestCompany) => (await c.as.owner.post('/api/fields', { name: unique('f'), geometry: rect(10, 10) })).body.id as number;
const newOwner = async (c: TestCompany) => (await c.as.owner.post('/api/owners', { name: unique('o') })).body.id as number;
/** Two fields merged into the first, whose id it answers; the second's is kept in `mergedIds`. */
const mergedIds = new Map<number, number>();
async function mergedPair(c: TestCompany): Promise<number> {
  const a = await newField(c);
  const b = (await c.as.owner.post('/api/fields', { name: unique('m'), geometry: rect(10.01, 10) })).body.id as number;
  expect((await c.as.owner.post('/api/fields/merge', { ids: [a, b] })).status).toBe(200);
  mergedIds.set(a, b);
  return a;
}
const newUser = async (c: TestCompany) =>
  (await c.as.owner.post('/api/auth/company/users', { email: `${unique('m')}@example.test`.toLowerCase(), password: PASSWORD, role: 'viewer' })).body.id as number;

// Task and scan rows are made directly (their real creation runs background processing, tested elsewhere).
async function newTask(c: TestCompany, kind: 'raster_zones' | 'drone' = 'raster_zones'): Promise<string> {
  const db = directDb();
  const id = randomUUID();
  await retried(() => db.task.create({ data: { id, companyId: c.id, kind, status: 'completed', resultJson: '{}' } }));
  await db.$disconnect();
  return id;
}
const newDroneTask = (c: TestCompany) => newTask(c, 'drone');
async function newScan(c: TestCompany, source: 'raster' | 'drone' = 'raster'): Promise<number> {
  const fieldId = await newField(c);
  const dir = mkdtempSync(join(tmpdir(), 'scan-'));
  const previewPath = join(dir, 'preview.png');
  const pixels = sharp({ create: { width: 2, height: 2, channels: 3, background: '#00ff00' } });
  writeFileSync(previewPath, await pixels.clone().png().toBuffer());
  // A drone scan's GeoTIFFs lie beside its preview (georeferenced, so that its map tiles are drawn).
  if (source === 'drone') for (const name of ['mosaic.tif', 'vari.tif']) writeFileSync(join(dir, name), tiffBytes({ width: 2, height: 2, georef: { epsg: 4326, origin: [10, 10.01], pixel: 0.005 } }));
  const db = directDb();
  const scan = await retried(() => saveScan(db, c.id, fieldId, {
    source, fileName: 'x.tif', indexName: source === 'drone' ? 'vari' : 'ndvi', capturedAt: null, stats: { mean: 0.5, std: 0.1, median: 0.5 },
    histogram: { min: 0, max: 1, counts: [1] }, previewPath, previewBounds: [[10, 10], [10.01, 10.01]],
  }, []));
  await db.$disconnect();
  return scan.id;
}

const newDroneScan = (c: TestCompany) => newScan(c, 'drone');

const PROBES: Partial<Record<RouteKey, Probe>> = {
  'POST /api/auth/logout': { path: '/api/auth/logout', noForeignId: true },
  'GET /api/auth/profile': { path: '/api/auth/profile', noForeignId: true },
  'PUT /api/auth/profile': { path: '/api/auth/profile', body: () => ({ first_name: 'Probe' }), noForeignId: true },
  'GET /api/auth/company': { path: '/api/auth/company', noForeignId: true },
  'PUT /api/auth/company': { path: '/api/auth/company', body: () => ({ settings: { probe: true } }), noForeignId: true },
  // Deleting a company is checked in auth.test.ts (it ends the company); here only who may try.
  'DELETE /api/auth/company': { path: '/api/auth/company', body: () => ({ password: 'wrong-password' }), noForeignId: true },
  'GET /api/auth/company/users': { path: '/api/auth/company/users', noForeignId: true },
  'POST /api/auth/company/users': { path: '/api/auth/company/users', body: () => ({ email: `${unique('n')}@example.test`.toLowerCase(), password: PASSWORD, role: 'viewer' }), noForeignId: true },
  'PUT /api/auth/company/users/{id}': { path: '/api/auth/company/users/{id}', id: newUser, body: () => ({ first_name: 'X' }) },
  'DELETE /api/auth/company/users/{id}': { path: '/api/auth/company/users/{id}', id: newUser },
  'POST /api/diagnostics/upload': { path: '/api/diagnostics/upload', multipart: true, noForeignId: true },
  'GET /api/fields': { path: '/api/fields', noForeignId: true },
  'POST /api/fields': { path: '/api/fields', body: () => ({ name: unique('p'), geometry: rect(12, 12) }), noForeignId: true },
  'GET /api/fields/{id}': { path: '/api/fields/{id}', id: newField },
  'PUT /api/fields/{id}': { path: '/api/fields/{id}', id: newField, body: () => ({ name: unique('r') }) },
  'PATCH /api/fields': { path: '/api/fields', id: newField, body: (_c, id) => ({ ids: [id], status: 'Аренда' }) },
  // Two fields, named in the body: another company's pair is 404 as a whole.
  'POST /api/fields/{id}/split': { path: '/api/fields/{id}/split', id: newField, body: () => ({ line: { type: 'LineString', coordinates: [[10.004, 9.99], [10.004, 10.02]] } }) },
  'POST /api/fields/merge': { path: '/api/fields/merge', id: async (c) => `${await newField(c)},${await newField(c)}`, body: (_c, ids) => ({ ids: String(ids).split(',').map(Number) }) },
  // A field with a parcel merged into it; the parcel's id in the body.
  'POST /api/fields/{id}/unmerge': { path: '/api/fields/{id}/unmerge', id: mergedPair, body: (_c, id) => ({ merged_id: mergedIds.get(Number(id)) }) },
  'DELETE /api/fields/{id}': { path: '/api/fields/{id}', id: newField },
  'GET /api/owners': { path: '/api/owners', noForeignId: true },
  'POST /api/owners': { path: '/api/owners', body: () => ({ name: unique('own') }), noForeignId: true },
  'PUT /api/owners/{id}': { path: '/api/owners/{id}', id: newOwner, body: () => ({ name: unique('ren') }) },
  'DELETE /api/owners/{id}': { path: '/api/owners/{id}', id: newOwner },
  'GET /api/stats': { path: '/api/stats', noForeignId: true },
  // Not a TIFF: refused (415) only after the permission check.
  'POST /upload': { path: '/upload', multipart: true, noForeignId: true, allowedStatus: 415 },
  'GET /api/tasks': { path: '/api/tasks', noForeignId: true },
  'GET /api/tasks/{task_id}': { path: '/api/tasks/{id}', id: (c) => newTask(c) },
  'GET /api/fields/{id}/scans': { path: '/api/fields/{id}/scans', id: newField },
  'GET /api/scans/{id}': { path: '/api/scans/{id}', id: newScan },
  'GET /api/scans/{id}/preview.png': { path: '/api/scans/{id}/preview.png', id: newScan },
  'GET /api/scans/{id}/tiles/{layer}/{z}/{x}/{y}': { path: '/api/scans/{id}/tiles/index/0/0/0.png', id: newDroneScan },
  'PUT /api/scans/{id}': { path: '/api/scans/{id}', id: newScan, body: () => ({ crop_type: 'barley' }) },
  'DELETE /api/scans/{id}': { path: '/api/scans/{id}', id: newScan },
  // The probe's scan keeps no raster: refused (409) only after the permission check.
  'POST /api/scans/{id}/zones': { path: '/api/scans/{id}/zones', id: newScan, body: () => ({ zones: 3 }), allowedStatus: 409 },
  'GET /api/field/export/kmz/{id}': { path: '/api/field/export/kmz/{id}', id: newField },
  'GET /api/field/export/kmz/all': { path: '/api/field/export/kmz/all', noForeignId: true },
  'GET /api/field/export/kmz/{id}/preview': { path: '/api/field/export/kmz/{id}/preview', id: newField },
  'GET /api/field/export/isoxml/{id}': { path: '/api/field/export/isoxml/{id}', id: newField },
  'GET /api/scan/{scan_id}/export/isoxml': { path: '/api/scan/{id}/export/isoxml', id: newScan },
  'GET /api/field/export/pdf/{id}': { path: '/api/field/export/pdf/{id}', id: newField },
  'GET /api/scan/{scan_id}/export/pdf': { path: '/api/scan/{id}/export/pdf', id: newScan },
  'GET /api/scan/{scan_id}/export/orthomosaic': { path: '/api/scan/{id}/export/orthomosaic', id: newDroneScan },
  'GET /api/scan/{scan_id}/export/index': { path: '/api/scan/{id}/export/index', id: newDroneScan },
  // No `drone_images` part: refused (422) only after the permission check.
  'POST /api/drone/upload': { path: '/api/drone/upload', multipart: true, noForeignId: true, allowedStatus: 422 },
  'GET /api/drone/orthomosaic/status/{task_id}': { path: '/api/drone/orthomosaic/status/{id}', id: newDroneTask },
  'GET /api/scan/{scan_id}/classify': { path: '/api/scan/{id}/classify', id: newScan },
};

const SECRET_COLUMNS = /password_?(hash|salt)/i;

const PUBLIC_ROUTES = Object.entries(ROUTES).filter(([, a]) => a === 'public').map(([k]) => k);

async function call(api: Api, key: RouteKey, probe: Probe, c: TestCompany, id?: number | string) {
  const method = key.split(' ')[0]!;
  const path = probe.path.replace('{id}', String(id ?? 0));
  if (probe.multipart) {
    const form = new FormData();
    form.append('file', new Blob(['hello']), 'a.txt');
    form.append('raster_file', new Blob(['not a tiff']), 'a.tif');
    return api.request(method, path, form);
  }
  return api.request(method, path, probe.body?.(c, id));
}

describe('access matrix', () => {
  let company: TestCompany;
  let stranger: TestCompany;
  beforeAll(async () => {
    company = await createCompany(baseUrl());
    stranger = await createCompany(baseUrl());
  });

  it('public routes never answer password hashes or salts either', async () => {
    const api = new Api(baseUrl());
    const email = `${unique('pub')}@example.test`.toLowerCase();
    const texts = [
      (await api.post('/api/auth/register', { email, password: PASSWORD, company_name: unique('Pub') })).text,
      (await api.post('/api/auth/login', { email, password: PASSWORD })).text,
      (await api.get('/api/health')).text,
    ];
    expect(PUBLIC_ROUTES.sort()).toEqual(['GET /api/health', 'POST /api/auth/login', 'POST /api/auth/register']);
    for (const t of texts) expect(t).not.toMatch(SECRET_COLUMNS);
  });

  it('has a probe for every protected route', () => {
    const protectedRoutes = Object.keys(ROUTES).filter((k) => !PUBLIC_ROUTES.includes(k));
    expect(protectedRoutes.filter((k) => !PROBES[k as RouteKey])).toEqual([]);
  });

  for (const [key, access] of Object.entries(ROUTES) as [RouteKey, string][]) {
    if (access === 'public') continue;
    describe(key, () => {
      it('answers 401 without a session', async () => {
        const probe = PROBES[key]!;
        const id = probe.id ? await probe.id(company) : undefined;
        const res = await call(new Api(baseUrl()), key, probe, company, id);
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ success: false, error: expect.any(String) });
      });

      for (const role of ROLES) {
        const allowed = hasRole(role, access as Role);
        it(`${role}: ${allowed ? 'allowed' : '403'}`, async () => {
          const probe = PROBES[key]!;
          // Logging out ends the session: use a fresh one for that probe.
          const api = key === 'POST /api/auth/logout' ? await freshLogin(company, role) : company.as[role];
          const id = probe.id ? await probe.id(company) : undefined;
          const res = await call(api, key, probe, company, id);
          if (!allowed) {
            expect(res.status, res.text).toBe(403);
            expect(res.body.success).toBe(false);
          } else if (key === 'DELETE /api/auth/company') {
            expect(res.status, 'owner reaches the password check').toBe(403);
            expect(res.body.error).toMatch(/current password is wrong/);
          } else if (probe.allowedStatus) {
            expect(res.status, res.text).toBe(probe.allowedStatus);
          } else {
            expect(res.status, res.text).toBeGreaterThanOrEqual(200);
            expect(res.status, res.text).toBeLessThan(300);
          }
          expect(res.text).not.toMatch(SECRET_COLUMNS);
        });
      }

      if (!PROBES[key]!.noForeignId) {
        it('another company’s id answers 404 to its owner', async () => {
          const probe = PROBES[key]!;
          const foreignId = await probe.id!(stranger);
          const res = await call(company.as.owner, key, probe, company, foreignId);
          expect(res.status, res.text).toBe(404);
          expect(res.body.success).toBe(false);
        });
      }
    });
  }
});

async function freshLogin(c: TestCompany, role: Role): Promise<Api> {
  const api = new Api(baseUrl());
  const res = await api.post('/api/auth/login', { email: c.users[role].email, password: PASSWORD });
  expect(res.status).toBe(200);
  return api;
}
