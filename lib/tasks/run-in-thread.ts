// Runs one job in a worker thread, so heavy raster, image and shapefile work never blocks the web
// server.
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import pLimit, { type LimitFunction } from 'p-limit';
import { AppError } from '../errors';
import { config } from '../config';
import type { JobKind, TaskErrorInfo, TaskKind } from './types';

const WORKER_ENTRY = (process.env.FIELDMAP_WORKER_ENTRY ?? 'lib/tasks/worker-entry.mjs').split('/');

/** An upload's GeoTIFF is inspected from its header and tag arrays: far less than this, unless forged. */
export const RASTER_INSPECT_HEAP_MB = 256;
/** Drone photos' EXIF, read a few at a time from their first bytes. */
export const PHOTO_METADATA_HEAP_MB = 512;

/**
 * Old-generation heap per kind. A shapefile is read as a stream and needs little; a lower limit also
 * makes V8 collect garbage early instead of letting the process grow.
 */
const HEAP_LIMIT_MB: Record<JobKind, number> = { raster_zones: 2048, drone: 2048, rezone: 2048, shapefile_rows: 256, boundaries: 1024, exports: 1024, raster_inspect: RASTER_INSPECT_HEAP_MB, photo_metadata: PHOTO_METADATA_HEAP_MB };

export class JobError extends Error {
  constructor(readonly info: TaskErrorInfo) {
    super(info.key);
    this.name = 'JobError';
  }
}

export function runInThread(
  kind: JobKind,
  payload: unknown,
  workDir: string,
  onProgress: (percent: number, step: string) => void,
  /** Ends the thread and rejects (JobError `work_too_long`, final) when it runs longer than this. */
  deadlineMs?: number,
): Promise<unknown> {
  // The worker's code runs from source through tsx, outside the Next.js bundle: the bundler must not
  // follow this path (it would try to bundle tsx and esbuild), nor trace the whole project from it.
  const entry = join(/*turbopackIgnore: true*/ process.cwd(), ...WORKER_ENTRY);
  return new Promise((resolve, reject) => {
    const worker = new Worker(entry, { workerData: { kind, payload, workDir }, resourceLimits: { maxOldGenerationSizeMb: HEAP_LIMIT_MB[kind] } });
    let settled = false;
    const deadline =
      deadlineMs === undefined
        ? undefined
        : setTimeout(() => {
            if (settled) return;
            settled = true;
            reject(new JobError({ key: 'work_too_long', params: { seconds: Math.round(deadlineMs / 1000) }, final: true }));
            void worker.terminate();
          }, deadlineMs);
    worker.once('exit', () => clearTimeout(deadline));
    worker.on('message', (m: { type: string; percent: number; step: string; result: unknown; error: TaskErrorInfo }) => {
      if (m.type === 'progress') onProgress(m.percent, m.step);
      else if (m.type === 'result') {
        settled = true;
        resolve(m.result);
      } else if (m.type === 'error') {
        settled = true;
        reject(new JobError(m.error));
      }
    });
    worker.on('error', (err) => {
      if (!settled) reject(new JobError({ key: 'task_failed', params: { reason: err.message }, final: false }));
      settled = true;
    });
    worker.on('exit', (code) => {
      if (!settled) reject(new JobError({ key: 'task_failed', params: { reason: `worker exited with code ${code}` }, final: false }));
    });
  });
}

/** Longest a task of each kind may run in its thread (configuration: DRONE_TASK_LIMIT_S, ZONING_TASK_LIMIT_S). */
export function taskDeadlineMs(kind: TaskKind): number {
  const c = config();
  return (kind === 'drone' ? c.DRONE_TASK_LIMIT_S : c.ZONING_TASK_LIMIT_S) * 1000;
}

/**
 * A background task's job in a worker thread, ended at its kind's deadline with the final error
 * `task_too_long` (in minutes: a task's limit is counted in them), by the same means as a request's
 * work. Whoever runs tasks (the server's runner, a BullMQ worker) runs them so.
 */
export async function runTaskInThread(kind: TaskKind, payload: unknown, workDir: string, onProgress: (percent: number, step: string) => void): Promise<unknown> {
  const deadlineMs = taskDeadlineMs(kind);
  try {
    return await runInThread(kind, payload, workDir, onProgress, deadlineMs);
  } catch (err) {
    if (err instanceof JobError && err.info.key === 'work_too_long') throw new JobError({ key: 'task_too_long', params: { minutes: Math.round(deadlineMs / 600) / 100 }, final: true });
    throw err;
  }
}

/**
 * Vertices of geometry up to which a request's work is done in its own thread (about 1 s of CPU for
 * a field's cut; a worker thread takes about as long to start).
 */
export const IN_REQUEST_UP_TO_VERTICES = 30_000;

/**
 * Request threads a web process runs at once, one a core: more would only share the cores, each with
 * up to a gigabyte of heap (60 ISOXML grids a minute are within one user's rate limit). The rest
 * wait their turn, in order. On globalThis: Next.js bundles this module into pages and route
 * handlers apart, and the limit is the process's.
 */
const requestWorkSlots: LimitFunction = ((globalThis as { __fieldmapRequestWork?: LimitFunction }).__fieldmapRequestWork ??= pLimit(Math.max(1, availableParallelism())));

/**
 * Longest a request's thread may run (the largest field's cut takes 4 s, a 625 ha prescription grid
 * 8 s): one that never ends (a geometry a clipper loops on) would hold its slot, and with it every
 * other request's heavy work, for good. It is ended, and the request answered 503.
 */
export const REQUEST_WORK_DEADLINE_MS = 120_000;

/** The request threads running and waiting in this process. */
export const requestWorkLoad = () => ({ running: requestWorkSlots.activeCount, waiting: requestWorkSlots.pendingCount, slots: requestWorkSlots.concurrency });

/**
 * A request's heavy work (no task, no progress) in a worker thread, so that its seconds of CPU do not
 * stall the other requests of the web process. Its refusals come back as the 422 they were.
 */
export async function runRequestWork(kind: 'boundaries' | 'exports' | 'raster_inspect' | 'photo_metadata', payload: unknown, deadlineMs = REQUEST_WORK_DEADLINE_MS): Promise<unknown> {
  try {
    return await requestWorkSlots(() => runInThread(kind, payload, tmpdir(), () => undefined, deadlineMs));
  } catch (err) {
    if (err instanceof JobError && err.info.key === 'work_too_long') throw new AppError('unavailable', err.info.key, err.info.params);
    if (err instanceof JobError && err.info.final) throw new AppError('unprocessable', err.info.key, err.info.params);
    throw err;
  }
}
