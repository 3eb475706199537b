// Property-based tests: random and mutated bodies, query strings and path ids never produce a 5xx,
// always answer the spec's envelope, and a refused request changes nothing.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { type TestCompany, createCompany } from '../helpers/company';
import { baseUrl } from '../helpers/context';

const RUNS = Number(process.env.FUZZ_RUNS ?? 40);
const ring = [[30, 50], [30.01, 50], [30.01, 50.01], [30, 50.01], [30, 50]];

// Shapes that overflowed or polluted (issue 36): deep nesting, arrays past what push(...spread) takes, prototype keys.
// (Nesting 200,000 deep is in tests/helpers/hostile-input.ts: fast-check's own printing of a value recurses.)
const hostile = fc.constantFrom<unknown>(
  JSON.parse('['.repeat(500) + ']'.repeat(500)),
  new Array(150_000).fill(0),
  JSON.parse('{"__proto__":{"admin":true,"role":"owner"}}'),
  JSON.parse('{"constructor":{"prototype":{"admin":true}}}'),
  JSON.parse('{"1":100,"__proto__":5}'),
);

// Values that stress parsers: wrong types, huge and odd numbers, long and odd strings, nesting.
const nasty = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  hostile,
  fc.constantFrom(null, -1, 0, 1e308, -1e308, 2 ** 53, '', ' ', '\u0000', '../../etc/passwd', 'NaN', '1e999', '<script>', 'Ω'.repeat(300), [], {}),
  fc.string({ maxLength: 400 }),
);

/** A valid body with some keys replaced by nasty values, some dropped, some added. */
const mutated = (valid: Record<string, unknown>) =>
  fc.record({
    replace: fc.dictionary(fc.constantFrom(...Object.keys(valid)), nasty, { maxKeys: 3 }),
    drop: fc.subarray(Object.keys(valid)),
    extra: fc.dictionary(fc.string({ maxLength: 12 }), nasty, { maxKeys: 2 }),
  }).map(({ replace, drop, extra }) => {
    const body: Record<string, unknown> = { ...valid, ...extra, ...replace };
    for (const k of drop) delete body[k];
    return body;
  });

const anyBody = fc.oneof(nasty, fc.object({ maxDepth: 2 }));

const BODIES: { method: string; path: string; valid: Record<string, unknown> }[] = [
  { method: 'POST', path: '/api/auth/login', valid: { email: 'x@example.test', password: 'whatever-1', remember: true } },
  { method: 'PUT', path: '/api/auth/profile', valid: { first_name: 'A', last_name: 'B', language: 'en' } },
  { method: 'PUT', path: '/api/auth/company', valid: { name: 'N', settings: { a: 1 } } },
  { method: 'PUT', path: '/api/auth/company', valid: { settings: { zone_rates: { 1: 120, 2: 140 } } } },
  { method: 'POST', path: '/api/auth/company/users', valid: { email: 'y@example.test', password: 'long-enough-1', role: 'viewer' } },
  { method: 'POST', path: '/api/fields', valid: { name: 'F', geometry: { type: 'Polygon', coordinates: [ring] }, status: 'Аренда', parcel_number: '1:2' } },
  { method: 'POST', path: '/api/owners', valid: { name: 'O' } },
];

describe('hostile JSON input', () => {
  let c: TestCompany;
  let fieldId: number;
  let ownerId: number;
  beforeAll(async () => {
    c = await createCompany(baseUrl(), { language: 'en' });
    fieldId = (await c.as.owner.post('/api/fields', { name: 'Keep', geometry: { type: 'Polygon', coordinates: [ring] } })).body.id;
    ownerId = (await c.as.owner.post('/api/owners', { name: 'Keep' })).body.id;
  });

  const snapshot = async () => ({
    fields: (await c.as.owner.get('/api/fields')).text,
    owners: (await c.as.owner.get('/api/owners')).text,
    company: JSON.stringify((await c.as.owner.get('/api/auth/company')).body.company),
  });

  for (const { method, path, valid } of BODIES) {
    it(`${method} ${path}: never 5xx, always the envelope, nothing changed when refused`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.oneof(mutated(valid), anyBody), async (body) => {
          const before = await snapshot();
          // Failed logins count against an address: keep this test's failures in a bucket of its own.
          const res = await c.as.owner.request(method, path, JSON.stringify(body), { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.77' });
          expect(res.status, res.text).toBeLessThan(500);
          if (res.status >= 400) {
            expect(res.body).toEqual({ success: false, error: expect.any(String), ...(res.body.details ? { details: expect.any(Array) } : {}) });
            expect(await snapshot()).toEqual(before);
          } else if (path === '/api/auth/login') {
            throw new Error('a mutated login must not succeed');
          }
        }),
        { numRuns: RUNS },
      );
    });
  }

  it('PUT /api/fields/{id} and /api/owners/{id} with mutated bodies never break the stored row', async () => {
    await fc.assert(
      fc.asyncProperty(mutated({ name: 'Renamed', status: 'Аренда', parcel_number: '3:4', owner_id: ownerId }), async (body) => {
        for (const path of [`/api/fields/${fieldId}`, `/api/owners/${ownerId}`]) {
          const res = await c.as.owner.put(path, body);
          expect(res.status, res.text).toBeLessThan(500);
          if (res.status >= 400) expect(res.body.success).toBe(false);
        }
        const field = await c.as.owner.get(`/api/fields/${fieldId}`);
        expect(field.status).toBe(200);
        expect(field.body.geometry.type).toBe('Polygon');
      }),
      { numRuns: RUNS },
    );
  });

  it('random path ids and query strings never produce a 5xx', async () => {
    const segment = fc.oneof(fc.integer({ min: -2, max: 2 ** 40 }).map(String), fc.string({ maxLength: 30 }).map(encodeURIComponent), fc.constantFrom('0', '-1', '1.5', '1e3', '%00', '..', 'all'));
    const query = fc.dictionary(fc.constantFrom('bbox', 'owner_id', 'status', 'q', 'height', 'direction', 'overlap_h', 'overlap_w', 'drone', 'rates', 'lang'), fc.string({ maxLength: 40 }), { maxKeys: 4 });
    await fc.assert(
      fc.asyncProperty(segment, query, fc.constantFrom('/api/fields/', '/api/owners/', '/api/scans/', '/api/tasks/', '/api/field/export/kmz/', '/api/field/export/isoxml/', '/api/scan/'), async (id, q, prefix) => {
        const qs = new URLSearchParams(q).toString();
        const res = await c.as.operator.get(`${prefix}${id}${qs ? `?${qs}` : ''}`);
        expect(res.status, `${prefix}${id}?${qs}: ${res.text.slice(0, 200)}`).toBeLessThan(500);
      }),
      { numRuns: RUNS * 2 },
    );
    const list = await c.as.operator.get('/api/fields?bbox=1,2,3,4&owner_id=abc');
    expect(list.status).toBe(422);
  });
});
