// What a kind's task writes when its job succeeded is the jobs' business (lib/jobs/finishers.ts), not
// the runner's: the jobs register their finishers where a process is put together (instrumentation.ts,
// lib/jobs/worker.ts), and the runner looks them up by kind. On globalThis: Next.js bundles the
// runner into instrumentation and route handlers apart, and the registry is the process's.
import type { DbTx } from '../db/client';
import type { TaskKind } from './types';

/** The task row a finisher is given: whose it is, and the field and scan it was made for. */
export interface FinishingTask {
  companyId: number;
  fieldId: number | null;
  scanId: number | null;
}

/**
 * Writes a job's results within the transaction that marks its task completed, and returns what the
 * task reports. `tx` is confined to the task's company (lib/db/tenant.ts `scopeTransaction`).
 */
export type Finisher = (tx: DbTx, task: FinishingTask, result: unknown) => Promise<Record<string, unknown>>;

const registry = globalThis as { __fieldmapFinishers?: Partial<Record<TaskKind, Finisher>> };

export function registerFinishers(finishers: Record<TaskKind, Finisher>): void {
  registry.__fieldmapFinishers = { ...registry.__fieldmapFinishers, ...finishers };
}

export function finisherOf(kind: TaskKind): Finisher {
  const finisher = registry.__fieldmapFinishers?.[kind];
  // A process that runs tasks without registering the jobs is a wiring mistake, not a bad task.
  if (!finisher) throw new Error(`no finisher registered for tasks of kind ${kind}`);
  return finisher;
}
