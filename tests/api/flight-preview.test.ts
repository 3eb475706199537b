// GET /api/field/export/kmz/{id}/preview: the KMZ's plan as GeoJSON and its summary, as the KMZ export is scoped.
import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import { createCompany, registerCompany } from '../helpers/company';
import { baseUrl } from '../helpers/context';

const rect = (lon: number, lat: number, d = 0.005) => ({ type: 'Polygon', coordinates: [[[lon, lat], [lon + d, lat], [lon + d, lat + d], [lon, lat + d], [lon, lat]]] });

describe('flight plan preview', () => {
  it('answers the plan the KMZ holds for the same query: as many waypoints, the same summary', async () => {
    const { api } = await registerCompany(baseUrl());
    const id = (await api.post('/api/fields', { name: 'P', geometry: rect(39.7, 47.2) })).body.id;
    const query = 'height=80&direction=45&overlap_h=75&overlap_w=60&drone=mavic3e';
    const preview = await api.get(`/api/field/export/kmz/${id}/preview?${query}`);
    expect(preview.status).toBe(200);
    expect(preview.body.success).toBe(true);
    const kinds = preview.body.plan.features.map((f: { properties: { kind: string } }) => f.properties.kind);
    expect(kinds).toEqual(['field', 'path', 'photos']);
    const kmz = await fetch(`${baseUrl()}/api/field/export/kmz/${id}?${query}`, { headers: { cookie: `session_token=${api.cookie}` } });
    const waylines = await (await JSZip.loadAsync(Buffer.from(await kmz.arrayBuffer()))).file('wpmz/waylines.wpml')!.async('string');
    const placemarks = (waylines.match(/<Placemark>/g) ?? []).length;
    expect(preview.body.plan.features[1].geometry.coordinates).toHaveLength(placemarks);
    expect(preview.body.summary.waypoints).toBe(placemarks);
    expect(preview.body.summary.photos).toBe(Number(kmz.headers.get('x-flight-photos')));
    expect(preview.body.summary.duration_s).toBe(Number(kmz.headers.get('x-flight-duration-s')));
    expect(preview.body.summary.distance_m).toBe(Number(kmz.headers.get('x-flight-distance-m')));
    expect(preview.body.plan.features[2].geometry.coordinates).toHaveLength(preview.body.summary.photos);
    expect(preview.body.summary.batteries).toBeGreaterThanOrEqual(1);
  });

  it('refuses the parameters the KMZ refuses, in the caller’s language', async () => {
    const { api } = await registerCompany(baseUrl(), { language: 'en' });
    const id = (await api.post('/api/fields', { name: 'F', geometry: rect(20, 48) })).body.id;
    for (const q of ['height=5', 'overlap_h=99', 'drone=toy', 'heigth=50']) {
      const res = await api.get(`/api/field/export/kmz/${id}/preview?${q}`);
      expect(res.status, q).toBe(422);
      expect(res.body.success).toBe(false);
      expect(typeof res.body.error).toBe('string');
    }
  });

  it('another company’s field is not found; viewers may not see the plan', async () => {
    const a = await createCompany(baseUrl());
    const b = await registerCompany(baseUrl());
    const theirs = (await b.api.post('/api/fields', { name: 'B', geometry: rect(5, 5) })).body.id;
    expect((await a.as.owner.get(`/api/field/export/kmz/${theirs}/preview`)).status).toBe(404);
    const own = (await a.as.owner.post('/api/fields', { name: 'A', geometry: rect(6, 6) })).body.id;
    expect((await a.as.viewer.get(`/api/field/export/kmz/${own}/preview`)).status).toBe(403);
    expect((await a.as.operator.get(`/api/field/export/kmz/${own}/preview`)).status).toBe(200);
  });
});
