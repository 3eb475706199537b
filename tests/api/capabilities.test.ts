// A server on a machine without GDAL's command-line tools (issue 37): it says so in /api/health, refuses
// a drone upload at once (503 naming the Debian package, before the archive is read) and serves the rest.
import { existsSync, mkdtempSync, readFileSync, readdirSync, symlinkSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findOnPath } from '@/lib/capabilities';
import type { ScratchDb } from '@/lib/db/scratch';
import { Api } from '../helpers/api';
import { registerCompany } from '../helpers/company';
import { baseUrl, scratchOfThisPass } from '../helpers/context';
import { type TestServer, startServer } from '../helpers/server';
import { ogr2ogrAvailable, shapefileZip, square } from '../helpers/shapefile-zip';
import { emptyRedisDb, redisAvailable, startWorker } from '../helpers/worker';
import en from '../../messages/en.json';
import ru from '../../messages/ru.json';
import sk from '../../messages/sk.json';

/** This machine's PATH as one folder of links to every program on it but GDAL's. */
function pathWithoutGdal(): string {
  const dir = mkdtempSync(join(tmpdir(), 'no-gdal-path-'));
  for (const folder of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      continue;
    }
    for (const name of names) {
      if (/^(gdal|ogr)/.test(name)) continue;
      try {
        symlinkSync(join(folder, name), join(dir, name));
      } catch {
        // an earlier folder had it: the shell would have taken that one too
      }
    }
  }
  return dir;
}

const LANGS = { en, ru, sk } as const;
const REDIS_BASE = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const redis = await redisAvailable(REDIS_BASE);
if (!redis) console.warn(`skipping the worker without GDAL: no Redis at ${REDIS_BASE}`);

it.skipIf(!findOnPath('gdal_translate'))('a server with GDAL on its PATH reports every feature available', async () => {
  const res = await new Api(baseUrl()).get('/api/health');
  expect(res.body.capabilities).toEqual({ drone: true, raster: true });
  expect(res.body.capabilities_missing).toBeUndefined();
});

describe('a server whose PATH lacks the GDAL tools', () => {
  let scratch: ScratchDb;
  let server: TestServer;
  const path = pathWithoutGdal();
  const logFile = join(mkdtempSync(join(tmpdir(), 'no-gdal-log-')), 'server.log');

  beforeAll(async () => {
    scratch = await scratchOfThisPass();
    server = await startServer({ env: { ...scratch.env, PATH: path }, logFile });
  });
  afterAll(async () => {
    await server?.stop();
    await scratch?.drop();
  });

  it('the PATH given really lacks gdal_translate and still has node', () => {
    expect(findOnPath('gdal_translate', path)).toBeUndefined();
    expect(findOnPath('node', path)).toBeDefined();
  });

  it('says at start what it cannot do', () => {
    expect(readFileSync(logFile, 'utf8')).toContain('Fieldmap: drone unavailable: gdal_translate not found on PATH: install the Debian package gdal-bin');
  });

  it.skipIf(!redis)('a BullMQ worker on that PATH says so and leaves drone jobs to other workers', async () => {
    const worker = await startWorker({ ...scratch.env, PATH: path, REDIS_URL: await emptyRedisDb(REDIS_BASE), DATA_DIR: server.dataDir });
    try {
      expect(worker.output()).toContain('feature unavailable on this machine');
      expect(worker.output()).toContain('"queues":["raster_zones","rezone"]');
    } finally {
      await worker.stop();
    }
  });

  it('says in /api/health that drone surveys are unavailable, and why', async () => {
    const res = await new Api(server.url).get('/api/health');
    expect(res.status).toBe(200);
    expect(res.body.capabilities).toEqual({ drone: false, raster: true });
    expect(res.body.capabilities_missing.drone).toContain('gdal_translate');
    expect(res.body.capabilities_missing.drone).toContain('apt-get install gdal-bin');
  });

  it('refuses a drone upload with 503 naming gdal-bin, in the user language, before the archive has been sent whole', async () => {
    for (const [language, messages] of Object.entries(LANGS)) {
      const { api } = await registerCompany(server.url, { language });
      const field = (await api.post('/api/fields', { name: 'F', geometry: square(20, 48) })).body.id as number;
      // The request's body is left open: the answer must come without it.
      const answer = await new Promise<{ status: number; body: any; connection?: string }>((resolve, reject) => {
        const boundary = 'fieldmap-boundary';
        const req = request(`${server.url}/api/drone/upload`, {
          method: 'POST',
          headers: { cookie: `session_token=${api.cookie}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(1024 * 1024 * 1024) },
        });
        req.on('response', (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => {
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), connection: res.headers.connection });
            req.destroy();
          });
        });
        req.on('error', reject);
        req.write(`--${boundary}\r\nContent-Disposition: form-data; name="data"\r\n\r\n${JSON.stringify({ field_id: field, crop_type: 'auto' })}\r\n`);
        req.write(`--${boundary}\r\nContent-Disposition: form-data; name="drone_images"; filename="flight.zip"\r\nContent-Type: application/zip\r\n\r\nPK\u0003\u0004`);
      });
      expect(answer.status).toBe(503);
      expect(answer.connection).toBe('close');
      expect(answer.body).toEqual({ success: false, error: messages.errors.drone_unavailable.replaceAll('{package}', 'gdal-bin') });
      expect(answer.body.error).toContain('gdal-bin');
      // Nothing was stored: no upload in the data folder, no task.
      const tmp = join(server.dataDir, 'tmp');
      expect(existsSync(tmp) ? readdirSync(tmp, { recursive: true }) : []).toEqual([]);
      expect((await api.get('/api/tasks')).body.tasks ?? []).toEqual([]);
    }
  });

  it('a whole small archive sent the ordinary way is refused the same', async () => {
    const { api } = await registerCompany(server.url);
    const zip = new JSZip();
    zip.file('a.jpg', new Uint8Array([0xff, 0xd8, 0xff, 0xd9]));
    const res = await api.upload('/api/drone/upload', {
      drone_images: { data: await zip.generateAsync({ type: 'uint8array' }), name: 'flight.zip', type: 'application/zip' },
      data: JSON.stringify({ field_id: 1, crop_type: 'auto' }),
    });
    expect(res.status).toBe(503);
    expect(res.body.error).toContain('apt-get install gdal-bin');
  });

  it.skipIf(!ogr2ogrAvailable())('still serves fields, shapefile imports and exports', async () => {
    const { api } = await registerCompany(server.url);
    const created = await api.post('/api/fields', { name: 'Drawn', geometry: square(21, 48, 300) });
    expect(created.status, created.text).toBe(201);
    const shp = await shapefileZip({ features: [{ geometry: square(21.01, 48, 200), properties: { name: 'Imported' } }] });
    const imported = await api.upload('/upload', { shapefile_zip: { data: shp, name: 'fields.zip', type: 'application/zip' } });
    expect(imported.status, imported.text).toBe(200);
    const list = (await api.get('/api/fields')).body;
    expect(list.features.map((f: { properties: { name: string } }) => f.properties.name).sort()).toEqual(['Drawn', 'Imported']);
    const kmz = await api.get(`/api/field/export/kmz/${created.body.id}`);
    expect(kmz.status).toBe(200);
    expect(kmz.headers.get('content-type')).toContain('kmz');
    const pdf = await api.get(`/api/field/export/pdf/${created.body.id}`);
    expect(pdf.status).toBe(200);
    expect(pdf.text.startsWith('%PDF')).toBe(true);
  });
});
