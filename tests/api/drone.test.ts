// Drone photos through the API (issue 10, spec 4.7): POST /api/drone/upload checks what is cheap at
// once and answers 202, the background task stitches, analyses and classifies, the status endpoint
// follows it, and GET /api/scan/{id}/classify answers spec 2.6. The real survey is brighton_beach
// (18 DJI photos); fast error cases use small generated photos and the synthetic survey helper.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromArrayBuffer } from 'geotiff';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { CROPS } from '@/lib/drone/crops';
import { readDroneExif } from '@/lib/drone/exif';
import { utmFrame } from '@/lib/drone/frame';
import { surveyCentroids } from '@/lib/drone/survey';
import type { Api } from '../helpers/api';
import { createCompany, type TestCompany } from '../helpers/company';
import { baseUrl, directDb, serverEnv } from '../helpers/context';
import { agreementWithCloud, lasTopView } from '../helpers/point-cloud';
import { missingShared, sharedPath } from '../helpers/shared-data';
import { writeStrayShot, writeThermalShot } from '../helpers/stray-photos';
import { makeSyntheticSurvey } from '../helpers/synthetic-survey';
import { rawZip } from '../helpers/raw-zip';
import { waitForTask } from '../helpers/tasks';

const BRIGHTON = ['drone', 'brighton_beach', 'images'] as const;
const missingBrighton = missingShared(...BRIGHTON);
if (missingBrighton) console.warn(`skipping the brighton_beach drone API tests: ${missingBrighton}`);
const NAIP = ['raster', 'naip', 'm_4709963_se_14_1_20160816.tif'] as const;
const missingSynthetic =
  missingShared(...NAIP) ??
  (() => {
    try {
      execFileSync('exiftool', ['-ver'], { stdio: 'pipe' });
      return undefined;
    } catch {
      return 'exiftool not installed (apt-get install libimage-exiftool-perl): the synthetic survey cannot be written';
    }
  })();
if (missingSynthetic) console.warn(`skipping the synthetic-survey drone API tests: ${missingSynthetic}`);

const tmp = mkdtempSync(join(tmpdir(), 'drone-api-'));
const brightonFiles = () => readdirSync(sharedPath(...BRIGHTON)).filter((f) => /\.jpe?g$/i.test(f)).sort().map((f) => sharedPath(...BRIGHTON, f));

/** A ZIP (yazl) of files from disk and entries given as bytes. */
function zipOf(files: string[], extra: Record<string, Buffer | string> = {}, folder = ''): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const f of files) zip.addFile(f, folder + f.split('/').at(-1)!, { compress: false });
  for (const [name, data] of Object.entries(extra)) zip.addBuffer(Buffer.from(data), folder + name);
  zip.end();
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks))).on('error', reject);
  });
}

const upload = (api: Api, zip: Buffer | string, data?: Record<string, unknown> | string, name = 'flight.zip') =>
  api.upload('/api/drone/upload', {
    drone_images: { data: typeof zip === 'string' ? Buffer.from(zip) : zip, name, type: 'application/zip' },
    ...(data === undefined ? {} : { data: typeof data === 'string' ? data : JSON.stringify(data) }),
  });

/** A rectangle around [lon, lat] points, widened by `m` metres. */
function boxAround(points: [number, number][], m: number) {
  const lons = points.map((p) => p[0]);
  const lats = points.map((p) => p[1]);
  const dLat = m / 111_320;
  const dLon = m / (111_320 * Math.cos((lats[0]! * Math.PI) / 180));
  const [w, e, s, n] = [Math.min(...lons) - dLon, Math.max(...lons) + dLon, Math.min(...lats) - dLat, Math.max(...lats) + dLat];
  return { type: 'Polygon', coordinates: [[[w, s], [e, s], [e, n], [w, n], [w, s]]] };
}
const FAR_AWAY = { type: 'Polygon', coordinates: [[[20, 48], [20.01, 48], [20.01, 48.01], [20, 48]]] };

/** Polls the drone status endpoint until the task ends; returns the last answer and every progress text seen. */
async function followDrone(api: Api, taskId: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  const seen: string[] = [];
  for (;;) {
    const res = await api.get(`/api/drone/orthomosaic/status/${taskId}`);
    expect(res.status, res.text).toBe(200);
    expect(['queued', 'processing', 'completed', 'error']).toContain(res.body.status);
    if (res.body.progress && seen.at(-1) !== res.body.progress) seen.push(res.body.progress);
    if (res.body.status === 'completed' || res.body.status === 'error') return { last: res.body, seen };
    if (Date.now() > deadline) throw new Error(`drone task ${taskId} still ${res.body.status} (${res.body.progress})`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Nothing of a refused upload is left: no drone task, no scan, no unpacked photos. */
async function expectNothingKept(c: TestCompany) {
  const db = directDb();
  try {
    expect(await db.task.count({ where: { companyId: c.id, kind: 'drone' } })).toBe(0);
    expect(await db.scan.count({ where: { companyId: c.id } })).toBe(0);
  } finally {
    await db.$disconnect();
  }
  const uploads = join(serverEnv().DATA_DIR!, 'companies', String(c.id), 'uploads');
  expect(existsSync(uploads) ? readdirSync(uploads) : []).toEqual([]);
}

/** Two small JPEGs with no EXIF at all. */
async function plainJpegs(): Promise<Buffer[]> {
  return Promise.all([0, 1].map((k) => sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 40 * k, g: 120, b: 60 } } }).jpeg().toBuffer()));
}

describe('drone upload: refusals answered at once', () => {
  let c: TestCompany;
  let ru: TestCompany;
  let stranger: TestCompany;
  beforeAll(async () => {
    [c, ru, stranger] = await Promise.all([createCompany(baseUrl()), createCompany(baseUrl(), { language: 'ru' }), createCompany(baseUrl())]);
    await c.as.owner.post('/api/fields', { name: 'Far away', geometry: FAR_AWAY });
  });

  it('refuses a viewer (403), a missing part and something that is not a ZIP', async () => {
    const zip = await zipOf([], { 'a.jpg': (await plainJpegs())[0]!, 'b.jpg': (await plainJpegs())[1]! });
    const viewer = await upload(c.as.viewer, zip, { field_id: 'auto', crop_type: 'auto' });
    expect(viewer.status, viewer.text).toBe(403);
    expect(viewer.body).toEqual({ success: false, error: 'You do not have permission to do this' });

    const noPart = await c.as.operator.upload('/api/drone/upload', { data: '{}' });
    expect(noPart.status, noPart.text).toBe(422);
    expect(noPart.body.error).toBe('The request has no part named drone_images');

    const notZip = await upload(c.as.operator, 'these are not photos', { field_id: 'auto' });
    expect(notZip.status, notZip.text).toBe(422);
    expect(notZip.body).toEqual({ success: false, error: 'The file is not a ZIP archive or is damaged' });
    await expectNothingKept(c);
  });

  it('refuses a bad data part: not JSON 400, wrong field_id or crop_type 422', async () => {
    const zip = await zipOf([], { 'a.jpg': (await plainJpegs())[0]! });
    const notJson = await upload(c.as.operator, zip, '{field_id: 1');
    expect(notJson.status, notJson.text).toBe(400);
    expect(notJson.body.error).toBe('The data part is not valid JSON');
    const badId = await upload(c.as.operator, zip, { field_id: 'north', crop_type: 'auto' });
    expect(badId.status, badId.text).toBe(422);
    expect(badId.body.error).toContain('field_id');
    const badCrop = await upload(c.as.operator, zip, { crop_type: 'DROP TABLE' });
    expect(badCrop.status, badCrop.text).toBe(422);
    expect(badCrop.body.error).toContain('crop_type');
    // resolution_cm may only coarsen the mosaic within 1-50 cm (docs/drone.md), said in the caller's language.
    const tooFine = await upload(c.as.operator, zip, { resolution_cm: 0.2 });
    expect(tooFine.status, tooFine.text).toBe(422);
    expect(tooFine.body.error).toBe('Invalid data: resolution_cm: at least 1');
    const tooCoarse = await upload(ru.as.operator, zip, { resolution_cm: 80 });
    expect(tooCoarse.status, tooCoarse.text).toBe(422);
    expect(tooCoarse.body.error).toBe('Некорректные данные: resolution_cm: не больше 50');
    await expectNothingKept(c);
  });

  it('a ZIP without photos, or with one: the spec’s message, naming what was left out', async () => {
    const [a] = await plainJpegs();
    const none = await upload(c.as.operator, await zipOf([], { 'readme.txt': 'flight log', 'map.png': 'x' }), { field_id: 'auto' });
    expect(none.status, none.text).toBe(422);
    expect(none.body.error).toBe(
      'Not enough images to stitch: the archive holds 0 JPEG or TIFF photos, at least 2 are needed (other files were left out: readme.txt, map.png)',
    );
    const one = await upload(ru.as.operator, await zipOf([], { 'DJI_0001.JPG': a!, '__MACOSX/._DJI_0002.JPG': 'resource fork' }));
    expect(one.status, one.text).toBe(422);
    expect(one.body.error).toMatch(/^Недостаточно изображений для склейки/);
    const onlyOne = await upload(ru.as.operator, await zipOf([], { 'DJI_0001.JPG': a! }));
    expect(onlyOne.body).toEqual({ success: false, error: 'Недостаточно изображений для склейки' });
    await expectNothingKept(c);
    await expectNothingKept(ru);
  });

  it('photos without GPS, and a damaged JPEG, are named', async () => {
    const [a, b] = await plainJpegs();
    const noGps = await upload(c.as.operator, await zipOf([], { 'flight/IMG_1.jpg': a!, 'flight/IMG_2.jpg': b! }), { field_id: 'auto' });
    expect(noGps.status, noGps.text).toBe(422);
    expect(noGps.body.error).toBe('No GPS coordinates in the EXIF of: IMG_1.jpg, IMG_2.jpg');
    const corrupt = await upload(c.as.operator, await zipOf([], { 'IMG_1.jpg': a!, 'IMG_2.jpg': 'GIF89a not a jpeg' }), { field_id: 'auto' });
    expect(corrupt.status, corrupt.text).toBe(422);
    expect(corrupt.body.error).toBe('File IMG_2.jpg is damaged or is not an image');
    await expectNothingKept(c);
  });

  it('a path traversal entry and a zip bomb are refused before anything is unpacked', async () => {
    const [a, b] = await plainJpegs();
    const traversal = await upload(c.as.operator, rawZip([{ name: 'a.jpg', data: a! }, { name: '../../evil.jpg', data: b! }]), { field_id: 'auto' });
    // yauzl itself rejects such names while reading the directory, which lib/uploads/zip-archive.ts
    // reports as a damaged archive; either way it is refused before a byte is written.
    expect(traversal.status, traversal.text).toBe(422);
    expect(traversal.body.error).toMatch(/unsafe path: \.\.\/\.\.\/evil\.jpg|not a ZIP archive/);
    const absolute = await upload(c.as.operator, rawZip([{ name: 'a.jpg', data: a! }, { name: '/etc/cron.d/x.jpg', data: b! }]), { field_id: 'auto' });
    expect(absolute.status, absolute.text).toBe(422);
    expect(absolute.body.error).toMatch(/unsafe path|not a ZIP archive/);
    // 64 MB of zeros deflate to about 64 KB: a thousandfold.
    const bomb = await upload(c.as.operator, rawZip([{ name: 'a.jpg', data: a! }, { name: 'b.jpg', data: Buffer.alloc(64 * 1024 ** 2), deflate: true }]), { field_id: 'auto' });
    expect(bomb.status, bomb.text).toBe(422);
    expect(bomb.body.error).toMatch(/^The archive entry b\.jpg expands [\d,]+ times; this looks like a zip bomb$/);
    expect(existsSync(join(serverEnv().DATA_DIR!, '..', 'evil.jpg'))).toBe(false);
    await expectNothingKept(c);
  });

  it('an entry yauzl cannot read (BZip2, a damaged header, a file that is also a folder) answers 422 naming it; nothing is kept', async () => {
    const [a, b] = await plainJpegs();
    const bzip2 = await upload(c.as.operator, rawZip([{ name: 'a.jpg', data: a! }, { name: 'b.jpg', data: b!, method: 12 }]), { field_id: 'auto' });
    expect([bzip2.status, bzip2.body]).toEqual([
      422,
      { success: false, error: 'The archive entry b.jpg is compressed with a method that cannot be read (BZip2 (12)); save the archive with ordinary ZIP (Deflate) compression' },
    ]);
    const deflate64 = await upload(ru.as.operator, rawZip([{ name: 'a.jpg', data: a! }, { name: 'b.jpg', data: b!, method: 9 }]), { field_id: 'auto' });
    expect([deflate64.status, deflate64.body.error]).toEqual([422, 'Файл b.jpg в архиве сжат неподдерживаемым методом (Deflate64 (9)); сохраните архив с обычным сжатием ZIP (Deflate)']);
    const damaged = await upload(c.as.operator, rawZip([{ name: 'a.jpg', data: a! }, { name: 'b.jpg', data: b!, damagedLocalHeader: true }]), { field_id: 'auto' });
    expect([damaged.status, damaged.body]).toEqual([422, { success: false, error: 'The archive entry b.jpg is damaged' }]);
    const fileAndFolder = await upload(c.as.operator, rawZip([{ name: 'a.jpg', data: a! }, { name: 'a.jpg/b.jpg', data: b! }]), { field_id: 'auto' });
    expect([fileAndFolder.status, fileAndFolder.body]).toEqual([422, { success: false, error: 'The archive entry a.jpg/b.jpg is damaged' }]);
    await expectNothingKept(c);
    await expectNothingKept(ru);
    expect((await fetch(`${baseUrl()}/api/health`)).status).toBe(200);
  });

  it.skipIf(!!missingBrighton)('finds no field under the photos (422), a foreign or unknown field id is 404, a field far away 422', async () => {
    const two = await zipOf(brightonFiles().slice(0, 2));
    const none = await upload(ru.as.operator, two, { field_id: 'auto', crop_type: 'auto' });
    expect(none.status, none.text).toBe(422);
    expect(none.body).toEqual({ success: false, error: 'Не найдено поле, соответствующее координатам' });

    const photos = await Promise.all(brightonFiles().slice(0, 2).map((f) => readDroneExif(f)));
    const foreignField = (await stranger.as.owner.post('/api/fields', { name: 'Theirs', geometry: boxAround(surveyCentroids(photos), 30) })).body.id as number;
    const foreign = await upload(c.as.operator, two, { field_id: foreignField, crop_type: 'auto' });
    expect(foreign.status, foreign.text).toBe(404);
    expect((await upload(c.as.operator, two, { field_id: 999_999_999 })).status).toBe(404);
    // The data part sent as a file (curl -F data=@data.json) is read as the text it holds, not ignored.
    const asFile = await c.as.operator.upload('/api/drone/upload', {
      drone_images: { data: two, name: 'flight.zip', type: 'application/zip' },
      data: { data: JSON.stringify({ field_id: 999_999_999, crop_type: 'wheat' }), name: 'data.json', type: 'application/json' },
    });
    expect(asFile.status, asFile.text).toBe(404);
    // The company's own field that is nowhere near: the field id is found, the photos do not see it.
    const farId = (await c.as.owner.get('/api/fields')).body.features[0].id as number;
    const far = await upload(c.as.operator, two, { field_id: String(farId) });
    expect(far.status, far.text).toBe(422);
    expect(far.body.error).toBe('The photos do not cover the selected field');
    await expectNothingKept(c);
    await expectNothingKept(ru);
  });
});

describe.skipIf(!!missingSynthetic)('drone upload: generated multispectral surveys', () => {
  let c: TestCompany;
  beforeAll(async () => {
    c = await createCompany(baseUrl());
  });

  it('photos of two flights are refused at once', async () => {
    const t = await makeSyntheticSurvey({ naipPath: sharedPath(...NAIP), dir: join(tmp, 'mixed'), only: [0, 1, 2, 3], dateOf: (k) => (k < 2 ? '2024:06:15' : '2024:07:02') });
    const res = await upload(c.as.operator, await zipOf(t.files), { field_id: 'auto' });
    expect(res.status, res.text).toBe(422);
    expect(res.body.error).toMatch(/^The photos were taken on different days or in different flights/);
  });

  it('NDVI from NIR and Red: a user-named crop is kept, the automatic result beside it', async () => {
    // Six captures along the first line (4 band TIFFs each), 70 % forward overlap.
    const t = await makeSyntheticSurvey({ naipPath: sharedPath(...NAIP), dir: join(tmp, 'line'), only: [0, 1, 2, 3, 4, 5], gpsNoiseM: 3 });
    const field = t.fieldWgs84(200, 120, 600, 300);
    const fieldId = (await c.as.owner.post('/api/fields', { name: 'Synthetic', geometry: field })).body.id as number;
    const res = await upload(c.as.agronomist, await zipOf(t.files, { 'notes.txt': 'pilot: A.' }, 'survey/'), { field_id: 'auto', crop_type: 'Wheat' });
    expect(res.status, res.text).toBe(202);
    expect(res.body).toMatchObject({ success: true, field_id: fieldId, photos: 24, ignored_files: ['survey/notes.txt'] });
    const { last, seen } = await followDrone(c.as.agronomist, res.body.task_id, 120_000);
    expect(last.error, JSON.stringify(last)).toBeNull();
    expect(last).toMatchObject({ status: 'completed', progress: 'Done', percent: 100 });
    expect(seen.filter((s) => s === 'Vegetation index analysis')).toEqual([]);

    const cls = await c.as.viewer.get(`/api/scan/${res.body.scan_id}/classify`);
    expect(cls.status, cls.text).toBe(200);
    expect(cls.body).toMatchObject({ success: true, scan_id: res.body.scan_id, crop_type: 'wheat', confidence: 1, index: 'ndvi', details: { user_value: 'wheat' } });
    expect(CROPS).toContain(cls.body.details.automatic);
    // Going back to the classifier: its result and its confidence.
    const auto = await c.as.agronomist.put(`/api/scans/${res.body.scan_id}`, { crop_type: 'auto' });
    expect(auto.body.scan.classification).toMatchObject({ crop_type: cls.body.details.automatic, confidence: cls.body.details.top_candidates[0].score, details: { user_value: null } });
    // The field's scans list the classifier's crop too.
    expect(auto.body.scan.crop_type).toBe(cls.body.details.automatic);
    const truth = t.ndviInside(200, 120, 600, 300);
    expect(Math.abs(cls.body.ndvi_stats.mean - truth.mean), JSON.stringify({ got: cls.body.ndvi_stats, truth })).toBeLessThan(0.02);
  }, 180_000);

  it('photos that do not overlap pass the checks but end in the stitching error', async () => {
    const t = await makeSyntheticSurvey({ naipPath: sharedPath(...NAIP), dir: join(tmp, 'apart'), only: [0, 4] });
    const fieldId = (await c.as.owner.post('/api/fields', { name: 'Apart', geometry: t.fieldWgs84(0, 0, 800, 420) })).body.id as number;
    const res = await upload(c.as.operator, await zipOf(t.files), { field_id: fieldId, crop_type: 'auto' });
    expect(res.status, res.text).toBe(202);
    const { last } = await followDrone(c.as.operator, res.body.task_id, 120_000);
    expect(last.status).toBe('error');
    expect(last.error).toBe('Could not create the panorama: the photos barely overlap (60–80% is needed)');
    const scan = await c.as.operator.get(`/api/scans/${res.body.scan_id}`);
    expect(scan.body.scan.status).toBe('error');
    // The field's list of scans says why, and names the task.
    const [listed] = (await c.as.viewer.get(`/api/fields/${fieldId}/scans`)).body.scans;
    expect(listed).toMatchObject({ id: res.body.scan_id, status: 'error', task_id: res.body.task_id, error: last.error });
  }, 180_000);
});

describe.skipIf(!!missingBrighton)('brighton_beach end to end', () => {
  it('upload → 202 at once → status through the steps → georeferenced mosaic, index, zones and classification', async () => {
    const c = await createCompany(baseUrl());
    const files = brightonFiles();
    expect(files).toHaveLength(18);
    const photos = await Promise.all(files.map((f) => readDroneExif(f)));
    const centres = surveyCentroids(photos);
    const fieldId = (await c.as.owner.post('/api/fields', { name: 'Brighton beach', geometry: boxAround(centres, 10) })).body.id as number;
    await c.as.owner.post('/api/fields', { name: 'Neighbour', geometry: FAR_AWAY });

    // A photo zipped in twice (a copy in a subfolder) counts once and is named among the ignored files;
    // so is a frame without GPS (taken before the fix), which does not sink the survey, and so are
    // the thermal camera's shots beside the wide one's. A photo that matches no other is named once
    // the task has left it apart.
    const [noFix] = await plainJpegs();
    const thermal: Record<string, Buffer> = {};
    for (const wide of files.slice(0, 3)) {
      const name = wide.split('/').at(-1)!.replace('.JPG', '_T.JPG');
      await writeThermalShot(wide, join(tmp, name));
      thermal[name] = readFileSync(join(tmp, name));
    }
    await writeStrayShot(files[8]!, join(tmp, 'DJI_0026b.JPG'));
    const apart = { 'DJI_0026b.JPG': readFileSync(join(tmp, 'DJI_0026b.JPG')) };
    const zip = await zipOf(files, { 'flight.log': 'DJI GO', 'copy/DJI_0018.JPG': readFileSync(files[0]!), 'IMG_nofix.jpg': noFix!, ...thermal, ...apart }, 'images/');
    const t0 = Date.now();
    // At 3.5 cm rather than the photos' own 1.7 cm (90 MP): the test must fit a busy machine; the bench
    // times the native resolution.
    const res = await upload(c.as.operator, zip, { field_id: 'auto', crop_type: 'auto', resolution_cm: 3.5 });
    const answeredMs = Date.now() - t0;
    expect(res.status, res.text).toBe(202);
    expect(res.body).toEqual({
      success: true,
      message: 'Photos accepted, processing started',
      task_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      field_id: fieldId,
      scan_id: expect.any(Number),
      estimated_time: expect.stringMatching(/^about \d+ min$/),
      estimated_seconds: expect.any(Number),
      photos: 19,
      ignored_files: ['images/flight.log', 'images/copy/DJI_0018.JPG', 'images/IMG_nofix.jpg', ...Object.keys(thermal).map((f) => `images/${f}`)],
    });
    // It answered before processing: the scan exists at once and is still being processed (the
    // mosaic takes many seconds; the time of the answer is measured by the bench, not asserted).
    const early = await c.as.viewer.get(`/api/scans/${res.body.scan_id}`);
    expect(early.body.scan).toMatchObject({ source: 'drone', status: 'processing' });
    // The field's scans name its task, whose progress the field page follows.
    const listed = (await c.as.viewer.get(`/api/fields/${fieldId}/scans`)).body.scans as { id: number; status: string; task_id?: string }[];
    expect(listed.find((s) => s.id === res.body.scan_id)).toMatchObject({ status: 'processing', task_id: res.body.task_id });
    // Nor can it be deleted while its task works on it.
    const busy = await c.as.owner.del(`/api/scans/${res.body.scan_id}`);
    expect(busy.status).toBe(409);
    expect(busy.body.error).toBe('This scan is still being processed: it can be deleted once its processing ends.');
    // Nor its field, which would take the task's record with it.
    expect((await c.as.owner.del(`/api/fields/${fieldId}`)).status).toBe(409);
    // Nor can its date be set: processing writes the photos' own.
    const dating = await c.as.operator.put(`/api/scans/${res.body.scan_id}`, { captured_at: '2020-01-01' });
    expect(dating.status).toBe(409);
    expect(dating.body.error).toBe('This scan is still being processed: its capture date can be changed once its processing ends.');

    const started = Date.now();
    const { last, seen } = await followDrone(c.as.viewer, res.body.task_id, 240_000);
    console.log(`brighton_beach through the API: answered in ${answeredMs} ms, processed in ${((Date.now() - started) / 1000).toFixed(1)} s; steps: ${seen.join(' → ')}`);
    expect(last.error, JSON.stringify(last)).toBeNull();
    expect(last).toMatchObject({ task_id: res.body.task_id, status: 'completed', progress: 'Done', percent: 100, scan_id: res.body.scan_id });
    expect(seen).toContain('Stitching images');
    // RGB photos: the index is VARI, and the progress never calls it NDVI.
    expect(seen).not.toContain('NDVI analysis');
    expect(seen.at(-1)).toBe('Done');

    // The generic task endpoint tells the same story.
    const task = await c.as.viewer.get(`/api/tasks/${res.body.task_id}`);
    const ignored = ['images/flight.log', 'images/copy/DJI_0018.JPG', 'images/IMG_nofix.jpg', ...Object.keys(thermal).map((f) => `images/${f}`), 'images/DJI_0026b.JPG'];
    expect(task.body).toMatchObject({ status: 'completed', result: { scan_id: res.body.scan_id, zones_created: expect.any(Number), ignored_files: ignored } });
    // So does the company's task list, which is where an operator looks a day later.
    const tasks = (await c.as.viewer.get('/api/tasks?kind=drone')).body.tasks as { task_id: string; result: { ignored_files?: string[] } | null }[];
    expect(tasks.find((t) => t.task_id === res.body.task_id)?.result?.ignored_files).toEqual(ignored);

    const scan = (await c.as.viewer.get(`/api/scans/${res.body.scan_id}`)).body.scan;
    expect(scan).toMatchObject({ source: 'drone', status: 'completed', index: 'vari', field_id: fieldId, file_name: 'flight.zip', captured_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/) });
    // The processing's details join the upload's: the photos it left out are still named.
    expect(scan.details).toMatchObject({ photos: 18, ignored_files: ignored, field_coverage: expect.any(Number) });
    // No crop was named: the scan's crop is the classifier's.
    expect(scan.classification).toMatchObject({ crop_type: scan.crop_type, details: { user_value: null } });
    expect(scan.details).toMatchObject({ photos: 18, crs: 'EPSG:32615' });
    expect(scan.details.gsd_m).toBeCloseTo(0.035, 9);
    // Issue 10's target: the seams re-matched in the output (DRONE_SEAM_CHECK=1 on the test server),
    // and the sampled check every scan stores (docs/drone.md).
    expect(scan.details.worst_seam_px).toBeGreaterThanOrEqual(scan.details.median_misalignment_px);
    expect(scan.details.seam_p95_px).toBeGreaterThanOrEqual(scan.details.median_misalignment_px);
    expect(scan.details.seam_check.matches).toBeGreaterThan(1000);
    expect(scan.details.seam_check.median_px).toBeGreaterThan(0);
    expect(scan.details.seam_check.median_px).toBeLessThanOrEqual(3);
    expect(scan.details.median_misalignment_px).toBeGreaterThan(0);
    expect(scan.details.median_misalignment_px).toBeLessThanOrEqual(3);
    expect(scan.zones.features.length).toBeGreaterThanOrEqual(3);
    // Zoned on 1 m cells, not on the 3-10 cm pixels (36,633 points then): a terminal can take them.
    const points = scan.zones.features.flatMap((z: { geometry: { type: string; coordinates: unknown[] } }) => z.geometry.coordinates.flat(z.geometry.type === 'Polygon' ? 1 : 2));
    expect(points.length).toBeLessThan(5000);
    // The mosaic is placed on the map: its bounds hold every photo centre.
    const [[south, west], [north, east]] = scan.preview.bounds as [[number, number], [number, number]];
    for (const [lon, lat] of centres) {
      expect(lon).toBeGreaterThan(west);
      expect(lon).toBeLessThan(east);
      expect(lat).toBeGreaterThan(south);
      expect(lat).toBeLessThan(north);
    }
    const png = await fetch(`${baseUrl()}${scan.preview.url}`, { headers: { cookie: `session_token=${c.as.viewer.cookie}` } });
    expect(png.headers.get('content-type')).toBe('image/png');
    const pngBytes = Buffer.from(await png.arrayBuffer());
    const meta = await sharp(pngBytes).metadata();
    expect(meta.width! * meta.height!).toBeGreaterThan(100_000);
    // The preview, laid on the map by its bounds, shows what ODM reconstructed where ODM puts it
    // (as tests/unit/drone/drone-ortho.test.ts checks on the GeoTIFF).
    const cloud = await lasTopView(sharedPath('drone', 'brighton_beach', 'model.laz'), 0.2);
    const { data: preview, info } = await sharp(pngBytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    const frame = utmFrame(-92, 46.84);
    const rgb = new Uint8Array(cloud.width * cloud.height * 3), filled = new Uint8Array(cloud.width * cloud.height);
    for (let r = 0; r < cloud.height; r++) {
      for (let col = 0; col < cloud.width; col++) {
        const [lon, lat] = frame.toWgs84(cloud.x0 + (col + 0.5) * cloud.cell, cloud.y0 - (r + 0.5) * cloud.cell);
        const x = Math.floor(((lon - west) / (east - west)) * info.width), y = Math.floor(((north - lat) / (north - south)) * info.height);
        if (x < 0 || y < 0 || x >= info.width || y >= info.height || preview[(y * info.width + x) * 4 + 3] !== 255) continue;
        const k = r * cloud.width + col;
        for (let b = 0; b < 3; b++) rgb[3 * k + b] = preview[(y * info.width + x) * 4 + b]!;
        filled[k] = 255;
      }
    }
    const agreement = await agreementWithCloud(cloud, rgb, filled);
    console.log(`brighton_beach preview vs ODM: ${agreement.used} of ${agreement.matches} matches, extent corners moved ${agreement.cornersM.map((d) => d.toFixed(2)).join(', ')} m`);
    expect(agreement.used).toBeGreaterThan(100);
    expect(Math.max(...agreement.cornersM)).toBeLessThan(5);

    // The statistics give the index's range; nothing in the scan names a file on the server.
    expect(scan.stats.min).toBeGreaterThanOrEqual(-1);
    expect(scan.stats.min).toBeLessThan(scan.stats.median);
    expect(scan.stats.max).toBeGreaterThan(scan.stats.median);
    expect(scan.stats.max).toBeLessThanOrEqual(1);
    expect(JSON.stringify(scan)).not.toContain(serverEnv().DATA_DIR!);
    // The scan's folder keeps the two GeoTIFFs and the preview; the raw mosaic the analysis read is gone.
    const scanDir = join(serverEnv().DATA_DIR!, 'companies', String(c.id), 'tasks', res.body.task_id);
    expect(readdirSync(scanDir).sort()).toEqual(['mosaic.tif', 'preview.png', 'vari.tif']);
    // Both download as GeoTIFFs in the survey's UTM zone, under the field's name and the flight's day,
    // and the photos' centres lie on the orthomosaic.
    const geotiff = async (kind: string) => {
      const file = await fetch(`${baseUrl()}/api/scan/${res.body.scan_id}/export/${kind}`, { headers: { cookie: `session_token=${c.as.operator.cookie}` } });
      expect(file.status).toBe(200);
      expect(file.headers.get('content-type')).toBe('image/tiff');
      expect(file.headers.get('content-disposition')).toContain(`filename*=UTF-8''Brighton%20beach_${scan.captured_at.slice(0, 10)}_${kind === 'index' ? 'vari' : kind}.tif`);
      const size = statSync(join(scanDir, kind === 'index' ? 'vari.tif' : 'mosaic.tif')).size;
      // The size is announced, so that the browser shows how much of it is left.
      expect(file.headers.get('content-length')).toBe(String(size));
      const bytes = await file.arrayBuffer();
      expect(bytes.byteLength).toBe(size);
      return (await fromArrayBuffer(bytes)).getImage();
    };
    const ortho = await geotiff('orthomosaic');
    expect(ortho.getGeoKeys()?.ProjectedCSTypeGeoKey).toBe(32615);
    expect(ortho.getSamplesPerPixel()).toBe(3); // RGB in YCbCr JPEG; the alpha is the COG's mask
    const [minE, minN, maxE, maxN] = ortho.getBoundingBox();
    for (const [lon, lat] of centres) {
      const [e, n] = utmFrame(lon, lat).toUtm(lon, lat);
      expect(e).toBeGreaterThan(minE!);
      expect(e).toBeLessThan(maxE!);
      expect(n).toBeGreaterThan(minN!);
      expect(n).toBeLessThan(maxN!);
    }
    const index = await geotiff('index');
    expect(index.getGeoKeys()?.ProjectedCSTypeGeoKey).toBe(32615);
    expect(index.getSamplesPerPixel()).toBe(1);
    expect(index.getSampleFormat()).toBe(3); // IEEE floating point

    const cls = await c.as.viewer.get(`/api/scan/${res.body.scan_id}/classify`);
    expect(cls.status, cls.text).toBe(200);
    const body = cls.body;
    expect(body).toMatchObject({ success: true, scan_id: res.body.scan_id, index: 'vari', crop_type: expect.any(String), confidence: expect.any(Number) });
    expect(CROPS).toContain(body.crop_type);
    expect(body.details.top_candidates).toHaveLength(8);
    expect(body.details.top_candidates.map((x: { crop: string }) => x.crop).sort()).toEqual([...CROPS].sort());
    const scores = body.details.top_candidates.map((x: { score: number }) => x.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(body.confidence).toBe(scores[0]);
    expect(body.details.top_candidates[0].crop).toBe(body.crop_type);
    expect(scores.reduce((s: number, x: number) => s + x, 0)).toBeCloseTo(1, 2);
    expect(body.ndvi_stats).toEqual({ mean: expect.any(Number), std: expect.any(Number), median: expect.any(Number) });
    expect(body.ndvi_stats.mean).toBeGreaterThanOrEqual(-1);
    expect(body.ndvi_stats.mean).toBeLessThanOrEqual(1);

    // A capture date corrected (a drone's clock may be wrong) classifies the crop again, the season
    // being one of its inputs; put back, the guess is the one processing made.
    const winter = await c.as.operator.put(`/api/scans/${res.body.scan_id}`, { captured_at: '2017-01-15' });
    expect(winter.status, winter.text).toBe(200);
    const inWinter = (await c.as.viewer.get(`/api/scan/${res.body.scan_id}/classify`)).body;
    expect(inWinter.details.top_candidates).not.toEqual(body.details.top_candidates);
    expect((await c.as.operator.put(`/api/scans/${res.body.scan_id}`, { captured_at: scan.captured_at })).status).toBe(200);
    expect((await c.as.viewer.get(`/api/scan/${res.body.scan_id}/classify`)).body).toEqual(body);

    // Its zones made again from its index GeoTIFF, in three equal intervals (small patches merged, so
    // perhaps fewer classes are left): the mosaic, the index statistics and the classification stay.
    expect(scan.details.zoning).toMatchObject({ zones: 5, method: 'jenks', min_zone_area_ha: 0.05, zones_made: scan.zones.features.length });
    const rezone = await c.as.operator.post(`/api/scans/${res.body.scan_id}/zones`, { zones: 3, method: 'equal' });
    expect(rezone.status, rezone.text).toBe(202);
    expect(await waitForTask(c.as.operator, rezone.body.task_id)).toMatchObject({ status: 'completed', result: { scan_id: res.body.scan_id } });
    const rezoned = (await c.as.viewer.get(`/api/scans/${res.body.scan_id}`)).body.scan;
    expect(rezoned.details.zoning).toMatchObject({ zones: 3, method: 'equal', min_zone_area_ha: 0.05 });
    expect(rezoned.zones.features.length).toBeGreaterThanOrEqual(1);
    expect(rezoned.zones.features.every((z: { properties: { class: number } }) => z.properties.class <= 3)).toBe(true);
    expect(rezoned).toMatchObject({ stats: scan.stats, histogram: scan.histogram, preview: scan.preview, classification: scan.classification, details: { photos: 18, seam_check: scan.details.seam_check } });
    expect(existsSync(scanDir)).toBe(true);

    // Another company sees none of it.
    const other = await createCompany(baseUrl());
    for (const path of [`/api/drone/orthomosaic/status/${res.body.task_id}`, `/api/scan/${res.body.scan_id}/classify`, `/api/scans/${res.body.scan_id}`, `/api/scan/${res.body.scan_id}/export/orthomosaic`]) {
      expect((await other.as.owner.get(path)).status, path).toBe(404);
    }
    // A zip's photos stay with the field's files, one folder per survey: those the upload accepted,
    // the one the mosaic left apart among them.
    const kept = join(serverEnv().DATA_DIR!, 'companies', String(c.id), 'fields', String(fieldId), 'drone', res.body.task_id, 'images');
    expect(readdirSync(kept).sort()).toEqual([...files.map((f) => f.split('/').at(-1)), ...Object.keys(apart)].sort());
    expect(readFileSync(join(kept, 'DJI_0018.JPG')).equals(readFileSync(files[0]!))).toBe(true);
    // Deleting the scan removes its photos, mosaic and index.
    expect((await c.as.owner.del(`/api/scans/${res.body.scan_id}`)).status).toBe(200);
    expect(existsSync(join(kept, '..'))).toBe(false);
    expect(existsSync(scanDir)).toBe(false);
  }, 900_000);
});
