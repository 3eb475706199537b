// The embedded setup (no REDIS_URL): tasks run in worker threads of the server process (of its
// runner process when it has several, lib/server/cluster.ts), one at a time per kind (the machine
// has few cores). At start-up, tasks left behind by a previous process are resumed.
import { randomUUID } from 'node:crypto';
import { db } from '../db/client';
import { log } from '../log';
import { onTaskFromPrimary } from '../server/ipc';
import { claimTask, requeueInterrupted, runClaimedTask } from './lifecycle';
import { runTaskInThread } from './run-in-thread';
import type { TaskKind } from './types';

const CONCURRENCY: Record<TaskKind, number> = { raster_zones: 1, drone: 1, rezone: 1 };

const state = globalThis as unknown as {
  __fieldmapRunner?: { id: string; queue: { id: string; kind: TaskKind }[]; active: Record<TaskKind, number> };
};

function runner() {
  state.__fieldmapRunner ??= { id: `local-${process.pid}-${randomUUID().slice(0, 8)}`, queue: [], active: { raster_zones: 0, drone: 0, rezone: 0 } };
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
  if (!(await claimTask(client, id, runner().id))) return;
  await runClaimedTask(client, id, runner().id, runTaskInThread);
  // A crash puts the task back to pending: take it again.
  const after = await client.task.findUnique({ where: { id }, select: { status: true, kind: true } });
  if (after?.status === 'pending') enqueueLocal(id, after.kind as TaskKind);
}

export async function startLocalRunner(): Promise<void> {
  onTaskFromPrimary(enqueueLocal);
  const client = db();
  const pending = await requeueInterrupted(client);
  const kinds = new Map((await client.task.findMany({ where: { id: { in: pending } }, select: { id: true, kind: true } })).map((t) => [t.id, t.kind as TaskKind]));
  for (const id of pending) enqueueLocal(id, kinds.get(id)!);
  if (pending.length) log.info({ count: pending.length }, 'resumed pending tasks');
}
