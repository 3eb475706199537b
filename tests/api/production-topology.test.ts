// The production topology of docker-compose.yml without Docker (issue 37): Debian's nginx with the
// repository's deploy/nginx.conf (ports substituted) in front of two web processes and two BullMQ
// workers on this machine's PostgreSQL and Redis. Everything goes through nginx. Runs in the
// PostgreSQL pass when Redis answers and nginx is installed.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as turf from '@turf/turf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { findOnPath } from '@/lib/capabilities';
import { createDb } from '@/lib/db/client';
import { type ScratchDb, scratchPostgres } from '@/lib/db/scratch';
import { readDroneExif } from '@/lib/drone/exif';
import { surveyCentroids } from '@/lib/drone/survey';
import { Api } from '../helpers/api';
import { PASSWORD, registerCompany } from '../helpers/company';
import { dbKind } from '../helpers/context';
import { type TestServer, freePort, startServer, statusOnNewConnection } from '../helpers/server';
import { missingShared, sharedPath } from '../helpers/shared-data';
import { ogr2ogrAvailable, shapefileZip, square } from '../helpers/shapefile-zip';
import { waitForTask } from '../helpers/tasks';
import { type TestWorker, emptyRedisDb, redisAvailable, startWorker } from '../helpers/worker';

const ROOT = join(import.meta.dirname, '..', '..');
const REDIS_BASE = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const NAIP = ['raster', 'naip', 'm_4709963_se_14_1_20190904.tif'] as const;
const NAIP_FIELD = { type: 'Polygon', coordinates: [[[-99.17, 47.01], [-99.14, 47.01], [-99.14, 47.03], [-99.17, 47.03], [-99.17, 47.01]]] };
const BRIGHTON = ['drone', 'brighton_beach', 'images'] as const;
const nginx = findOnPath('nginx', `${process.env.PATH}:/usr/sbin:/sbin`);

const reason =
  dbKind() !== 'postgresql'
    ? 'the production topology runs in the PostgreSQL pass'
    : !(await redisAvailable(REDIS_BASE))
      ? `no Redis at ${REDIS_BASE}`
      : !nginx
        ? 'nginx is not installed (apt-get install nginx; make test does)'
        : !ogr2ogrAvailable()
          ? 'ogr2ogr is not installed (gdal-bin): the shapefile cannot be written'
          : missingShared(...NAIP);
if (reason) console.warn(`skipping the production-topology tests: ${reason}`);
const missingBrighton = missingShared(...BRIGHTON);
if (!reason && missingBrighton) console.warn(`skipping the drone survey through nginx: ${missingBrighton}`);

/** deploy/nginx.conf as this machine runs it: the two web processes' ports for `web:3000`, a free port for 80. */
function nginxConf(webs: TestServer[], port: number): string {
  const conf = readFileSync(join(ROOT, 'deploy/nginx.conf'), 'utf8');
  const local = conf
    .replace('server web:3000;', webs.map((w) => `server 127.0.0.1:${w.port};`).join('\n    '))
    .replace('listen 80;', `listen 127.0.0.1:${port};`);
  expect(local).not.toContain('web:3000');
  expect(local).toContain(`listen 127.0.0.1:${port};`);
  return local;
}

async function startNginx(conf: string, port: number): Promise<ChildProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'topology-nginx-'));
  writeFileSync(join(dir, 'nginx.conf'), conf);
  const proc = spawn(nginx!, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', `daemon off; pid ${dir}/nginx.pid; error_log ${dir}/error.log;`], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stderr?.on('data', (b: Buffer) => (out += b.toString()));
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`nginx exited (${proc.exitCode}): ${out}`);
    try {
      if ((await statusOnNewConnection(`http://127.0.0.1:${port}/api/health`)) === 200) return proc;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`nginx did not answer: ${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A sign-in through nginx from a local address of our choice (nginx sees it as the caller), claiming another in X-Forwarded-For. */
function loginFrom(port: number, localAddress: string, email: string, password: string, claimed: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ email, password });
    const req = request(
      { host: '127.0.0.1', port, path: '/api/auth/login', method: 'POST', localAddress, agent: false, headers: { 'content-type': 'application/json', 'x-forwarded-for': claimed, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The brighton_beach photos as one ZIP (stored: JPEGs do not deflate). */
function brightonZip(files: string[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const f of files) zip.addFile(f, f.split('/').at(-1)!, { compress: false });
  zip.end();
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks))).on('error', reject);
  });
}

describe.skipIf(!!reason)('nginx with deploy/nginx.conf, two web processes, two workers, PostgreSQL and Redis', () => {
  let scratch: ScratchDb;
  let proxy: ChildProcess;
  let port: number;
  let url: string;
  const webs: TestServer[] = [];
  const workers: TestWorker[] = [];

  beforeAll(async () => {
    scratch = await scratchPostgres();
    const dataDir = mkdtempSync(join(tmpdir(), 'topology-'));
    // As docker-compose.yml sets them: one Redis, one database, one data folder, nginx trusted once.
    const env = { ...scratch.env, REDIS_URL: await emptyRedisDb(REDIS_BASE), DATA_DIR: dataDir, SESSION_SECRET: 'topology-secret-0123456789', TRUSTED_PROXIES: '1' };
    webs.push(await startServer({ env, dataDir }), await startServer({ env, dataDir }));
    workers.push(await startWorker(env), await startWorker(env));
    port = await freePort();
    proxy = await startNginx(nginxConf(webs, port), port);
    url = `http://127.0.0.1:${port}`;
  }, 300_000);

  afterAll(async () => {
    if (proxy && proxy.exitCode === null) {
      const exited = new Promise((r) => proxy.once('exit', r));
      proxy.kill('SIGQUIT');
      await exited;
    }
    await Promise.all([...webs.map((w) => w.stop()), ...workers.map((w) => w.stop())]);
    await scratch?.drop();
  });

  it('answers the health check through nginx: PostgreSQL, Redis, two workers, every capability', async () => {
    const res = await new Api(url).get('/api/health');
    expect(res.body).toMatchObject({ success: true, database: 'postgresql', queue: 'redis', workers: 2, capabilities: { drone: true, raster: true } });
  });

  it('signs in, imports a shapefile and zones a raster through nginx, with caching headers passed through', async () => {
    const { email } = await registerCompany(url);
    const api = new Api(url);
    const login = await api.post('/api/auth/login', { email, password: PASSWORD });
    expect(login.status, login.text).toBe(200);
    expect((await api.get('/api/auth/profile')).body.user.email).toBe(email);

    const shp = await shapefileZip({ features: [{ geometry: square(17.1, 48.1, 300), properties: { name: 'Imported' } }] });
    const imported = await api.upload('/upload', { shapefile_zip: { data: shp, name: 'fields.zip', type: 'application/zip' } });
    expect(imported.status, imported.text).toBe(200);
    expect((await api.get('/api/fields')).body.features.map((f: { properties: { name: string } }) => f.properties.name)).toEqual(['Imported']);

    await api.post('/api/fields', { name: 'NAIP', geometry: NAIP_FIELD });
    const zoning = await api.upload('/upload', { raster_file: { file: sharedPath(...NAIP), name: 'naip.tif', type: 'image/tiff' }, zones: '4' });
    expect(zoning.status, zoning.text).toBe(202);
    const task = await waitForTask(api, zoning.body.task_id, 600_000);
    expect(task.status, JSON.stringify(task.error)).toBe('completed');
    const scanId = task.result.scan_id as number;
    expect((await api.get(`/api/scans/${scanId}`)).body.scan.details.zoning).toMatchObject({ zones: 4 });

    // The scan's picture keeps the web process's caching header; JSON is compressed.
    const direct = new Api(webs[0]!.url);
    direct.cookie = api.cookie;
    const preview = await api.get(`/api/scans/${scanId}/preview.png`);
    expect(preview.status).toBe(200);
    expect(preview.headers.get('cache-control')).toBe((await direct.get(`/api/scans/${scanId}/preview.png`)).headers.get('cache-control'));
    expect(preview.headers.get('cache-control')).toContain('max-age=');
    const list = await fetch(`${url}/api/fields`, { headers: { cookie: `session_token=${api.cookie}`, 'accept-encoding': 'gzip' } });
    expect(list.headers.get('content-encoding')).toBe('gzip');
  }, 900_000);

  it('counts sign-in failures by the address nginx saw, whatever the client wrote in X-Forwarded-For', async () => {
    const { email } = await registerCompany(url);
    // Five failures from 127.0.0.2, each claiming another address: the sixth is refused all the same.
    for (let i = 0; i < 5; i++) expect(await loginFrom(port, '127.0.0.2', email, 'wrong password', `203.0.113.${i + 1}`)).toBe(401);
    expect(await loginFrom(port, '127.0.0.2', email, PASSWORD, '203.0.113.99')).toBe(429);
    // The failures were recorded under that address, none under a claimed one.
    const db = createDb(scratch.target);
    const ips = (await db.loginAttempt.findMany({ where: { email }, select: { ip: true } })).map((a) => a.ip);
    await db.$disconnect();
    expect(ips).toEqual(Array(5).fill('127.0.0.2'));
    // Another address nginx sees may still sign in.
    expect(await loginFrom(port, '127.0.0.3', email, PASSWORD, '203.0.113.1')).toBe(200);
  });

  it.skipIf(!!missingBrighton)('runs the brighton_beach survey through nginx; a worker killed mid-survey, the other completes it', async () => {
    const files = readdirSync(sharedPath(...BRIGHTON)).filter((f) => /\.jpe?g$/i.test(f)).sort().map((f) => sharedPath(...BRIGHTON, f));
    const centres = surveyCentroids(await Promise.all(files.map((f) => readDroneExif(f))));
    const field = turf.buffer(turf.bboxPolygon(turf.bbox(turf.multiPoint(centres))), 10, { units: 'meters' })!.geometry;
    const { api } = await registerCompany(url);
    const fieldId = (await api.post('/api/fields', { name: 'Brighton beach', geometry: field })).body.id as number;
    const res = await api.upload('/api/drone/upload', {
      drone_images: { data: await brightonZip(files), name: 'brighton.zip', type: 'application/zip' },
      data: JSON.stringify({ field_id: fieldId, crop_type: 'auto' }),
    });
    expect(res.status, res.text).toBe(202);
    expect(res.body).toMatchObject({ field_id: fieldId, photos: 18 });

    // Mid-survey: a worker holds it and has reported progress. That worker is killed.
    const db = createDb(scratch.target);
    const runners = new Set<string>();
    let victim: TestWorker | undefined;
    for (let i = 0; i < 6000 && !victim; i++) {
      const row = await db.task.findUniqueOrThrow({ where: { id: res.body.task_id } });
      if (row.status === 'running' && row.lockedBy && row.percent > 0) {
        runners.add(row.lockedBy);
        victim = workers.find((w) => w.proc.pid === Number(/worker-(\d+)-/.exec(row.lockedBy!)?.[1]));
      } else {
        expect(row.status, row.error ?? '').not.toMatch(/completed|error/);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    expect(victim, 'a worker process runs the survey').toBeDefined();
    await victim!.stop('SIGKILL');

    let status: { status: string; error: string | null } = { status: 'processing', error: null };
    while (!['completed', 'error'].includes(status.status)) {
      status = (await api.get(`/api/drone/orthomosaic/status/${res.body.task_id}`)).body;
      const lockedBy = (await db.task.findUniqueOrThrow({ where: { id: res.body.task_id } })).lockedBy;
      if (lockedBy) runners.add(lockedBy);
      await new Promise((r) => setTimeout(r, 250));
    }
    const row = await db.task.findUniqueOrThrow({ where: { id: res.body.task_id } });
    await db.$disconnect();
    expect(status).toMatchObject({ status: 'completed', error: null });
    expect(row.attempts).toBe(2);
    // Run by both worker processes in turn, never by a web process.
    expect(runners.size, [...runners].join()).toBe(2);
    expect([...runners].every((r) => /^worker-\d+-/.test(r))).toBe(true);
    expect((await api.get(`/api/scan/${res.body.scan_id}/classify`)).body).toMatchObject({ success: true });
    const mosaic = await api.get(`/api/scan/${res.body.scan_id}/export/orthomosaic`);
    expect(mosaic.status).toBe(200);
  }, 1_800_000);
});
