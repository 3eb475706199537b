// One task's life, the same whoever runs it (a worker thread of the server or a BullMQ worker
// process): claim the row, run the job with progress written back, then let the kind's finisher write
// its results in the transaction that marks the task completed, or record the error. Deterministic
// errors end the task at once; crashes are retried up to MAX_ATTEMPTS. The writes that end a task are
// tried again while the database is busy: one given up would leave the task "running" for good.
import { rm } from 'node:fs/promises';
import type { Db } from '../db/client';
import { scopeTransaction } from '../db/tenant';
import { fromPrismaError, isAppError } from '../errors';
import { log } from '../log';
import { handlersOf } from './finishing';
import { JobError } from './run-in-thread';
import { MAX_ATTEMPTS, type TaskErrorInfo, type TaskKind } from './types';
import { taskWorkDir } from './work-dir';

export type Execute = (kind: TaskKind, payload: unknown, workDir: string, onProgress: (percent: number, step: string) => void) => Promise<unknown>;

/** Takes a pending task for this runner; false when someone else has it. */
export async function claimTask(db: Db, id: string, runner: string): Promise<boolean> {
  const { count } = await db.task.updateMany({
    where: { id, status: 'pending' },
    data: { status: 'running', lockedBy: runner, startedAt: new Date(), attempts: { increment: 1 } },
  });
  return count === 1;
}

/** Tries of a write that ends a task, and the pause after the first failed one (doubled each time). */
const END_WRITE_TRIES = 5;
const END_WRITE_PAUSE_MS = 500;

/** The database could not take a write now and may in a moment: SQLite locked past its wait, a transaction that could not start, PostgreSQL's write conflict or deadlock. */
const isBusy = (err: unknown) => fromPrismaError(err)?.key === 'database_busy' || (err as { code?: unknown })?.code === 'P2034';

/**
 * A write that ends a task, tried again while the database is busy (for SQLite, each try already
 * waits 15 s for the lock): given up, it would leave the task "running" under a runner that no longer
 * runs it. Every such write holds only while its runner still has the task, so a second try after a
 * first that did land writes nothing.
 */
export async function endWrite<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (err) {
      if (attempt >= END_WRITE_TRIES || !isBusy(err)) throw err;
      await new Promise((r) => setTimeout(r, END_WRITE_PAUSE_MS * 2 ** (attempt - 1)));
    }
  }
}

/** Raised inside the finishing transaction when another runner took the task over meanwhile. */
class TaskTakenOver extends Error {}

/**
 * Runs a task `claimTask` gave to `runner`. Every write that ends it (its results, its completion,
 * its error or its retry) holds only while the runner still has it: a runner thought dead and taken
 * over (BullMQ saw its job stall) that finishes after all writes nothing, so a scan is made once.
 */
export async function runClaimedTask(db: Db, id: string, runner: string, execute: Execute): Promise<void> {
  const task = await db.task.findUniqueOrThrow({ where: { id } });
  const kind = task.kind as TaskKind;
  const workDir = taskWorkDir(task.companyId, task.id);
  const held = { id, status: 'running', lockedBy: runner };
  try {
    const result = await execute(kind, JSON.parse(task.payloadJson), workDir, progressWriter(db, held));
    await completeTask(db, task, held, result);
  } catch (err) {
    if (err instanceof TaskTakenOver) {
      log.warn({ taskId: id, kind, runner }, 'task was taken over by another runner; its results are theirs to write');
      return;
    }
    const info = taskErrorInfo(err);
    const retry = !info.final && task.attempts < MAX_ATTEMPTS;
    // The log keeps the crash as it was; users read it without the server's paths.
    log.warn({ taskId: id, kind, err: info, retry }, 'task failed');
    // The folder is the task's, whoever runs it: one that lost the task leaves it to the one that has it.
    if (await db.task.count({ where: held })) await rm(workDir, { recursive: true, force: true });
    if (retry) await endWrite(() => db.task.updateMany({ where: held, data: { status: 'pending', lockedBy: null, progress: null, percent: 0 } }));
    else await failTask(db, { ...task, runner }, { key: info.key, params: publicParams(info.params ?? {}) });
  }
}

type HeldTask = { id: string; status: string; lockedBy: string };
type ClaimedTask = Awaited<ReturnType<Db['task']['findUniqueOrThrow']>>;

/** Writes a task's progress while the runner holds it: at most twice a second, but never dropping a new step (clients show each one). */
function progressWriter(db: Db, held: HeldTask): (percent: number, step: string) => void {
  let lastWrite = 0;
  let lastStep = '';
  return (percent, step) => {
    const now = Date.now();
    if (now - lastWrite < 500 && percent < 100 && step === lastStep) return;
    lastWrite = now;
    lastStep = step;
    void db.task.updateMany({ where: held, data: { percent: Math.round(percent), progress: step } }).catch(() => undefined);
  };
}

/**
 * The results and the task's completion in one transaction: a crash between them would have run the
 * job again at restart and made a second scan. Throws TaskTakenOver when the runner no longer holds it.
 */
async function completeTask(db: Db, task: ClaimedTask, held: HeldTask, result: unknown): Promise<void> {
  const kind = task.kind as TaskKind;
  await endWrite(() =>
    db.$transaction(async (tx) => {
      const publicResult = await handlersOf(kind).finish(scopeTransaction(tx, task.companyId), task, result);
      const { count } = await tx.task.updateMany({
        where: held,
        // The task names the scan it made (a drone task's was announced at upload), so that deleting the scan finds the task's files.
        data: {
          status: 'completed',
          percent: 100,
          progress: 'done',
          resultJson: JSON.stringify(publicResult),
          scanId: typeof publicResult.scan_id === 'number' ? publicResult.scan_id : task.scanId,
          finishedAt: new Date(),
          lockedBy: null,
          payloadJson: keptPayload(task.payloadJson),
        },
      });
      if (count !== 1) throw new TaskTakenOver();
    }),
  );
}

/** How a job's failure is told and whether it may be retried: a job's own error, an AppError (final), else a crash (retried). */
function taskErrorInfo(err: unknown): TaskErrorInfo {
  if (err instanceof JobError) return err.info;
  if (isAppError(err)) return { key: err.key, params: err.params, final: true };
  return { key: 'task_failed', params: { reason: String((err as Error)?.message ?? err).slice(0, 500) }, final: false };
}

/**
 * What a completed task keeps of its payload: all but the field's boundary (up to 100,000 vertices,
 * megabytes a task, for as long as the field lives), which the job needed and nothing reads after.
 * A raster's path and zoning options stay: remaking the scan's zones reads them.
 */
export function keptPayload(payloadJson: string): string {
  const payload = JSON.parse(payloadJson) as Record<string, unknown>;
  delete payload.fieldGeometry;
  return JSON.stringify(payload);
}

/** A crash's reason as users read it: a path on the server cut to its file name. */
export function publicParams(params: Record<string, string | number>): Record<string, string | number> {
  const { reason } = params;
  return typeof reason === 'string' ? { ...params, reason: reason.replace(/(?:\/[^\s'"`/:,]+)+\/([^\s'"`/:,]+)/g, '$1') } : params;
}

interface FailingTask {
  id: string;
  companyId: number;
  kind: string;
  payloadJson: string;
  scanId: number | null;
  /** The runner that holds it; none at start-up, when no one does. */
  runner?: string;
}

/**
 * Ends a task in error together with the drone scan announced at its upload, in one transaction: a
 * client that sees the task failed sees its scan failed, and a crash between the two cannot leave a
 * scan "processing" for ever (which could not even be deleted). A failed zoning task makes no scan,
 * so nothing else would ever remove the raster it was given (up to 1 GB): it goes now, and so does
 * the task's folder, which a runner killed mid-job left with its half-made mosaic (100 MB and more)
 * and which no scan names. A survey's photos stay with its failed scan and go with it.
 */
async function failTask(db: Db, task: FailingTask, error: { key: string; params: Record<string, string | number> }) {
  await endWrite(() =>
    db.$transaction(async (tx) => {
      const { count } = await tx.task.updateMany({
        where: { id: task.id, ...(task.runner ? { status: 'running', lockedBy: task.runner } : { status: { in: ['running', 'pending'] } }) },
        data: { status: 'error', error: JSON.stringify(error), finishedAt: new Date(), lockedBy: null },
      });
      if (count !== 1) return; // another runner has it, and the raster
      // The kind's own undoing (lib/jobs/finishers.ts): a drone survey's scan, an uploaded raster.
      await handlersOf(task.kind as TaskKind).undo?.(scopeTransaction(tx, task.companyId), task);
      await rm(taskWorkDir(task.companyId, task.id), { recursive: true, force: true });
    }),
  );
}

/**
 * A task whose runners kept dying (its queue gave up on it, or it comes back after its last attempt):
 * it ends in error, with its scan, instead of showing "running" for ever with a scan nobody can delete.
 */
export async function failAbandonedTask(db: Db, id: string): Promise<boolean> {
  const t = await db.task.findUnique({ where: { id }, select: { id: true, companyId: true, kind: true, payloadJson: true, attempts: true, scanId: true, status: true } });
  if (!t || (t.status !== 'running' && t.status !== 'pending')) return false;
  await failTask(db, t, { key: 'task_interrupted', params: { attempts: t.attempts } });
  return true;
}

/**
 * A task no runner could be given (the queue did not answer in time): it ends in error at once, with
 * its scan and raster, rather than wait for a queue it never reached. A job that did reach the queue
 * after all finds it ended and does nothing.
 */
export async function failUndispatchedTask(db: Db, id: string): Promise<void> {
  const t = await db.task.findUnique({ where: { id }, select: { id: true, companyId: true, kind: true, payloadJson: true, scanId: true, status: true } });
  if (t?.status === 'pending') await failTask(db, t, { key: 'queue_unavailable', params: {} });
}

/**
 * A task left running by a runner that died: back to pending for another attempt, or ended in error
 * (with its scan) when that was its last, so that a job that kills its runner every time ends.
 * Returns whether it may run again. The one rule for both a server's start and a BullMQ worker
 * handed a stalled job.
 */
export async function releaseInterruptedTask(db: Db, t: FailingTask & { attempts: number }): Promise<boolean> {
  if (t.attempts >= MAX_ATTEMPTS) {
    await failTask(db, t, { key: 'task_interrupted', params: { attempts: t.attempts } });
    return false;
  }
  await endWrite(() => db.task.updateMany({ where: { id: t.id, status: 'running', ...(t.runner ? { lockedBy: t.runner } : {}) }, data: { status: 'pending', lockedBy: null } }));
  return true;
}

/**
 * Tasks `runner` left "running" though no thread of its runs them any more: the write that was to end
 * one failed after every try (the database stayed locked, the connection dropped). Each goes back to
 * pending (or ends in error after its last attempt), as at a restart; returns those to run again. Only
 * the runner's own rows, by its id, are touched: another process's are its own to end.
 */
export async function releaseOrphanedTasks(db: Db, runner: string, running: ReadonlySet<string>): Promise<{ id: string; kind: TaskKind }[]> {
  const rows = await db.task.findMany({ where: { status: 'running', lockedBy: runner }, select: { id: true, companyId: true, kind: true, payloadJson: true, attempts: true, scanId: true } });
  const again: { id: string; kind: TaskKind }[] = [];
  for (const t of rows.filter((r) => !running.has(r.id))) if (await releaseInterruptedTask(db, { ...t, runner })) again.push({ id: t.id, kind: t.kind as TaskKind });
  return again;
}

/** At start-up: tasks left running by a process that died go back to the queue (or fail after MAX_ATTEMPTS). */
export async function requeueInterrupted(db: Db): Promise<string[]> {
  const stuck = await db.task.findMany({ where: { status: 'running' }, select: { id: true, companyId: true, kind: true, payloadJson: true, attempts: true, scanId: true } });
  for (const t of stuck) await releaseInterruptedTask(db, t);
  return (await db.task.findMany({ where: { status: 'pending' }, orderBy: { createdAt: 'asc' }, select: { id: true } })).map((t) => t.id);
}
