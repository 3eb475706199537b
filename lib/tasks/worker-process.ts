// `npm run worker`: a worker process for the scale-out setup (DATABASE_URL and REDIS_URL). It runs the
// same jobs as the embedded runner, each in a worker thread of this process, ended when it passes its
// kind's time limit (a job run in this process itself could not be stopped). A worker killed mid-job
// leaves its BullMQ job stalled; BullMQ hands it to another worker, which resumes from the task row.
// SIGTERM lets the current jobs finish before exiting. Tasks whose job was lost are found by a sweep
// (lib/tasks/redis-sweep.ts) at start and every WORKER_SWEEP_S.
import { randomUUID } from 'node:crypto';
import { Worker } from 'bullmq';
import { capabilities, missingReasons } from '../capabilities';
import { config } from '../config';
import { db, dbReady } from '../db/client';
import { log } from '../log';
import { claimTask, failAbandonedTask, releaseInterruptedTask, runClaimedTask } from './lifecycle';
import { redisConnection } from '../redis';
import { queueName } from './redis-queue';
import { forgetHeartbeat, heartbeat, type SweepState, sweepLostTasks } from './redis-sweep';
import { runTaskInThread } from './run-in-thread';
import { MAX_ATTEMPTS, TASK_KINDS, type TaskKind } from './types';

const CONCURRENCY: Record<TaskKind, number> = {
  raster_zones: config().WORKER_RASTER_CONCURRENCY,
  drone: config().WORKER_DRONE_CONCURRENCY,
  rezone: config().WORKER_RASTER_CONCURRENCY,
};

if (!config().REDIS_URL) {
  console.error('npm run worker needs REDIS_URL (and DATABASE_URL for a shared database).');
  process.exit(2);
}
await dbReady();
const workerId = `worker-${process.pid}-${randomUUID().slice(0, 8)}`;
const client = db();
const SWEEP_MS = config().WORKER_SWEEP_S * 1000;
const running = new Set<string>();
const sweep: SweepState = { workerId, intervalMs: SWEEP_MS, running, suspects: new Set() };

async function handleTask(taskId: string): Promise<void> {
  const row = await client.task.findUnique({ where: { id: taskId } });
  if (!row || row.status === 'completed' || row.status === 'error') return; // done already: idempotent
  // Running but handed to us: its worker died (BullMQ saw the job stall). Take it over, unless that
  // was its last attempt.
  if (row.status === 'running' && !(await releaseInterruptedTask(client, row))) return;
  // Counted before the claim, so that this worker's sweep never releases a task it is claiming.
  running.add(taskId);
  try {
    if (!(await claimTask(client, taskId, workerId))) return;
    await runClaimedTask(client, taskId, workerId, runTaskInThread);
  } finally {
    running.delete(taskId);
  }
  const after = await client.task.findUnique({ where: { id: taskId }, select: { status: true } });
  // A retryable failure: let BullMQ try again (possibly on another worker).
  if (after?.status === 'pending') throw new Error('task failed; retrying');
}

// A machine without a feature's programs leaves its jobs to workers that have them (lib/capabilities.ts).
const kinds = TASK_KINDS.filter((kind) => kind !== 'drone' || capabilities().available.drone);
const workers = kinds.map(
  (kind) =>
    new Worker(queueName(kind), async (job) => handleTask(job.data.taskId as string), {
      connection: redisConnection(),
      concurrency: CONCURRENCY[kind],
      maxStalledCount: MAX_ATTEMPTS,
      lockDuration: 30_000,
      stalledInterval: 5_000,
    }),
);
for (const w of workers) {
  w.on('failed', (job, err) => {
    log.warn({ taskId: job?.data.taskId, err: err.message }, 'job failed');
    // BullMQ gives a job up when it stalled too often (its workers died) or its last attempt failed;
    // the task must then end too, or it shows "running" for ever.
    const retried = job && job.attemptsMade < (job.opts.attempts ?? 1) && !/stalled/i.test(err.message);
    if (job && !retried) void failAbandonedTask(client, job.data.taskId as string).catch((e: unknown) => log.error({ err: e }, 'could not end an abandoned task'));
  });
}
for (const [feature, reason] of Object.entries(missingReasons(capabilities()))) log.warn({ feature, reason }, 'feature unavailable on this machine: its jobs are left to other workers');
log.info({ workerId, concurrency: CONCURRENCY, queues: kinds }, 'worker started');

// Beaten twice a sweep: a sweep releases a runner's tasks only after missing its beat at two sweeps.
const beat = () => void heartbeat(workerId, 2 * SWEEP_MS).catch(() => undefined);
let sweeping = false;
const sweepNow = () => {
  // A sweep slower than the interval (Redis slow to answer) is not doubled.
  if (sweeping) return;
  sweeping = true;
  void sweepLostTasks(client, sweep)
    .catch((err: unknown) => log.warn({ err }, 'could not look for lost tasks'))
    .finally(() => (sweeping = false));
};
beat();
sweepNow();
const timers = [setInterval(beat, SWEEP_MS / 2), setInterval(sweepNow, SWEEP_MS)];

let stopping = false;
async function shutdown(signal: string) {
  // A second signal does not wait (closing waits for Redis too, which may not be there).
  if (stopping) process.exit(1);
  stopping = true;
  log.info({ signal }, 'finishing current jobs, then exiting (a second signal exits at once)');
  for (const t of timers) clearInterval(t);
  await Promise.all(workers.map((w) => w.close()));
  await forgetHeartbeat(workerId);
  await client.$disconnect();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
