import { describe, expect, it } from 'vitest';
import type { Polygon, Position } from 'geojson';
import { registerCompany } from '../helpers/company';
import { baseUrl } from '../helpers/context';

/** A ring of `n` corners, `radius` metres around (lon, lat), its radius wobbling by 1 %. */
function wobbly(lon: number, lat: number, radius: number, n: number): Polygon {
  const ring: Position[] = Array.from({ length: n }, (_, i) => {
    const a = (2 * Math.PI * i) / n;
    const r = radius * (1 + 0.01 * Math.sin(7 * a));
    return [lon + (r * Math.cos(a)) / (111_320 * Math.cos((lat * Math.PI) / 180)), lat + (r * Math.sin(a)) / 110_574];
  });
  return { type: 'Polygon', coordinates: [[...ring, ring[0]!]] };
}

interface Listed {
  features: { id: number; properties: { name: string; area: number; status: string | null }; geometry: Polygon }[];
}

describe('GET /api/fields?simplify=', () => {
  it('answers fewer corners, the stored area and properties, and a tiny field drawn with four corners or more', async () => {
    const { api } = await registerCompany(baseUrl());
    const big = wobbly(39, 47, 500, 200);
    const tiny = wobbly(39.02, 47, 3, 60);
    const bigId = (await api.post('/api/fields', { name: 'Big', geometry: big, status: 'Аренда', parcel_number: '1:2' })).body.id;
    const tinyId = (await api.post('/api/fields', { name: 'Tiny', geometry: tiny })).body.id;
    const exact = JSON.parse((await api.get('/api/fields')).text) as Listed;
    const res = await api.get('/api/fields?simplify=5');
    expect(res.status).toBe(200);
    const simple = JSON.parse(res.text) as Listed;
    expect(simple.features.map((f) => f.id)).toEqual([bigId, tinyId]);
    const [b, t] = simple.features;
    expect(b!.geometry.coordinates[0]!.length).toBeLessThan(100);
    expect(b!.geometry.coordinates[0]!.length).toBeGreaterThanOrEqual(4);
    // Everything but the drawing is the stored field's, the area not recomputed from the simpler ring.
    expect(b!.properties).toEqual(exact.features[0]!.properties);
    expect(t!.properties).toEqual(exact.features[1]!.properties);
    // The tiny field (6 m across) would collapse at 5 m: it is drawn within a finer tolerance, still a
    // polygon of four corners or more; at 5 km, where even 1/64 of that collapses it, it is sent as stored.
    expect(t!.geometry.coordinates[0]!.length).toBeGreaterThanOrEqual(5);
    expect(t!.geometry.coordinates[0]!.length).toBeLessThan(tiny.coordinates[0]!.length);
    const coarse = JSON.parse((await api.get('/api/fields?simplify=5000')).text) as Listed;
    expect(coarse.features[1]!.geometry).toEqual(tiny);
    // Without the parameter the boundary is the stored one.
    expect(exact.features[0]!.geometry).toEqual(big);
  });

  it('combines with the other filters', async () => {
    const { api } = await registerCompany(baseUrl());
    await api.post('/api/fields', { name: 'West', geometry: wobbly(20, 48, 500, 200), status: 'Аренда' });
    const east = (await api.post('/api/fields', { name: 'East', geometry: wobbly(21, 48, 500, 200), status: 'Аренда' })).body.id;
    await api.post('/api/fields', { name: 'East 2', geometry: wobbly(21.05, 48, 500, 200) });
    const list = JSON.parse((await api.get('/api/fields?simplify=10&bbox=20.9,47.9,21.1,48.1&status=Аренда&q=east')).text) as Listed;
    expect(list.features.map((f) => f.id)).toEqual([east]);
    expect(list.features[0]!.geometry.coordinates[0]!.length).toBeLessThan(100);
  });

  it.each(['0', '-1', 'abc', '1e9', 'Infinity'])('refuses simplify=%s with 422 in the user\'s language', async (value) => {
    const { api } = await registerCompany(baseUrl(), { language: 'ru' });
    const res = await api.get(`/api/fields?simplify=${value}`);
    expect(res.status).toBe(422);
    expect(res.body.success).toBe(false);
    expect(res.body.error).toMatch(/^Некорректные данные: simplify: /);
  });

  it('names the bound in English too', async () => {
    const { api } = await registerCompany(baseUrl());
    expect((await api.get('/api/fields?simplify=0')).body.error).toContain('simplify: more than 0');
    expect((await api.get('/api/fields?simplify=1e9')).body.error).toMatch(/simplify: at most 10,?000/);
  });
});
