// The embedded setup (no REDIS_URL): tasks run in worker threads of the server process (of its
// runner process when it has several, lib/server/cluster.ts), one at a time per kind (the machine
// has few cores). At start-up, tasks left behind by a previous process are resumed; while it runs, a
// task of its own whose ending write failed for good is put back in the queue (releaseOrphanedTasks).
import { randomUUID } from 'node:crypto';
import { db } from '../db/client';
import { log } from '../log';
import { onTaskFromPrimary } from '../server/ipc';
import { claimTask, releaseOrphanedTasks, requeueInterrupted, runClaimedTask } from './lifecycle';
import { runTaskInThread } from './run-in-thread';
import type { TaskKind } from './types';

const CONCURRENCY: Record<TaskKind, number> = { raster_zones: 1, drone: 1, rezone: 1 };

/** How often the runner looks for tasks of its own left "running" with no thread running them. */
const ORPHAN_SWEEP_MS = 60_000;

const state = globalThis as unknown as {
  __fieldmapRunner?: {
    id: string;
    queue: { id: string; kind: TaskKind }[];
    active: Record<TaskKind, number>;
    /** The tasks this runner is claiming or running now. */
    running: Set<string>;
  };
};

function runner() {
  state.__fieldmapRunner ??= { id: `local-${process.pid}-${randomUUID().slice(0, 8)}`, queue: [], active: { raster_zones: 0, drone: 0, rezone: 0 }, running: new Set() };
  return state.__fieldmapRunner;
}

export function enqueueLocal(id: string, kind: TaskKind): void {
  const r = runner();
  if (!r.queue.some((t) => t.id === id)) r.queue.push({ id, kind });
  pump();
}

function pump(): void {
  const r = runner();
  for (const item of [...r.queue]) {
    if (r.active[item.kind] >= CONCURRENCY[item.kind]) continue;
    r.queue.splice(r.queue.indexOf(item), 1);
    r.active[item.kind]++;
    void runOne(item.id)
      .catch((err) => log.error({ err, taskId: item.id }, 'task runner failed'))
      .finally(() => {
        r.active[item.kind]--;
        pump();
      });
  }
}

async function runOne(id: string): Promise<void> {
  const client = db();
  const r = runner();
  // Counted as running before it is claimed, so that the sweep never takes a task being claimed.
  r.running.add(id);
  try {
    if (!(await claimTask(client, id, r.id))) return;
    await runClaimedTask(client, id, r.id, runTaskInThread);
  } finally {
    r.running.delete(id);
  }
  // A crash puts the task back to pending: take it again.
  const after = await client.task.findUnique({ where: { id }, select: { status: true, kind: true } });
  if (after?.status === 'pending') enqueueLocal(id, after.kind as TaskKind);
}

/**
 * Tasks of this runner's left "running" by a write that failed: back in the queue (or ended after
 * their last attempt). So is a pending task this runner does not hold, whose claim failed as the
 * database stayed busy: it had left the queue. This is the server's only runner, and a claim is
 * taken once, so queueing a task twice runs it once.
 */
async function sweepOrphans(): Promise<void> {
  const r = runner();
  const again = await releaseOrphanedTasks(db(), r.id, r.running);
  if (again.length) log.warn({ count: again.length }, 'requeued tasks whose end could not be written');
  for (const t of again) enqueueLocal(t.id, t.kind);
  const pending = await db().task.findMany({ where: { status: 'pending' }, orderBy: { createdAt: 'asc' }, select: { id: true, kind: true } });
  for (const t of pending) if (!r.running.has(t.id)) enqueueLocal(t.id, t.kind as TaskKind);
}

export async function startLocalRunner(): Promise<void> {
  onTaskFromPrimary(enqueueLocal);
  const client = db();
  const pending = await requeueInterrupted(client);
  const kinds = new Map((await client.task.findMany({ where: { id: { in: pending } }, select: { id: true, kind: true } })).map((t) => [t.id, t.kind as TaskKind]));
  for (const id of pending) enqueueLocal(id, kinds.get(id)!);
  if (pending.length) log.info({ count: pending.length }, 'resumed pending tasks');
  setInterval(() => void sweepOrphans().catch((err: unknown) => log.warn({ err }, 'could not look for orphaned tasks')), ORPHAN_SWEEP_MS).unref();
}
