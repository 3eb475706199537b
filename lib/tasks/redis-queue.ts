// Scale-out (REDIS_URL set): web processes put task ids on BullMQ queues, one per kind; worker
// processes (`npm run worker`) take them. The task row stays the truth about status and results.
import { Queue } from 'bullmq';
import { redisClient, redisConnection, withinTime } from '../redis';
import { MAX_ATTEMPTS, type TaskKind } from './types';

export const queueName = (kind: TaskKind) => `fieldmap-${kind}`;

/**
 * How long a web process waits for Redis to take a job. ioredis keeps a command while it reconnects,
 * for ever on a queue's connection: with Redis down an upload waited with no answer, its task
 * "Queued" for good.
 */
export const ENQUEUE_TIMEOUT_MS = 5_000;

const queues = new Map<TaskKind, Queue>();

function queueOf(kind: TaskKind): Queue {
  let queue = queues.get(kind);
  if (!queue) {
    queue = new Queue(queueName(kind), { connection: redisConnection() });
    // Reconnection errors are ioredis's to retry; each request that needs Redis says what it got.
    queue.on('error', () => undefined);
    queues.set(kind, queue);
  }
  return queue;
}

/** Puts a task on its queue; false when Redis did not take it within ENQUEUE_TIMEOUT_MS. */
export async function enqueueRedis(taskId: string, kind: TaskKind): Promise<boolean> {
  // The task id is the job id: submitting twice queues once. A crash the task records as worth
  // another try (lib/tasks/lifecycle.ts) is tried again, MAX_ATTEMPTS times in all as in-server.
  const added = queueOf(kind).add(kind, { taskId }, { jobId: taskId, attempts: MAX_ATTEMPTS, backoff: { type: 'fixed', delay: 2000 }, removeOnComplete: 1000, removeOnFail: 1000 });
  return withinTime(added.then(() => true), ENQUEUE_TIMEOUT_MS, false);
}

/**
 * Makes sure a pending task has a job that will run it: none (Redis restarted empty, or the web
 * process died before adding it) is added; one already completed or failed (kept by removeOnComplete
 * and removeOnFail, it would make an add with its id do nothing) is removed and added again. Returns
 * whether a job was added. A task runs once whatever the jobs: its claim is taken once.
 */
export async function ensureQueued(taskId: string, kind: TaskKind): Promise<boolean> {
  const job = await queueOf(kind).getJob(taskId);
  if (job) {
    const state = await job.getState();
    if (state !== 'completed' && state !== 'failed' && state !== 'unknown') return false;
    // A job taken meanwhile is locked and stays; its add below then does nothing.
    await job.remove().catch(() => undefined);
  }
  if (!(await enqueueRedis(taskId, kind))) throw new Error('Redis did not take the job');
  return true;
}

/**
 * Worker processes taking tasks now (each takes every kind; counted on one queue), or null when
 * Redis does not say within 1 s. Redis lists the clients of all its databases: only this one's count.
 */
export async function workersTakingTasks(): Promise<number | null> {
  const db = String(redisClient().options.db ?? 0);
  const count = async () => (await queueOf('raster_zones').getWorkers()).filter((w) => (w.db ?? '0') === db).length;
  return withinTime(count(), 1_000, null);
}
