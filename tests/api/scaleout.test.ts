// Scale-out (issue 8): two web processes and two BullMQ worker processes sharing PostgreSQL, Redis
// and one data folder. Runs in the PostgreSQL pass when Redis answers.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import JSZip from 'jszip';
import { Queue } from 'bullmq';
import IORedis from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '@/lib/db/client';
import { type ScratchDb, scratchPostgres } from '@/lib/db/scratch';
import { Api } from '../helpers/api';
import { registerCompany } from '../helpers/company';
import { dbKind } from '../helpers/context';
import { type TestServer, freePort, startServer } from '../helpers/server';
import { missingShared, sharedPath } from '../helpers/shared-data';
import { type TestWorker, emptyRedisDb, redisAvailable, startWorker } from '../helpers/worker';
import { makeSyntheticSurvey } from '../helpers/synthetic-survey';
import { waitForTask } from '../helpers/tasks';
import en from '../../messages/en.json';

const REDIS_BASE = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const NAIP = ['raster', 'naip', 'm_4709963_se_14_1_20190904.tif'] as const;
const FIELD = { type: 'Polygon', coordinates: [[[-99.17, 47.01], [-99.14, 47.01], [-99.14, 47.03], [-99.17, 47.03], [-99.17, 47.01]]] };

const reason =
  dbKind() !== 'postgresql' ? 'scale-out runs in the PostgreSQL pass' : !(await redisAvailable(REDIS_BASE)) ? `no Redis at ${REDIS_BASE}` : missingShared(...NAIP);
if (reason) console.warn(`skipping scale-out tests: ${reason}`);
// The generated drone survey writes its EXIF with exiftool.
const exiftool = (() => {
  try {
    execFileSync('exiftool', ['-ver'], { stdio: 'pipe' });
    return true;
  } catch {
    console.warn('skipping the drone job through BullMQ: exiftool is not installed (libimage-exiftool-perl)');
    return false;
  }
})();

describe.skipIf(!!reason)('two web processes, two workers', () => {
  let scratch: ScratchDb;
  let env: Record<string, string>;
  const webs: TestServer[] = [];
  const workers: TestWorker[] = [];

  beforeAll(async () => {
    scratch = await scratchPostgres();
    const redisUrl = await emptyRedisDb(REDIS_BASE);
    const dataDir = mkdtempSync(join(tmpdir(), 'scaleout-'));
    env = { ...scratch.env, REDIS_URL: redisUrl, DATA_DIR: dataDir, SESSION_SECRET: 'scale-out-secret-0123456789' };
    webs.push(await startServer({ env, dataDir }), await startServer({ env, dataDir }));
    workers.push(await startWorker(env), await startWorker(env));
  });

  afterAll(async () => {
    await Promise.all([...webs.map((w) => w.stop()), ...workers.map((w) => w.stop())]);
    await scratch?.drop();
  });

  it('reports the PostgreSQL database and the Redis queue', async () => {
    expect((await new Api(webs[1]!.url).get('/api/health')).body).toMatchObject({ success: true, database: 'postgresql', queue: 'redis', workers: 2 });
  });

  // The harness's time limits match the waits inside: twenty zonings on two workers outlast the
  // default 120 s on a slow machine, and that says nothing about the queue.
  it('20 raster jobs submitted through both web processes all complete exactly once', async () => {
    const { api } = await registerCompany(webs[0]!.url);
    await api.post('/api/fields', { name: 'F', geometry: FIELD });
    const other = new Api(webs[1]!.url);
    other.cookie = api.cookie;
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await (i % 2 ? other : api).upload('/upload', { raster_file: { file: sharedPath(...NAIP), name: `n${i}.tif` }, zones: '3' });
      expect(res.status, res.text).toBe(202);
      ids.push(res.body.task_id);
    }
    const results = await Promise.all(ids.map((id) => waitForTask(api, id, 600_000)));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill('completed'));
    const db = createDb(scratch.target);
    const tasks = await db.task.findMany({ where: { id: { in: ids } } });
    expect(tasks.every((t) => t.attempts === 1)).toBe(true);
    expect(await db.scan.count({ where: { id: { in: results.map((r) => r.result.scan_id) } } })).toBe(20);
    expect(new Set(results.map((r) => r.result.scan_id)).size).toBe(20);
    await db.$disconnect();

    // A scan's zones made again go through the workers' own queue.
    const rezone = await other.post(`/api/scans/${results[0]!.result.scan_id}/zones`, { zones: 4 });
    expect(rezone.status, rezone.text).toBe(202);
    expect(await waitForTask(api, rezone.body.task_id, 300_000)).toMatchObject({ status: 'completed', result: { scan_id: results[0]!.result.scan_id } });
    const scan = (await api.get(`/api/scans/${results[0]!.result.scan_id}`)).body.scan;
    expect(scan.details.zoning).toMatchObject({ zones: 4, method: 'jenks', min_zone_area_ha: 0.1 });
  }, 600_000);

  it('a worker killed during a job: the job completes on the other worker', async () => {
    const { api } = await registerCompany(webs[0]!.url);
    await api.post('/api/fields', { name: 'F', geometry: FIELD });
    const res = await api.upload('/upload', { raster_file: { file: sharedPath(...NAIP), name: 'k.tif' }, zones: '5' });
    const db = createDb(scratch.target);
    let lockedBy: string | null = null;
    for (let i = 0; i < 600 && !lockedBy; i++) {
      lockedBy = (await db.task.findUniqueOrThrow({ where: { id: res.body.task_id } })).lockedBy;
      if (!lockedBy) await new Promise((r) => setTimeout(r, 50));
    }
    const pid = Number(/worker-(\d+)-/.exec(lockedBy ?? '')?.[1]);
    const victim = workers.find((w) => w.proc.pid === pid);
    expect(victim, `task locked by ${lockedBy}`).toBeDefined();
    await victim!.stop('SIGKILL');
    const task = await waitForTask(api, res.body.task_id, 300_000);
    expect(task.status).toBe('completed');
    const row = await db.task.findUniqueOrThrow({ where: { id: res.body.task_id } });
    expect(row.attempts).toBe(2);
    await db.$disconnect();
  }, 300_000);

  it.skipIf(!exiftool)('the drone job runs through the BullMQ workers too (the same job code as the embedded threads)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scaleout-drone-'));
    const t = await makeSyntheticSurvey({ naipPath: sharedPath(...NAIP), dir, only: [0, 1, 2, 3, 4, 5] });
    const { api } = await registerCompany(webs[1]!.url);
    const fieldId = (await api.post('/api/fields', { name: 'Synthetic', geometry: t.fieldWgs84(200, 120, 600, 300) })).body.id as number;
    const zip = new JSZip();
    for (const f of t.files) zip.file(basename(f), readFileSync(f));
    const res = await api.upload('/api/drone/upload', {
      drone_images: { data: await zip.generateAsync({ type: 'uint8array' }), name: 'survey.zip', type: 'application/zip' },
      data: JSON.stringify({ field_id: fieldId, crop_type: 'auto' }),
    });
    expect(res.status, res.text).toBe(202);
    const web0 = new Api(webs[0]!.url);
    web0.cookie = api.cookie;
    const db = createDb(scratch.target);
    const runners = new Set<string>();
    let status: { status: string; error: string | null } = { status: 'queued', error: null };
    for (let i = 0; i < 1200 && !['completed', 'error'].includes(status.status); i++) {
      status = (await web0.get(`/api/drone/orthomosaic/status/${res.body.task_id}`)).body;
      const lockedBy = (await db.task.findUniqueOrThrow({ where: { id: res.body.task_id } })).lockedBy;
      if (lockedBy) runners.add(lockedBy);
      await new Promise((r) => setTimeout(r, 250));
    }
    await db.$disconnect();
    expect(status).toMatchObject({ status: 'completed', error: null });
    // Run by a worker process, not by a thread of a web process.
    expect([...runners].every((r) => /^worker-\d+-/.test(r)) && runners.size > 0, [...runners].join()).toBe(true);
    expect((await api.get(`/api/scan/${res.body.scan_id}/classify`)).body).toMatchObject({ success: true, index: 'ndvi' });
  }, 300_000);

  it('logout on one web process is seen by the other', async () => {
    const { api } = await registerCompany(webs[0]!.url);
    const other = new Api(webs[1]!.url);
    other.cookie = api.cookie;
    expect((await other.get('/api/auth/profile')).status).toBe(200);
    await api.post('/api/auth/logout');
    expect((await other.get('/api/auth/profile')).status).toBe(401);
  });

  it('the KMZ rate limit is shared by both web processes through Redis', async () => {
    const { api } = await registerCompany(webs[0]!.url);
    const id = (await api.post('/api/fields', { name: 'K', geometry: { type: 'Polygon', coordinates: [[[20, 48], [20.003, 48], [20.003, 48.003], [20, 48]]] } })).body.id;
    const other = new Api(webs[1]!.url);
    other.cookie = api.cookie;
    const statuses: number[] = [];
    for (let i = 0; i < 100; i++) statuses.push((await (i % 2 ? other : api).get(`/api/field/export/kmz/${id}`)).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(100);
    expect((await other.get(`/api/field/export/kmz/${id}`)).status).toBe(429);
    expect((await api.get(`/api/field/export/kmz/${id}`)).status).toBe(429);
  });

  // Last: it stops a worker.
  it('SIGTERM lets a worker finish its running job before it exits', async () => {
    const { api } = await registerCompany(webs[0]!.url);
    await api.post('/api/fields', { name: 'F', geometry: FIELD });
    const res = await api.upload('/upload', { raster_file: { file: sharedPath(...NAIP), name: 't.tif' }, zones: '5' });
    expect(res.status, res.text).toBe(202);
    const db = createDb(scratch.target);
    let lockedBy: string | null = null;
    for (let i = 0; i < 600 && !lockedBy; i++) {
      lockedBy = (await db.task.findUniqueOrThrow({ where: { id: res.body.task_id } })).lockedBy;
      if (!lockedBy) await new Promise((r) => setTimeout(r, 50));
    }
    const pid = Number(/worker-(\d+)-/.exec(lockedBy ?? '')?.[1]);
    const worker = workers.find((w) => w.proc.pid === pid && w.proc.exitCode === null);
    expect(worker, `task locked by ${lockedBy}`).toBeDefined();
    await worker!.stop('SIGTERM');
    expect(worker!.proc.signalCode, 'the worker exited by itself, not killed after the grace period').toBeNull();
    // Finished by that worker before it left: completed on the first attempt.
    const row = await db.task.findUniqueOrThrow({ where: { id: res.body.task_id } });
    expect([row.status, row.attempts]).toEqual(['completed', 1]);
    await db.$disconnect();
  });
});

describe.skipIf(!!reason)('no worker process yet', () => {
  let scratch: ScratchDb;
  let web: TestServer;
  let worker: TestWorker | undefined;
  let env: Record<string, string>;

  beforeAll(async () => {
    scratch = await scratchPostgres();
    const redisUrl = await emptyRedisDb(REDIS_BASE);
    const dataDir = mkdtempSync(join(tmpdir(), 'no-worker-'));
    env = { ...scratch.env, REDIS_URL: redisUrl, DATA_DIR: dataDir };
    web = await startServer({ env, dataDir });
  });

  afterAll(async () => {
    await Promise.all([web?.stop(), worker?.stop()]);
    await scratch?.drop();
  });

  it('health says no worker takes tasks; an upload waits queued, and runs once a worker starts', async () => {
    const health = await new Api(web.url).get('/api/health');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ success: true, queue: 'redis', workers: 0, warning: expect.stringContaining('npm run worker') });
    const { api } = await registerCompany(web.url);
    await api.post('/api/fields', { name: 'F', geometry: FIELD });
    const res = await api.upload('/upload', { raster_file: { file: sharedPath(...NAIP), name: 't.tif' }, zones: '3' });
    expect(res.status, res.text).toBe(202);
    expect((await api.get(`/api/tasks/${res.body.task_id}`)).body.status).toBe('pending');
    worker = await startWorker(env);
    expect(await waitForTask(api, res.body.task_id)).toMatchObject({ status: 'completed' });
    expect((await new Api(web.url).get('/api/health')).body).toMatchObject({ workers: 1 });
  });

  it('a worker ends a job past its kind’s time limit (its thread), fails the task with the reason and takes the next', async () => {
    // A job run in the worker's own process could not be stopped; in its thread it is ended.
    await worker?.stop();
    worker = await startWorker({ ...env, ZONING_TASK_LIMIT_S: '1' });
    const { api } = await registerCompany(web.url, { language: 'en' });
    await api.post('/api/fields', { name: 'F', geometry: FIELD });
    for (let i = 0; i < 2; i++) {
      const res = await api.upload('/upload', { raster_file: { file: sharedPath(...NAIP), name: 't.tif' }, zones: '3' });
      expect(res.status, res.text).toBe(202);
      expect(await waitForTask(api, res.body.task_id, 60_000)).toMatchObject({ status: 'error', error: en.errors.task_too_long.replace('{minutes}', '0.02') });
    }
  });
});

// The workers' sweep for lost tasks (lib/tasks/redis-sweep.ts), every second here (WORKER_SWEEP_S).
// The queue is paused while each case is set up, so that no worker takes its job meanwhile.
describe.skipIf(!!reason)('tasks whose job was lost', () => {
  let scratch: ScratchDb;
  let web: TestServer;
  const workers: TestWorker[] = [];
  let queue: Queue;
  let db: ReturnType<typeof createDb>;

  beforeAll(async () => {
    scratch = await scratchPostgres();
    const redisUrl = await emptyRedisDb(REDIS_BASE);
    const dataDir = mkdtempSync(join(tmpdir(), 'lost-'));
    const env = { ...scratch.env, REDIS_URL: redisUrl, DATA_DIR: dataDir };
    web = await startServer({ env, dataDir });
    // Two, both sweeping: each task must still run once.
    workers.push(await startWorker({ ...env, WORKER_SWEEP_S: '1' }), await startWorker({ ...env, WORKER_SWEEP_S: '1' }));
    queue = new Queue('fieldmap-raster_zones', { connection: new IORedis(redisUrl, { maxRetriesPerRequest: null }) });
    db = createDb(scratch.target);
  });

  afterAll(async () => {
    await Promise.all([web?.stop(), ...workers.map((w) => w.stop())]);
    await queue?.close();
    await db?.$disconnect();
    await scratch?.drop();
  });

  /** An upload whose job waits on the paused queue. */
  async function pausedUpload() {
    const { api } = await registerCompany(web.url);
    await api.post('/api/fields', { name: 'F', geometry: FIELD });
    await queue.pause();
    const res = await api.upload('/upload', { raster_file: { file: sharedPath(...NAIP), name: 'l.tif' }, zones: '3' });
    expect(res.status, res.text).toBe(202);
    expect(await queue.getJob(res.body.task_id)).toBeDefined();
    return { api, id: res.body.task_id as string };
  }

  async function expectDoneOnce(api: Api, id: string, attempts: number) {
    expect(await waitForTask(api, id, 120_000)).toMatchObject({ status: 'completed' });
    const row = await db.task.findUniqueOrThrow({ where: { id } });
    expect(row.attempts).toBe(attempts);
    expect(await db.scan.count({ where: { companyId: row.companyId } })).toBe(1);
  }

  it('a pending task with no job (Redis restarted empty, or its web process died before queueing it) is queued again and done', async () => {
    const { api, id } = await pausedUpload();
    await queue.remove(id);
    await queue.resume();
    await expectDoneOnce(api, id, 1);
  });

  it('a pending task whose job is kept as finished (an add with its id would do nothing) gets a new job and is done', async () => {
    const { api, id } = await pausedUpload();
    // The job ends doing nothing while the task reads as ended, then the task is pending again.
    await db.task.update({ where: { id }, data: { status: 'error' } });
    await queue.resume();
    let state = '';
    for (let i = 0; i < 200 && state !== 'completed'; i++) {
      state = (await (await queue.getJob(id))?.getState()) ?? 'none';
      if (state !== 'completed') await new Promise((r) => setTimeout(r, 100));
    }
    expect(state).toBe('completed');
    await db.task.update({ where: { id }, data: { status: 'pending' } });
    await expectDoneOnce(api, id, 1);
  });

  it('a task left running by a worker that is gone, its job lost, is released and done', async () => {
    const { api, id } = await pausedUpload();
    await queue.remove(id);
    await db.task.update({ where: { id }, data: { status: 'running', lockedBy: 'worker-1-deadbeef', attempts: 1, startedAt: new Date() } });
    await queue.resume();
    await expectDoneOnce(api, id, 2);
  });
});

// Needs no Redis at all: the server is pointed at a port where none listens.
describe.skipIf(dbKind() !== 'postgresql' || !!missingShared(...NAIP))('Redis not answering', () => {
  let scratch: ScratchDb;
  let web: TestServer;

  beforeAll(async () => {
    scratch = await scratchPostgres();
    const dataDir = mkdtempSync(join(tmpdir(), 'no-redis-'));
    web = await startServer({ env: { ...scratch.env, REDIS_URL: `redis://127.0.0.1:${await freePort()}/3`, DATA_DIR: dataDir }, dataDir, healthStatus: 503 });
  });

  afterAll(async () => {
    await web?.stop();
    await scratch?.drop();
  });

  it('health says the queue is down; an upload is refused with 503 at once, its task ended and its raster gone; exports still answer', async () => {
    const health = await new Api(web.url).get('/api/health');
    expect(health.status).toBe(503);
    expect(health.body).toMatchObject({ success: false, database: 'postgresql', queue: 'redis', error: 'queue unavailable' });

    const { api } = await registerCompany(web.url, { language: 'en' });
    const fieldId = (await api.post('/api/fields', { name: 'F', geometry: FIELD })).body.id;
    const res = await api.upload('/upload', { raster_file: { file: sharedPath(...NAIP), name: 't.tif' }, zones: '3' });
    expect(res.status, res.text).toBe(503);
    expect(res.body).toEqual({ success: false, error: en.errors.queue_unavailable });
    expect(res.headers.get('retry-after')).toBe('60');
    // Not "Queued" for ever: the task says what happened, and the raster it was given is not kept.
    const tasks = (await api.get('/api/tasks')).body.tasks as { status: string; error: string | null }[];
    expect(tasks).toHaveLength(1);
    expect(tasks[0]).toMatchObject({ status: 'error', error: en.errors.queue_unavailable });
    expect(execFileSync('find', [web.dataDir, '-name', '*.tif']).toString()).toBe('');
    // The KMZ rate limit is counted in the process meanwhile, not a 500.
    expect((await api.get(`/api/field/export/kmz/${fieldId}`)).status).toBe(200);
  });
});
