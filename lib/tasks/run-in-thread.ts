// Runs one job in a worker thread, so heavy raster, image and shapefile work never blocks the web
// server.
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import pLimit from 'p-limit';
import { AppError } from '../http/errors';
import type { JobKind, TaskErrorInfo } from './types';

const WORKER_ENTRY = (process.env.FIELDMAP_WORKER_ENTRY ?? 'lib/tasks/worker-entry.mjs').split('/');

/**
 * Old-generation heap per kind. A shapefile is read as a stream and needs little; a lower limit also
 * makes V8 collect garbage early instead of letting the process grow.
 */
const HEAP_LIMIT_MB: Record<JobKind, number> = { raster_zones: 2048, drone: 2048, rezone: 2048, shapefile_rows: 256, boundaries: 1024, exports: 1024 };

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
): Promise<unknown> {
  // The worker's code runs from source through tsx, outside the Next.js bundle: the bundler must not
  // follow this path (it would try to bundle tsx and esbuild).
  const entry = join(process.cwd(), ...WORKER_ENTRY);
  return new Promise((resolve, reject) => {
    const worker = new Worker(entry, { workerData: { kind, payload, workDir }, resourceLimits: { maxOldGenerationSizeMb: HEAP_LIMIT_MB[kind] } });
    let settled = false;
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

/**
 * Vertices of geometry up to which a request's work is done in its own thread (about 1 s of CPU for
 * a field's cut; a worker thread takes about as long to start).
 */
export const IN_REQUEST_UP_TO_VERTICES = 30_000;

/**
 * Request threads a web process runs at once, one a core: more would only share the cores, each with
 * up to a gigabyte of heap (60 ISOXML grids a minute are within one user's rate limit). The rest
 * wait their turn, in order.
 */
const requestWorkSlots = pLimit(Math.max(1, availableParallelism()));

/** The request threads running and waiting in this process. */
export const requestWorkLoad = () => ({ running: requestWorkSlots.activeCount, waiting: requestWorkSlots.pendingCount, slots: requestWorkSlots.concurrency });

/**
 * A request's heavy work (no task, no progress) in a worker thread, so that its seconds of CPU do not
 * stall the other requests of the web process. Its refusals come back as the 422 they were.
 */
export async function runRequestWork(kind: 'boundaries' | 'exports', payload: unknown): Promise<unknown> {
  try {
    return await requestWorkSlots(() => runInThread(kind, payload, tmpdir(), () => undefined));
  } catch (err) {
    if (err instanceof JobError && err.info.final) throw new AppError('unprocessable', err.info.key, err.info.params);
    throw err;
  }
}
