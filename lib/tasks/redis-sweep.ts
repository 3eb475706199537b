// The scale-out setup's check for lost tasks, run by every worker process (lib/tasks/worker-process.ts)
// at start and every WORKER_SWEEP_S. BullMQ only retries jobs it still has: a task whose job never
// reached Redis (its web process died after writing it), went with a Redis restarted empty, or ended
// while the task did not (the write that was to end it failed) would stay pending or running for good.
// Safe with several workers: one sweeps at a time (a Redis lock), and a task is claimed once whoever
// queued it.
import type { Db } from '../db/client';
import { log } from '../log';
import { redisClient, withinTime } from '../redis';
import { releaseInterruptedTask, releaseOrphanedTasks } from './lifecycle';
import { ensureQueued } from './redis-queue';
import type { TaskKind } from './types';

const aliveKey = (workerId: string) => `fieldmap:worker-alive:${workerId}`;
const SWEEP_LOCK = 'fieldmap:task-sweep';

/** Says this worker is alive for `ttlMs` (beaten more often than that). */
export async function heartbeat(workerId: string, ttlMs: number): Promise<void> {
  await withinTime(redisClient().set(aliveKey(workerId), '1', 'PX', ttlMs), 2_000, undefined);
}

export async function forgetHeartbeat(workerId: string): Promise<void> {
  await withinTime(redisClient().del(aliveKey(workerId)), 2_000, undefined);
}

export interface SweepState {
  workerId: string;
  intervalMs: number;
  /** Tasks this worker is claiming or running now. */
  running: ReadonlySet<string>;
  /** Runners found without a heartbeat at the previous sweep: released when still without one. */
  suspects: Set<string>;
}

/** One sweep; returns the tasks queued again and those released from a runner that is gone. */
export async function sweepLostTasks(db: Db, s: SweepState): Promise<{ queued: string[]; released: string[] }> {
  const queued: string[] = [];
  const released: string[] = [];
  // This worker's own rows that no thread of its runs (their ending write failed for good).
  for (const t of await releaseOrphanedTasks(db, s.workerId, s.running)) released.push(t.id);

  // The rest is the same for every worker: one does it.
  const locked = await withinTime(redisClient().set(SWEEP_LOCK, s.workerId, 'PX', Math.floor(s.intervalMs * 0.9), 'NX'), 2_000, null);
  if (locked !== 'OK') return { queued, released };

  // Running under a runner with no heartbeat at two sweeps in a row (one missed beat, or a Redis
  // restarted empty a moment ago, is not taken for a death): it goes back to pending, or ends after
  // its last attempt. A runner wrongly taken for dead would write nothing at its end (its writes hold
  // only while it has the task): the task would run twice, never be done twice.
  const running = await db.task.findMany({ where: { status: 'running' }, select: { id: true, companyId: true, kind: true, payloadJson: true, attempts: true, scanId: true, lockedBy: true } });
  const runners = [...new Set(running.map((t) => t.lockedBy).filter((r): r is string => !!r))];
  const alive = new Set<string>();
  if (runners.length) {
    const beats = await redisClient().mget(...runners.map(aliveKey));
    runners.forEach((r, i) => {
      if (beats[i] !== null) alive.add(r);
    });
  }
  const suspects = new Set<string>();
  for (const t of running) {
    const runner = t.lockedBy ?? '';
    if (alive.has(runner) || s.running.has(t.id)) continue;
    if (!s.suspects.has(runner)) {
      suspects.add(runner);
      continue;
    }
    await releaseInterruptedTask(db, { ...t, runner: t.lockedBy ?? undefined });
    released.push(t.id);
  }
  s.suspects = suspects;

  const pending = await db.task.findMany({ where: { status: 'pending' }, orderBy: { createdAt: 'asc' }, select: { id: true, kind: true } });
  for (const t of pending) if (await ensureQueued(t.id, t.kind as TaskKind)) queued.push(t.id);
  if (queued.length || released.length) log.warn({ queued: queued.length, released: released.length }, 'queued again tasks whose job was lost, released tasks whose runner is gone');
  return { queued, released };
}
