// Features (decoding + ORB), the track's and the pairs' matching, compositing's rows and the index's on
// the calling thread and a worker thread, so that both cores work: they are JavaScript and WebAssembly,
// which run on the thread that calls them. The worker loads opencv.js when the drone task starts it (or
// when a task first needs it); a build swaps it for a fresh one once its photos are matched
// (renewDroneThreads), so that compositing's rows run on a thread without that heap, which has started
// while the adjustment ran.
// Features, decoded photos and rows live in shared memory, so that handing them over copies nothing.
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { MessagePort } from 'node:worker_threads';
import { Worker } from 'node:worker_threads';
import { AppError, isAppError } from '@/lib/errors';
import type { RowSources } from './composite-rows';
import { drawRows } from './composite-rows';
import type { DronePhoto } from './exif';
import type { Features, MotionFinder, PairMatch, PairMatcher, PairRejection, PairSide } from './features';
import { matchHere, photoFeatures, unguidedMotion } from './features';
import type { IndexGrid, IndexTotals } from './index-rows';
import { addIndexRows, mergedTotals } from './index-rows';
import type { DecodedPart } from './photo-region';
import { openCv } from './opencv';
import { halvePixels } from './overviews';
import type { GridWindow } from './seams';

/**
 * Worker threads beside the calling thread, which takes its share of the tasks too: one thread a core,
 * two at most (the machine this runs on has two). A worker of its own for the caller's share would
 * cost another start (about 2 s of CPU, opencv.js included) and its memory, for nothing.
 */
const WORKERS = Math.min(2, availableParallelism()) - 1;
/** Tasks a thread holds at once: its next photo decodes (on libvips' threads) while ORB runs on the last. */
const TASKS_PER_THREAD = 2;
/**
 * The thread's entry, from the working directory as lib/tasks/run-in-thread.ts finds its own: this
 * code runs from source through tsx, and a bundler must not follow the path.
 */
const ENTRY = ['lib', 'drone', 'thread-worker.mjs'];

type Task =
  | { kind: 'features'; photo: DronePhoto; radiometricScale: number }
  | { kind: 'match'; a: PairSide; b: PairSide; maxGpsDisagreementM: number; searchRadiusM: number }
  | { kind: 'motion'; fi: Features; ci: [number, number]; fj: Features; stride: number }
  | { kind: 'rows'; rows: RowsTask }
  | { kind: 'index'; rawPath: string; grid: IndexGrid; takes: Int32Array }
  | { kind: 'load' };

/** Rows [row0, row1) of a window drawn into `out` from its row `outRow0` (drawRows); the parts' pixels and `out` in shared memory. */
export interface RowsTask {
  src: RowSources;
  grid: GridWindow;
  inBlock: number[];
  parts: DecodedPart[];
  out: Uint8Array;
  row0: number;
  row1: number;
  outRow0: number;
  /**
   * Shared count of the takes of ROWS_PER_TAKE rows handed out so far: each thread draws the next take
   * until none is left, so that neither waits long for the other at the band's end. Absent: all the rows.
   */
  takes?: Int32Array;
  /** When given, the rows [row0, row1) drawn are also halved each way into it (halvePixels), from its first row. */
  halved?: Uint8Array;
}

/** Rows a thread draws at a time from a band shared out by `RowsTask.takes`: even, so that each take halves whole. */
const ROWS_PER_TAKE = 8;

type Answer = { id: number; value: unknown } | { id: number; error: { message: string; app?: Pick<AppError, 'kind' | 'key' | 'params'> } };

/** What a task computes, wherever it runs. */
async function runTask(task: Task): Promise<Features | PairMatch | PairRejection | number[] | IndexTotals | null> {
  if (task.kind === 'load') return openCv().then(() => null);
  if (task.kind === 'rows') return drawRowsOf(task.rows);
  if (task.kind === 'index') return addIndexRows(task.rawPath, task.grid, task.takes);
  if (task.kind === 'motion') return unguidedMotion(task.fi, task.ci, task.fj, task.stride);
  if (task.kind === 'features') return inSharedMemory(await photoFeatures(task.photo, task.radiometricScale));
  return matchHere(task.a, task.b, task.maxGpsDisagreementM, task.searchRadiusM);
}

function shared<T extends Uint8Array | Float32Array | Float64Array>(a: T, make: (buffer: SharedArrayBuffer) => T): T {
  const copy = make(new SharedArrayBuffer(a.byteLength));
  copy.set(a);
  return copy;
}

/** The same features with their arrays in shared memory (posting them to another thread then copies nothing). */
function inSharedMemory(f: Features): Features {
  return {
    ...f,
    points: shared(f.points, (s) => new Float64Array(s)),
    colours: shared(f.colours, (s) => new Float32Array(s)),
    descriptors: shared(f.descriptors, (s) => new Uint8Array(s)),
  };
}

function drawRowsOf(task: RowsTask): null {
  const { row0, row1, takes } = task;
  if (!takes) return (drawTake(task, row0, row1), null);
  for (;;) {
    const from = row0 + Atomics.add(takes, 0, 1) * ROWS_PER_TAKE;
    if (from >= row1) return null;
    drawTake(task, from, Math.min(row1, from + ROWS_PER_TAKE));
  }
}

/** Rows [from, to) of a task drawn, and halved when it asks (`from - row0` even: takes start at whole pairs of rows). */
function drawTake({ src, grid, inBlock, parts, out, row0, outRow0, halved }: RowsTask, from: number, to: number): void {
  drawRows(src, grid, inBlock, parts, out, from, to, outRow0 + from - row0);
  if (!halved) return;
  const stride = src.nb + 1, rowBytes = grid.W * stride, halfRowBytes = Math.ceil(grid.W / 2) * stride;
  const drawn = out.subarray((outRow0 + from - row0) * rowBytes, (outRow0 + to - row0) * rowBytes);
  halvePixels(drawn, grid.W, to - from, stride, halved.subarray(((from - row0) / 2) * halfRowBytes));
}

/** The worker side: answers each task posted to `port`. Called by thread-worker.mjs. */
export function serveFeatureTasks(port: MessagePort): void {
  port.on('message', async ({ id, task }: { id: number; task: Task }) => {
    try {
      port.postMessage({ id, value: await runTask(task) } satisfies Answer);
    } catch (err) {
      const e = err instanceof Error ? err : new Error(String(err));
      port.postMessage({ id, error: { message: e.message, ...(isAppError(e) ? { app: { kind: e.kind, key: e.key, params: e.params } } : {}) } } satisfies Answer);
    }
  });
}

interface Thread {
  /** null: the calling thread. */
  worker: Worker | null;
  busy: number;
  /** Whether it has run a task (a fresh thread holds no opencv.js heap: renewing leaves it). */
  used: boolean;
  pending: Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>;
}

/**
 * The process's pool, started on first use. Idle threads do not keep the process alive: each is
 * referenced only while it has tasks.
 */
class DronePool {
  private here: Thread = { worker: null, busy: 0, used: true, pending: new Map() };
  private threads: Thread[] = [];
  private queue: { task: Task; resolve: (v: unknown) => void; reject: (e: Error) => void }[] = [];
  private nextId = 0;

  run(task: Task): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.queue.push({ task, resolve, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.queue.length) {
      const thread = this.freeThread();
      if (!thread) return;
      const { task, resolve, reject } = this.queue.shift()!;
      if (!thread.worker) {
        this.here.busy++;
        // On a later turn, not inline: a task's synchronous part (a pair's matching) would hold this
        // loop, and the worker's answers, while the worker waits for its next task.
        setImmediate(() => void runTask(task).then(resolve, reject).finally(() => {
          this.here.busy--;
          this.dispatch();
        }));
        continue;
      }
      this.post(thread, task, resolve, reject);
    }
  }

  /**
   * Runs `task` on a worker thread now, beside whatever it holds (null: there is none). The caller
   * works meanwhile and awaits the answer after: a failure that comes first is seen as handled, so
   * it surfaces at that await instead of ending the process as an unhandled rejection.
   */
  runOnWorker(task: Task): Promise<unknown> | null {
    const thread = this.workers()[0];
    if (!thread) return null;
    const answer = new Promise((resolve, reject) => this.post(thread, task, resolve, reject));
    answer.catch(() => undefined);
    return answer;
  }

  private post(thread: Thread, task: Task, resolve: (v: unknown) => void, reject: (e: Error) => void): void {
    const id = this.nextId++;
    thread.pending.set(id, { resolve, reject });
    thread.used = true;
    if (thread.busy++ === 0) thread.worker!.ref();
    thread.worker!.postMessage({ id, task });
  }

  /**
   * Ends the idle worker threads that have run tasks (their opencv.js heaps with them) and starts fresh
   * ones in their place, which load while the caller goes on. How many ended.
   */
  async renew(): Promise<number> {
    const spent = this.threads.filter((t) => t.busy === 0 && t.used);
    this.threads = this.threads.filter((t) => !spent.includes(t));
    this.workers();
    await Promise.all(spent.map((t) => t.worker!.terminate()));
    return spent.length;
  }

  private workers(): Thread[] {
    while (this.threads.length < WORKERS) this.threads.push(this.start());
    return this.threads;
  }

  private freeThread(): Thread | undefined {
    const least = this.workers().reduce((x, y) => (y.busy < x.busy ? y : x), this.here);
    return least.busy < TASKS_PER_THREAD ? least : undefined;
  }

  private start(): Thread {
    const worker = new Worker(join(process.cwd(), ...ENTRY));
    worker.unref();
    const thread: Thread = { worker, busy: 0, used: false, pending: new Map() };
    worker.on('message', (answer: Answer) => {
      const waiting = thread.pending.get(answer.id)!;
      thread.pending.delete(answer.id);
      if (--thread.busy === 0) worker.unref();
      if ('value' in answer) waiting.resolve(answer.value);
      else waiting.reject(answer.error.app ? new AppError(answer.error.app.kind, answer.error.app.key, answer.error.app.params) : new Error(answer.error.message));
      this.dispatch();
    });
    // A thread that dies (out of memory, a crash in WebAssembly) fails its tasks; the next task starts a new one.
    const fail = (err: Error) => {
      this.threads = this.threads.filter((t) => t !== thread);
      for (const { reject } of thread.pending.values()) reject(err);
      thread.pending.clear();
      this.dispatch();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`feature thread exited with code ${code}`)));
    return thread;
  }
}

let pool: DronePool | undefined;
const dronePool = () => (pool ??= new DronePool());

/**
 * Swaps the pool's idle worker threads that have run tasks for fresh ones, freeing what they held: a
 * thread that found features keeps opencv.js's heap, which drawing rows does not need. How many ended.
 */
export const renewDroneThreads = async () => (pool ? pool.renew() : 0);

/**
 * Starts the pool's worker threads and has them load opencv.js, while the caller reads the photos'
 * metadata: else the first features wait for a thread that spends about a second of CPU loading.
 * Settles once they have loaded; callers need not wait.
 */
export async function startDroneThreads(): Promise<void> {
  // A thread that fails to start fails the first task posted to it, which says why.
  await dronePool().runOnWorker({ kind: 'load' })?.catch(() => undefined);
}

/** ORB features of a capture's main photo (photoFeatures) on the pool. */
export const featuresInThread = (photo: DronePhoto, radiometricScale: number) =>
  dronePool().run({ kind: 'features', photo, radiometricScale }) as Promise<Features>;

/** A pair matched (matchPair) on the pool. */
export const matchInThread: PairMatcher = (a, b, maxGpsDisagreementM, searchRadiusM) =>
  dronePool().run({ kind: 'match', a, b, maxGpsDisagreementM, searchRadiusM }) as Promise<PairMatch | PairRejection>;

/** A pair's motion found without a placement guess (unguidedMotion) on the pool. */
export const motionInThread: MotionFinder = (fi, ci, fj, stride) => dronePool().run({ kind: 'motion', fi, ci, fj, stride }) as Promise<number[] | null>;

/**
 * Rows [row0, row1) drawn on a worker thread and here at the same time, each taking the next few rows
 * as it is free (all here without a worker). The photos and `out` must be in shared memory, or each
 * band would be copied to the thread.
 */
export async function drawRowsOnThreads(task: Omit<RowsTask, 'outRow0' | 'takes'> & { outRow0?: number }): Promise<void> {
  const { row0, row1, outRow0 = 0 } = task;
  const rows: RowsTask = { ...task, outRow0, takes: new Int32Array(new SharedArrayBuffer(4)) };
  const there = row1 - row0 > ROWS_PER_TAKE && WORKERS ? dronePool().runOnWorker({ kind: 'rows', rows }) : null;
  drawRowsOf(rows);
  await there;
}

/**
 * The index loop (addIndexRows) over the raw mosaic at `rawPath` on a worker thread and here at the
 * same time, each taking the next rows as it is free (here between this thread's other work); the
 * threads' totals as one, and the rows each read. `grid`'s sums must be in shared memory.
 */
export async function indexRowsOnThreads(rawPath: string, grid: IndexGrid): Promise<IndexTotals & { rowsByThread: number[] }> {
  const takes = new Int32Array(new SharedArrayBuffer(4));
  const there = WORKERS ? (dronePool().runOnWorker({ kind: 'index', rawPath, grid, takes }) as Promise<IndexTotals> | null) : null;
  const parts = [await addIndexRows(rawPath, grid, takes), ...(there ? [await there] : [])];
  return { ...mergedTotals(parts), rowsByThread: parts.map((t) => t.rows) };
}
