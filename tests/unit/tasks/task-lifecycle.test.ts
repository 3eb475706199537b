// A task's end on a real SQLite file: its results and its completion are written together, and only by
// the runner that holds it; a drone task that ends in error takes the scan announced at its upload with it.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, createDb } from '@/lib/db/client';
import { migrate } from '@/lib/db/migrate';
import { type ScratchDb, scratchSqlite } from '@/lib/db/scratch';
import { boundingBox } from '@/lib/geo/geometry';
import { AppError } from '@/lib/errors';
import { claimTask, failAbandonedTask, publicParams, releaseInterruptedTask, releaseOrphanedTasks, requeueInterrupted, runClaimedTask } from '@/lib/tasks/lifecycle';
import type { ZoningJobResult } from '@/lib/jobs/finishers';
import { registerJobs } from '@/lib/jobs';
import { MAX_ATTEMPTS } from '@/lib/tasks/types';
import { taskWorkDir } from '@/lib/tasks/work-dir';

let scratch: ScratchDb;
let db: Db;
let companyId: number;
let fieldId: number;
let scratchDir: string;

beforeAll(async () => {
  // The finishers the server registers when it starts (instrumentation.ts).
  registerJobs();
  scratchDir = mkdtempSync(join(tmpdir(), 'lifecycle-'));
  // Task folders in a scratch data folder (read when the configuration is first asked for, below).
  process.env.DATA_DIR = scratchDir;
  scratch = scratchSqlite();
  await migrate(scratch.target);
  db = createDb(scratch.target);
  companyId = (await db.company.create({ data: { name: 'Drones', slug: 'drones' } })).id;
  const geometry = { type: 'Polygon' as const, coordinates: [[[30, 50], [30.01, 50], [30.01, 50.01], [30, 50.01], [30, 50]]] };
  fieldId = (await db.field.create({ data: { companyId, name: 'F', area: 70, geometry: JSON.stringify(geometry), ...boundingBox(geometry) } })).id;
});

afterAll(async () => {
  rmSync(scratchDir, { recursive: true, force: true });
  await db?.$disconnect();
  await scratch?.drop();
});

/** A drone upload as the server records it: the scan announced as processing, its task naming it. */
async function droneUpload(id: string, task: { status: string; attempts: number }) {
  const scan = await db.scan.create({ data: { companyId, fieldId, source: 'drone', status: 'processing' } });
  await db.task.create({ data: { id, companyId, fieldId, scanId: scan.id, kind: 'drone', ...task } });
  return scan.id;
}

describe('a failed drone task', () => {
  it('fails its scan with it when the job refuses the photos', async () => {
    const scanId = await droneUpload('refused', { status: 'pending', attempts: 0 });
    expect(await claimTask(db, 'refused', 'test')).toBe(true);
    await runClaimedTask(db, 'refused', 'test', async () => {
      throw new AppError('unprocessable', 'drone_stitch_failed');
    });
    expect(await db.task.findUniqueOrThrow({ where: { id: 'refused' } })).toMatchObject({ status: 'error', error: JSON.stringify({ key: 'drone_stitch_failed', params: {} }) });
    expect((await db.scan.findUniqueOrThrow({ where: { id: scanId } })).status).toBe('error');
  });

  it('ends in error with its scan when its queue gives it up (its workers kept dying), and only then', async () => {
    const scanId = await droneUpload('abandoned', { status: 'running', attempts: MAX_ATTEMPTS });
    expect(await failAbandonedTask(db, 'abandoned')).toBe(true);
    expect(await db.task.findUniqueOrThrow({ where: { id: 'abandoned' } })).toMatchObject({ status: 'error', lockedBy: null, error: JSON.stringify({ key: 'task_interrupted', params: { attempts: MAX_ATTEMPTS } }) });
    expect((await db.scan.findUniqueOrThrow({ where: { id: scanId } })).status).toBe('error');
    // A task that ended already stays as it ended.
    await droneUpload('completed-earlier', { status: 'completed', attempts: 1 });
    expect(await failAbandonedTask(db, 'completed-earlier')).toBe(false);
    expect((await db.task.findUniqueOrThrow({ where: { id: 'completed-earlier' } })).status).toBe('completed');
  });

  it('fails its scan with it when the server stopped during its last attempt', async () => {
    const lastScan = await droneUpload('interrupted-last', { status: 'running', attempts: MAX_ATTEMPTS });
    const retriedScan = await droneUpload('interrupted-first', { status: 'running', attempts: 1 });
    // What the killed attempt was writing: no scan names it, and nothing else would ever remove it.
    const halfMade = join(taskWorkDir(companyId, 'interrupted-last'), 'mosaic.raw');
    mkdirSync(dirname(halfMade), { recursive: true });
    writeFileSync(halfMade, 'half a mosaic');
    expect(await requeueInterrupted(db)).toEqual(['interrupted-first']);
    expect((await db.task.findUniqueOrThrow({ where: { id: 'interrupted-last' } })).status).toBe('error');
    expect(existsSync(dirname(halfMade))).toBe(false);
    expect((await db.scan.findUniqueOrThrow({ where: { id: lastScan } })).status).toBe('error');
    // One that will run again keeps its scan processing.
    expect((await db.scan.findUniqueOrThrow({ where: { id: retriedScan } })).status).toBe('processing');
  });

  it('handed to a worker after its runner died, runs again unless that was its last attempt', async () => {
    // As a BullMQ worker finds a stalled job's task: still running, held by the dead runner.
    await droneUpload('stalled-once', { status: 'running', attempts: 1 });
    const stalled = await db.task.findUniqueOrThrow({ where: { id: 'stalled-once' } });
    expect(await releaseInterruptedTask(db, stalled)).toBe(true);
    expect(await claimTask(db, 'stalled-once', 'next-worker')).toBe(true);
    const lastScan = await droneUpload('stalled-last', { status: 'running', attempts: MAX_ATTEMPTS });
    expect(await releaseInterruptedTask(db, await db.task.findUniqueOrThrow({ where: { id: 'stalled-last' } }))).toBe(false);
    expect(await claimTask(db, 'stalled-last', 'next-worker')).toBe(false);
    expect((await db.scan.findUniqueOrThrow({ where: { id: lastScan } })).status).toBe('error');
  });
});

/** What the zoning job hands back for a field: one scan, two zones. */
function zoningResult(): ZoningJobResult {
  const square = (x: number) => ({ type: 'Polygon', coordinates: [[[x, 50], [x + 0.005, 50], [x + 0.005, 50.01], [x, 50.01], [x, 50]]] });
  const zone = (classIndex: number) => ({ classIndex, name: `Zone ${classIndex}`, min: classIndex / 10, max: classIndex / 10 + 0.1, mean: classIndex / 10 + 0.05, areaHa: 35, color: '#00aa00', geometry: square(30 + classIndex * 0.005) });
  return {
    scan: {
      source: 'raster',
      fileName: 'ndvi.tif',
      indexName: 'NDVI',
      capturedAt: null,
      stats: { mean: 0.5, std: 0.1, median: 0.5 },
      histogram: { min: 0, max: 1, counts: [1, 2, 1] },
      previewPath: '/nowhere/preview.png',
      previewBounds: [[50, 30], [50.01, 30.01]],
    },
    zones: [zone(0), zone(1)],
    areaProcessedHa: 70,
  };
}

async function rasterTask(id: string, task: { status?: string; attempts?: number; payload?: object } = {}) {
  await db.task.create({ data: { id, companyId, fieldId, kind: 'raster_zones', status: task.status ?? 'pending', attempts: task.attempts ?? 0, payloadJson: JSON.stringify(task.payload ?? {}) } });
}

/** An uploaded raster as the server keeps it for its task. */
function uploadedRaster(name: string): string {
  const path = join(scratchDir, name);
  writeFileSync(path, 'II*\0');
  return path;
}

describe('a finished raster task', () => {
  it('writes its scan, its zones and its completion together, and keeps of its payload what remaking the zones reads', async () => {
    const boundary = { type: 'Polygon', coordinates: [[[30, 50], [30.01, 50], [30.01, 50.01], [30, 50]]] };
    await rasterTask('finished', { payload: { rasterPath: '/data/r.tif', fieldGeometry: boundary, options: { zones: 5 } } });
    expect(await claimTask(db, 'finished', 'one')).toBe(true);
    await runClaimedTask(db, 'finished', 'one', async () => zoningResult());
    const task = await db.task.findUniqueOrThrow({ where: { id: 'finished' } });
    expect(task).toMatchObject({ status: 'completed', percent: 100, lockedBy: null });
    const scan = await db.scan.findUniqueOrThrow({ where: { id: task.scanId! } });
    expect(scan).toMatchObject({ fieldId, status: 'completed', indexName: 'NDVI' });
    expect(JSON.parse(task.resultJson!)).toEqual({ zones_created: 2, area_processed: 70, scan_id: scan.id });
    expect(await db.zone.count({ where: { scanId: scan.id } })).toBe(2);
    // The boundary (megabytes for a large field) is not kept for as long as the field lives.
    expect(JSON.parse(task.payloadJson)).toEqual({ rasterPath: '/data/r.tif', options: { zones: 5 } });
  });

  it('writes nothing when another runner took it over meanwhile, and leaves the task to that runner', async () => {
    await rasterTask('taken-over');
    expect(await claimTask(db, 'taken-over', 'one')).toBe(true);
    const scansBefore = await db.scan.count({ where: { fieldId } });
    await runClaimedTask(db, 'taken-over', 'one', async () => {
      // Runner 'one' looked dead (its queue job stalled); 'two' took the task while the job ran.
      await db.task.update({ where: { id: 'taken-over' }, data: { lockedBy: 'two', attempts: { increment: 1 } } });
      return zoningResult();
    });
    expect(await db.scan.count({ where: { fieldId } })).toBe(scansBefore);
    expect(await db.task.findUniqueOrThrow({ where: { id: 'taken-over' } })).toMatchObject({ status: 'running', lockedBy: 'two', resultJson: null });
  });

  it('is not failed by a runner that lost it, which leaves the task’s folder to the one that has it', async () => {
    await rasterTask('lost');
    const folder = taskWorkDir(companyId, 'lost');
    expect(folder.startsWith(scratchDir)).toBe(true);
    expect(await claimTask(db, 'lost', 'one')).toBe(true);
    await runClaimedTask(db, 'lost', 'one', async () => {
      await db.task.update({ where: { id: 'lost' }, data: { lockedBy: 'two' } });
      // What runner 'two' has written so far.
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, 'preview.png'), 'two');
      throw new AppError('unprocessable', 'raster_no_overlap');
    });
    expect(await db.task.findUniqueOrThrow({ where: { id: 'lost' } })).toMatchObject({ status: 'running', lockedBy: 'two', error: null });
    expect(existsSync(join(folder, 'preview.png'))).toBe(true);
  });
});

describe('a failed zoning task', () => {
  it('removes the raster it was given, which no scan will ever remove, and keeps it while it may run again', async () => {
    const refused = uploadedRaster('refused.tif');
    await rasterTask('zoning-refused', { payload: { rasterPath: refused } });
    expect(await claimTask(db, 'zoning-refused', 'one')).toBe(true);
    await runClaimedTask(db, 'zoning-refused', 'one', async () => {
      throw new AppError('unprocessable', 'raster_no_overlap');
    });
    expect(existsSync(refused)).toBe(false);

    const crashed = uploadedRaster('crashed.tif');
    await rasterTask('zoning-crashed', { payload: { rasterPath: crashed } });
    expect(await claimTask(db, 'zoning-crashed', 'one')).toBe(true);
    await runClaimedTask(db, 'zoning-crashed', 'one', async () => {
      throw new Error('worker thread died');
    });
    // Retried: its raster waits for the next attempt.
    expect((await db.task.findUniqueOrThrow({ where: { id: 'zoning-crashed' } })).status).toBe('pending');
    expect(existsSync(crashed)).toBe(true);

    // Interrupted during its last attempt: failed at start-up, raster removed.
    const interrupted = uploadedRaster('interrupted.tif');
    await rasterTask('zoning-interrupted', { status: 'running', attempts: MAX_ATTEMPTS, payload: { rasterPath: interrupted } });
    await requeueInterrupted(db);
    expect((await db.task.findUniqueOrThrow({ where: { id: 'zoning-interrupted' } })).status).toBe('error');
    expect(existsSync(interrupted)).toBe(false);
  });
});

describe('a task that crashed on its last attempt', () => {
  it('tells users why without the server’s paths, which stay in the log', async () => {
    await rasterTask('crashed-for-good', { attempts: MAX_ATTEMPTS - 1, payload: { rasterPath: join(scratchDir, 'gone.tif') } });
    expect(await claimTask(db, 'crashed-for-good', 'one')).toBe(true);
    await runClaimedTask(db, 'crashed-for-good', 'one', async () => {
      throw new Error(`ENOENT: no such file or directory, open '${join(scratchDir, 'companies', '7', 'rasters', 'ndvi.tif')}'`);
    });
    const task = await db.task.findUniqueOrThrow({ where: { id: 'crashed-for-good' } });
    expect(task.status).toBe('error');
    expect(JSON.parse(task.error!)).toEqual({ key: 'task_failed', params: { reason: "ENOENT: no such file or directory, open 'ndvi.tif'" } });
  });

  it('keeps a reason without paths as it is', () => {
    for (const reason of ['worker exited with code 1', 'Cannot read properties of undefined (reading \'x\')', 'ratio 1/2 too low']) {
      expect(publicParams({ reason })).toEqual({ reason });
    }
    expect(publicParams({ attempts: 3 })).toEqual({ attempts: 3 });
  });
});

/**
 * The database as a runner sees it while another writer keeps SQLite locked past its wait: the first
 * `times` transactions fail as Prisma reports that (P1008), the rest go through.
 */
function busyFor(times: number): Db {
  let left = times;
  return new Proxy(db, {
    get(target, prop) {
      if (prop !== '$transaction') return Reflect.get(target, prop);
      return async (...args: Parameters<Db['$transaction']>) => {
        if (left-- > 0) throw Object.assign(new Error('Operations timed out'), { code: 'P1008' });
        return (target.$transaction as (...a: unknown[]) => Promise<unknown>)(...args);
      };
    },
  });
}

describe('a task whose ending write meets a busy database', () => {
  it('is completed once the database takes the write, not run again', async () => {
    await rasterTask('busy-completed', { payload: { rasterPath: '/data/r.tif', options: { zones: 5 } } });
    expect(await claimTask(db, 'busy-completed', 'one')).toBe(true);
    let runs = 0;
    await runClaimedTask(busyFor(2), 'busy-completed', 'one', async () => {
      runs++;
      return zoningResult();
    });
    expect(await db.task.findUniqueOrThrow({ where: { id: 'busy-completed' } })).toMatchObject({ status: 'completed', lockedBy: null });
    expect(runs).toBe(1);
  });

  it('is failed once the database takes the write, not left running', async () => {
    const raster = uploadedRaster('busy-refused.tif');
    await rasterTask('busy-refused', { payload: { rasterPath: raster } });
    expect(await claimTask(db, 'busy-refused', 'one')).toBe(true);
    await runClaimedTask(busyFor(2), 'busy-refused', 'one', async () => {
      throw new AppError('unprocessable', 'raster_no_overlap');
    });
    expect(await db.task.findUniqueOrThrow({ where: { id: 'busy-refused' } })).toMatchObject({ status: 'error', lockedBy: null });
    expect(existsSync(raster)).toBe(false);
  });

  it('left running by its runner after every try is put back by that runner, and only by it', async () => {
    await rasterTask('orphan', { status: 'running', attempts: 1 });
    await rasterTask('orphan-last', { status: 'running', attempts: MAX_ATTEMPTS });
    await rasterTask('in-flight', { status: 'running', attempts: 1 });
    await rasterTask('theirs', { status: 'running', attempts: 1 });
    await db.task.updateMany({ where: { id: { in: ['orphan', 'orphan-last', 'in-flight'] } }, data: { lockedBy: 'runner-a' } });
    await db.task.update({ where: { id: 'theirs' }, data: { lockedBy: 'runner-b' } });
    expect(await releaseOrphanedTasks(db, 'runner-a', new Set(['in-flight']))).toEqual([{ id: 'orphan', kind: 'raster_zones' }]);
    const status = async (id: string) => (await db.task.findUniqueOrThrow({ where: { id } })).status;
    expect([await status('orphan'), await status('orphan-last'), await status('in-flight'), await status('theirs')]).toEqual(['pending', 'error', 'running', 'running']);
  });
});
