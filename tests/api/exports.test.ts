// Exports through HTTP: KMZ flight plans (and their rate limit), all fields as a ZIP, ISOXML.
import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import { Api } from '../helpers/api';
import { createCompany, registerCompany } from '../helpers/company';
import { baseUrl } from '../helpers/context';
import { missingShared, sharedPath } from '../helpers/shared-data';
import { waitForTask } from '../helpers/tasks';
import en from '../../messages/en.json';

const rect = (lon: number, lat: number, d = 0.005) => ({ type: 'Polygon', coordinates: [[[lon, lat], [lon + d, lat], [lon + d, lat + d], [lon, lat + d], [lon, lat]]] });

async function download(api: Api, path: string) {
  const res = await fetch(baseUrl() + path, { headers: { cookie: `session_token=${api.cookie}` } });
  const body = Buffer.from(await res.arrayBuffer());
  // A file made before it is sent gives its size, so that the browser shows how much is left; the
  // ZIP of all fields' plans is written as it is sent.
  if (res.ok) expect(res.headers.get('content-length'), path).toBe(path.startsWith('/api/field/export/kmz/all') ? null : String(body.length));
  return { res, body };
}

describe('KMZ flight plans', () => {
  it('answers a DJI WPML mission with the requested parameters and a safe file name', async () => {
    const { api } = await registerCompany(baseUrl());
    const id = (await api.post('/api/fields', { name: 'Поле №1 (север)', geometry: rect(39.7, 47.2) })).body.id;
    const { res, body } = await download(api, `/api/field/export/kmz/${id}?height=80&direction=45&overlap_h=75&overlap_w=60`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/vnd.google-earth.kmz');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename=Pole_1_sever.kmz');
    expect(Number(res.headers.get('ratelimit-limit'))).toBe(100);
    const zip = await JSZip.loadAsync(body);
    expect(Object.keys(zip.files).sort()).toEqual(expect.arrayContaining(['wpmz/template.kml', 'wpmz/waylines.wpml']));
    const template = await zip.file('wpmz/template.kml')!.async('string');
    expect(template).toContain('<wpml:templateType>mapping2d</wpml:templateType>');
    expect(template).toMatch(/<wpml:orthoCameraOverlapH>75<\/wpml:orthoCameraOverlapH>/);
    expect(template).toMatch(/<wpml:orthoCameraOverlapW>60<\/wpml:orthoCameraOverlapW>/);
    expect(template).toMatch(/<wpml:direction>45<\/wpml:direction>/);
    expect(template).toMatch(/39\.70*,47\.20*/);
    const waylines = await zip.file('wpmz/waylines.wpml')!.async('string');
    expect((waylines.match(/<Placemark>/g) ?? []).length).toBeGreaterThan(2);
    // The flight's figures ride along in headers, as the waylines give them.
    expect(Number(res.headers.get('x-flight-distance-m'))).toBe(Math.round(Number(/<wpml:distance>([\d.]+)</.exec(waylines)![1])));
    expect(Number(res.headers.get('x-flight-duration-s'))).toBe(Math.round(Number(/<wpml:duration>([\d.]+)</.exec(waylines)![1])));
    expect(Number(res.headers.get('x-flight-photos'))).toBeGreaterThan(0);
  });

  it('uses the spec defaults and refuses out-of-range parameters with 422', async () => {
    const { api } = await registerCompany(baseUrl(), { language: 'en' });
    const id = (await api.post('/api/fields', { name: 'F', geometry: rect(20, 48) })).body.id;
    const zip = await JSZip.loadAsync((await download(api, `/api/field/export/kmz/${id}`)).body);
    const template = await zip.file('wpmz/template.kml')!.async('string');
    expect(template).toMatch(/<wpml:orthoCameraOverlapH>70<\/wpml:orthoCameraOverlapH>/);
    expect(template).toMatch(/<wpml:orthoCameraOverlapW>65<\/wpml:orthoCameraOverlapW>/);
    expect(template).toMatch(/<wpml:direction>90<\/wpml:direction>/);
    for (const q of ['height=5', 'direction=400', 'overlap_h=99', 'height=abc', 'drone=toy']) {
      const res = await api.get(`/api/field/export/kmz/${id}?${q}`);
      expect(res.status, q).toBe(422);
      expect(res.body.success).toBe(false);
    }
  });

  it('refuses photos closer than the camera can take them, with what height or overlap would do, in the user’s language', async () => {
    for (const [language, words] of [['en', 'raise height to at least 45 m or lower overlap_h to at most 88 %'], ['ru', 'поднимите высоту хотя бы до 45 м или уменьшите overlap_h не более чем до 88 %'], ['sk', 'zvýšte výšku aspoň na 45 m alebo znížte overlap_h najviac na 88 %']] as const) {
      const { api } = await registerCompany(baseUrl(), { language });
      const id = (await api.post('/api/fields', { name: 'F', geometry: rect(21, 48) })).body.id;
      // DJI Mavic 3M: one photo every 2 s, and at 20 m with 95 % forward overlap the photos would be 0.9 m apart.
      for (const path of [`/api/field/export/kmz/${id}`, '/api/field/export/kmz/all']) {
        const res = await api.get(`${path}?height=20&overlap_h=95`);
        expect(res.status, path).toBe(422);
        expect(res.body.success).toBe(false);
        expect(res.body.error, path).toContain(words);
        expect(res.body.details).toHaveLength(1);
      }
      // What it suggests flies, at the camera's pace.
      const { res, body } = await download(api, `/api/field/export/kmz/${id}?height=45&overlap_h=95`);
      expect(res.status).toBe(200);
      const waylines = await (await JSZip.loadAsync(body)).file('wpmz/waylines.wpml')!.async('string');
      const speed = Number(/<wpml:autoFlightSpeed>([\d.]+)</.exec(waylines)![1]);
      expect(Number(/<wpml:actionTriggerParam>([\d.]+)</.exec(waylines)![1]) / speed).toBeGreaterThanOrEqual(2);
    }
  });

  it('names a query key it does not take (a typo), on both exports, rather than plan with the default', async () => {
    const { api } = await registerCompany(baseUrl(), { language: 'en' });
    const id = (await api.post('/api/fields', { name: 'F', geometry: rect(22, 48) })).body.id;
    for (const path of [`/api/field/export/kmz/${id}`, '/api/field/export/kmz/all']) {
      const res = await api.get(`${path}?heigth=50&drone=mavic3e`);
      expect(res.status, path).toBe(422);
      expect(res.body).toEqual({ success: false, error: 'Invalid data: unknown fields: heigth', details: ['unknown fields: heigth'] });
    }
    expect((await download(api, `/api/field/export/kmz/${id}?height=50&drone=mavic3e`)).res.status).toBe(200);
  });

  it('names a query key the ISOXML and PDF exports do not take (grid misspelt), field and scan paths alike', async () => {
    const { api } = await registerCompany(baseUrl(), { language: 'en' });
    const id = (await api.post('/api/fields', { name: 'F', geometry: rect(22.4, 48) })).body.id;
    for (const path of [`/api/field/export/isoxml/${id}`, `/api/field/export/pdf/${id}`, '/api/scan/1/export/isoxml', '/api/scan/1/export/pdf']) {
      const res = await api.get(`${path}?gird=1&unzoned_rate=0`);
      expect(res.status, path).toBe(422);
      expect(res.body, path).toEqual({ success: false, error: 'Invalid data: unknown fields: gird', details: ['unknown fields: gird'] });
    }
    // Every key each export takes still passes.
    expect((await download(api, `/api/field/export/isoxml/${id}?rates=&product=Urea&grid=0&unzoned_rate=0`)).res.status).toBe(200);
    expect((await download(api, `/api/field/export/pdf/${id}?rates=&unzoned_rate=0&lang=sk`)).res.status).toBe(200);
  });

  it('refuses a plan over the 65,535 waypoints DJI aircraft take; the all-fields ZIP names such a field in errors.txt', async () => {
    const { api } = await registerCompany(baseUrl(), { language: 'en' });
    const small = (await api.post('/api/fields', { name: 'Small', geometry: rect(23, 48) })).body.id;
    // 11 km across: some 18,000 waypoints, under the cap, and built in a worker thread as any plan over 10,000.
    const big = (await api.post('/api/fields', { name: 'Big', geometry: rect(22.8, 48, 0.1) })).body.id;
    // Half a degree square (37 x 56 km): at 20 m and 95 % side overlap, lines 1.2 m apart, some 90,000 waypoints.
    const huge = (await api.post('/api/fields', { name: 'Huge', geometry: rect(23.1, 48, 0.5) })).body.id;
    const query = 'height=20&overlap_w=95';
    const refused = await api.get(`/api/field/export/kmz/${huge}?${query}`);
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatch(/^The flight plan would have about \d\d,\d{3} waypoints, more than the 65,535 a DJI aircraft takes in one mission/);
    expect((await download(api, `/api/field/export/kmz/${small}?${query}`)).res.status).toBe(200);

    const { res, body } = await download(api, `/api/field/export/kmz/all?${query}`);
    expect(res.status).toBe(200);
    const zip = await JSZip.loadAsync(body);
    expect(Object.keys(zip.files).sort()).toEqual(['Big.kmz', 'Small.kmz', 'errors.txt']);
    const bigKmz = await JSZip.loadAsync(await zip.file('Big.kmz')!.async('nodebuffer'));
    expect(((await bigKmz.file('wpmz/waylines.wpml')!.async('string')).match(/<Placemark>/g) ?? []).length).toBeGreaterThan(10_000);
    expect(await zip.file('errors.txt')!.async('string')).toBe(`${en.errors.kmz_all_left_out}\n\nHuge.kmz (Huge, id ${huge}): ${refused.body.error}\n`);

    // When no field's plan can be made, that is the answer, before any ZIP is started.
    for (const id of [small, big]) expect((await api.del(`/api/fields/${id}`)).status).toBe(200);
    const none = await api.get(`/api/field/export/kmz/all?${query}`);
    expect(none.status).toBe(422);
    expect(none.body.error).toBe(refused.body.error);
  });

  it('zips one KMZ per field with unique names', async () => {
    const { api } = await registerCompany(baseUrl());
    for (const [i, name] of ['Same', 'Same', 'Другое'].entries()) await api.post('/api/fields', { name, geometry: rect(30 + i * 0.01, 50) });
    const { res, body } = await download(api, '/api/field/export/kmz/all');
    expect(res.headers.get('content-type')).toBe('application/zip');
    const names = Object.keys((await JSZip.loadAsync(body)).files).sort();
    expect(names).toHaveLength(3);
    expect(new Set(names).size).toBe(3);
    expect(names.every((n) => n.endsWith('.kmz'))).toBe(true);
  });

  it('answers 404, saying why, for the plans of all fields of a company that has none', async () => {
    const { api } = await registerCompany(baseUrl(), { language: 'en' });
    const res = await api.get('/api/field/export/kmz/all');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, error: 'The company has no fields to export' });
  });

  it('limits KMZ exports to 100 a minute per user: 429 with Retry-After and RateLimit headers', async () => {
    const c = await createCompany(baseUrl());
    const id = (await c.as.operator.post('/api/fields', { name: 'F', geometry: rect(10, 10) })).body.id;
    const statuses: number[] = [];
    for (let i = 0; i < 100; i++) statuses.push((await c.as.operator.get(`/api/field/export/kmz/${id}?height=${20 + (i % 50)}`)).status);
    expect(statuses.every((s) => s === 200)).toBe(true);
    const limited = await c.as.operator.get(`/api/field/export/kmz/${id}`);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    // Per user: a colleague still gets theirs.
    expect((await c.as.agronomist.get(`/api/field/export/kmz/${id}`)).status).toBe(200);
  });

  it('another company’s field is not found; viewers may not export', async () => {
    const a = await createCompany(baseUrl());
    const b = await registerCompany(baseUrl());
    const id = (await b.api.post('/api/fields', { name: 'B', geometry: rect(5, 5) })).body.id;
    expect((await a.as.owner.get(`/api/field/export/kmz/${id}`)).status).toBe(404);
    expect((await a.as.owner.get(`/api/field/export/isoxml/${id}`)).status).toBe(404);
    const own = (await a.as.owner.post('/api/fields', { name: 'A', geometry: rect(6, 6) })).body.id;
    expect((await a.as.viewer.get(`/api/field/export/kmz/${own}`)).status).toBe(403);
  });
});

describe('ISOXML', () => {
  it('exports the field boundary as ISO 11783-10 task data', async () => {
    const { api, name: company } = await registerCompany(baseUrl());
    const landlord = (await api.post('/api/owners', { name: 'Landlord' })).body.id;
    const id = (await api.post('/api/fields', { name: 'Pole', geometry: rect(17.1, 48.1), owner_id: landlord, status: 'Аренда' })).body.id;
    const { res, body } = await download(api, `/api/field/export/isoxml/${id}`);
    expect(res.status).toBe(200);
    const zip = await JSZip.loadAsync(body);
    const xml = await zip.file(/TASKDATA\.XML$/i)[0]!.async('string');
    expect(xml).toContain('VersionMajor="4"');
    expect(xml).toMatch(/<PFD [^>]*C="Pole"/);
    // The customer is the farm the work is done for, not the leased field's landlord.
    expect(xml).toContain(`<CTR A="CTR1" B="${company}"`);
    expect(xml).not.toContain('Landlord');
  });
});

describe('file names', () => {
  it('names a download as the field, less what a file system cannot hold, encoded as RFC 6266 and 8187 say', async () => {
    const { api } = await registerCompany(baseUrl());
    const cases = [
      ["O'Brien's (field) *1*", `attachment; filename=OBriens_field_-1-.pdf; filename*=UTF-8''O%27Brien%27s%20%28field%29%20-1-.pdf`],
      ['../../etc/passwd', 'attachment; filename=etc-passwd.pdf'],
      ['a/b\\c:d*e?f"g<h>i|j', 'attachment; filename=a-b-c-d-e-f-g-h-i-j.pdf'],
      ['Поле 1401/31', `attachment; filename=Pole_1401-31.pdf; filename*=UTF-8''${encodeURIComponent('Поле 1401-31')}.pdf`],
    ];
    for (const [i, [name, header]] of cases.entries()) {
      const id = (await api.post('/api/fields', { name, geometry: rect(40 + i * 0.01, 50) })).body.id;
      const { res } = await download(api, `/api/field/export/pdf/${id}`);
      expect(res.headers.get('content-disposition'), name).toBe(header);
    }
  });
});

describe('PDF report', () => {
  it('renders in the user language, or the lang parameter', async () => {
    const { execFileSync } = await import('node:child_process');
    const { writeFileSync, mkdtempSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const { api } = await registerCompany(baseUrl(), { language: 'sk' });
    const owner = (await api.post('/api/owners', { name: 'Novák Ján' })).body.id;
    const id = (await api.post('/api/fields', { name: 'Pole pri ceste', geometry: rect(17.1, 48.1), owner_id: owner, parcel_number: '12:34' })).body.id;
    const dir = mkdtempSync(join(tmpdir(), 'pdf-'));
    for (const [query, word] of [['', 'Vlastník'], ['?lang=ru', 'Владелец'], ['?lang=en', 'Owner']] as const) {
      const { res, body } = await download(api, `/api/field/export/pdf/${id}${query}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/pdf');
      expect(body.subarray(0, 5).toString()).toBe('%PDF-');
      const file = join(dir, `r${query.length}.pdf`);
      writeFileSync(file, body);
      const text = execFileSync('pdftotext', [file, '-']).toString();
      expect(text).toContain('Pole pri ceste');
      expect(text).toContain('Novák Ján');
      expect(text, query).toContain(word);
    }
  });
});

const NAIP = ['raster', 'naip', 'm_4709963_se_14_1_20190904.tif'] as const;
const missingNaip = missingShared(...NAIP);
if (missingNaip) console.warn(`skipping the PDF report's rates test: ${missingNaip}`);

/** The text of a PDF, as pdftotext lays it out. */
async function pdfText(body: Buffer): Promise<string> {
  const { execFileSync } = await import('node:child_process');
  return execFileSync('pdftotext', ['-layout', '-', '-'], { input: body }).toString();
}

describe.skipIf(!!missingNaip)('PDF report rates', () => {
  it('takes `rates` over the company\'s as the ISOXML export does, with its 422s and cap, and says how much of the field is zoned', async () => {
    const { api } = await registerCompany(baseUrl(), { language: 'en' });
    // Half of it east of the NAIP tile's footprint (which ends at -99.1241 E): only that half is zoned.
    const field = { type: 'Polygon', coordinates: [[[-99.135, 47.01], [-99.115, 47.01], [-99.115, 47.03], [-99.135, 47.03], [-99.135, 47.01]]] };
    const id = (await api.post('/api/fields', { name: 'Half under the raster', geometry: field })).body.id;
    const upload = await api.upload('/upload', { field_id: String(id), zones: '3', raster_file: { file: sharedPath(...NAIP), name: 'naip.tif', type: 'image/tiff' } });
    expect(upload.status, upload.text).toBe(202);
    const scanId = (await waitForTask(api, upload.body.task_id)).result.scan_id as number;
    expect((await api.put('/api/auth/company', { settings: { zone_rates: { 1: 100, 2: 150, 3: 200 } } })).status).toBe(200);

    for (const path of [`/api/field/export/pdf/${id}`, `/api/scan/${scanId}/export/pdf`]) {
      // Classes 1 and 2 as given, 3 from the settings: the rates an ISOXML with the same query gets.
      const { res, body } = await download(api, `${path}?rates=1:111,2:122.5`);
      expect(res.status, path).toBe(200);
      const text = await pdfText(body);
      expect(text).toMatch(/^\s*1\s+1: .*\s111\.0$/m);
      expect(text).toMatch(/^\s*2\s+2: .*\s122\.5$/m);
      expect(text).toMatch(/^\s*3\s+3: .*\s200\.0$/m);
      // The ground outside the raster has no zone: a row of its own, with the mean rate ISOXML gives it.
      expect(text).toMatch(/Not zoned \(no index data\)\s+[\d.]+\s+[\d.]+%\s+—\s+1\d\d\.\d$/m);
      expect(text).toMatch(/Coverage\s+Zoned: [\d.]+ ha of [\d.]+ ha \([1-9]\d%\)/);
      // A pond takes nothing: the rate set for the ground no zone covers, as the ISOXML gets it.
      expect(await pdfText((await download(api, `${path}?unzoned_rate=0`)).body)).toMatch(/Not zoned \(no index data\)\s+[\d.]+\s+[\d.]+%\s+—\s+0\.0$/m);
      const settingsOnly = await pdfText((await download(api, path)).body);
      expect(settingsOnly).toMatch(/^\s*1\s+1: .*\s100\.0$/m);

      for (const [query, message] of [
        ['rates=1:100,abc', en.errors.export_rates_format],
        ['rates=1:100,2:-5', en.errors.export_rates_format],
        ['rates=1:100,1:120', en.errors.export_rates_repeated.replace('{class}', '1')],
        ['rates=1:100,2:100000.5', 'The rate for zone class 2 is over 100,000 kg/ha'],
        ['unzoned_rate=-3', 'unzoned_rate: a rate in kg/ha from 0 to 100,000'],
      ] as const) {
        const pdf = await api.get(`${path}?${query}`);
        expect(pdf.status, `${path}?${query}`).toBe(422);
        expect((pdf.body.error as string).replace(/\u00a0/g, ' '), query).toBe(message);
        // Word for word what the ISOXML export answers.
        const iso = await api.get(`${path.replace('/pdf', '/isoxml')}?${query}`);
        expect(iso.status).toBe(422);
        expect(pdf.body.error).toBe(iso.body.error);
      }
    }

    // A class without a rate is refused by ISOXML (a spreader must not guess) but shown without one in the report.
    expect((await api.put('/api/auth/company', { settings: { zone_rates: {} } })).status).toBe(200);
    expect((await api.get(`/api/field/export/isoxml/${id}?rates=1:90`)).status).toBe(422);
    const { res, body } = await download(api, `/api/field/export/pdf/${id}?rates=1:90`);
    expect(res.status).toBe(200);
    const text = await pdfText(body);
    expect(text).toMatch(/^\s*1\s+1: .*\s90\.0$/m);
    expect(text).toMatch(/^\s*3\s+3: .*\s—$/m);
  });
});
