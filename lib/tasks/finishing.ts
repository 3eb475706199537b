// What a kind's task writes when its job succeeded, and what it undoes when it fails, is the jobs'
// business (lib/jobs/finishers.ts), not the runner's: the jobs register them where a process starts
// (instrumentation.ts, lib/jobs/worker.ts), and the runner looks them up by kind. On globalThis:
// Next.js bundles the runner into instrumentation and route handlers apart, and the registry is the
// process's.
import type { DbTx } from '../db/client';
import type { TaskKind } from './types';

/** The task row a finisher is given: whose it is, and the field and scan it was made for. */
export interface FinishingTask {
  companyId: number;
  fieldId: number | null;
  scanId: number | null;
}

/** The task row a failure is undone for. */
export interface FailedTask {
  companyId: number;
  scanId: number | null;
  payloadJson: string;
}

export interface TaskKindHandlers {
  /**
   * Writes a job's results within the transaction that marks its task completed, and returns what
   * the task reports. `tx` is confined to the task's company (lib/db/tenant.ts `scopeTransaction`).
   */
  finish(tx: DbTx, task: FinishingTask, result: unknown): Promise<Record<string, unknown>>;
  /** Undoes what the task's submission made, within the transaction that ends it in error (same `tx`). */
  undo?(tx: DbTx, task: FailedTask): Promise<void>;
}

const registry = globalThis as { __fieldmapTaskKinds?: Partial<Record<TaskKind, TaskKindHandlers>> };

export function registerTaskKinds(handlers: Record<TaskKind, TaskKindHandlers>): void {
  registry.__fieldmapTaskKinds = { ...registry.__fieldmapTaskKinds, ...handlers };
}

export function handlersOf(kind: TaskKind): TaskKindHandlers {
  const handlers = registry.__fieldmapTaskKinds?.[kind];
  // A process that ends tasks without registering the jobs is a wiring mistake, not a bad task.
  if (!handlers) throw new Error(`no handlers registered for tasks of kind ${kind}`);
  return handlers;
}
