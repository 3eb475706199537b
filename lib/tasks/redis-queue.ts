// Scale-out (REDIS_URL set): web processes put task ids on BullMQ queues, one per kind; worker
// processes (`npm run worker`) take them. The task row stays the truth about status and results.
import { Queue } from 'bullmq';
import IORedis from 'ioredis';
import { config } from '../config';
import { MAX_ATTEMPTS, type TaskKind } from './types';

export const queueName = (kind: TaskKind) => `fieldmap-${kind}`;

export function redisConnection(): IORedis {
  // BullMQ needs maxRetriesPerRequest null on connections used by workers.
  return new IORedis(config().REDIS_URL!, { maxRetriesPerRequest: null });
}

const queues = new Map<TaskKind, Queue>();

export async function enqueueRedis(taskId: string, kind: TaskKind): Promise<void> {
  let queue = queues.get(kind);
  if (!queue) {
    queue = new Queue(queueName(kind), { connection: redisConnection() });
    queues.set(kind, queue);
  }
  // The task id is the job id: submitting twice queues once. A crash the task records as worth
  // another try (lib/tasks/lifecycle.ts) is tried again, MAX_ATTEMPTS times in all as in-server.
  await queue.add(kind, { taskId }, { jobId: taskId, attempts: MAX_ATTEMPTS, backoff: { type: 'fixed', delay: 2000 }, removeOnComplete: 1000, removeOnFail: 1000 });
}
