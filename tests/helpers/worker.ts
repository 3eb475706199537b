// Starts `npm run worker` (a BullMQ worker process) with the given environment.
import { randomUUID } from 'node:crypto';
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

export interface TestWorker {
  proc: ChildProcess;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export async function startWorker(env: Record<string, string>): Promise<TestWorker> {
  // --import rather than the tsx CLI: the CLI runs the script in a child, and tests kill by pid.
  const proc = spawn(process.execPath, ['--import', 'tsx', 'lib/jobs/worker.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'production', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout?.on('data', (b: Buffer) => (out = (out + b.toString()).slice(-50_000)));
  proc.stderr?.on('data', (b: Buffer) => (out = (out + b.toString()).slice(-50_000)));
  const deadline = Date.now() + 60_000;
  while (!out.includes('worker started')) {
    if (proc.exitCode !== null) throw new Error(`worker exited: ${out}`);
    if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`worker did not start: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    proc,
    output: () => out,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (proc.exitCode !== null || proc.signalCode) return;
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill(signal);
      await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
      if (proc.exitCode === null && !proc.signalCode) proc.kill('SIGKILL');
    },
  };
}

/** True when Redis answers PING at the URL. */
export async function redisAvailable(url: string): Promise<boolean> {
  const { default: IORedis } = await import('ioredis');
  const r = new IORedis(url, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1500, retryStrategy: () => null });
  try {
    await r.connect();
    return (await r.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}

/** How long a claimed Redis database stays another file's: longer than any test file that uses one runs. */
const REDIS_DB_CLAIM_S = 900;

/**
 * A Redis database of its own at `base` (1-15), emptied first, so that queues of other runs do not mix
 * in. Claimed in database 0 (SET NX with an expiry): test files run in parallel, and two that drew the
 * same number at random flushed each other's queues and counted each other's workers.
 */
export async function emptyRedisDb(base: string): Promise<string> {
  const { default: IORedis } = await import('ioredis');
  const claims = new IORedis(`${base}/0`);
  try {
    const token = `${process.pid}-${randomUUID()}`;
    const order = Array.from({ length: 15 }, (_, i) => i + 1).sort(() => Math.random() - 0.5);
    for (const n of order) {
      if ((await claims.set(`fieldmap-test:redis-db:${n}`, token, 'EX', REDIS_DB_CLAIM_S, 'NX')) !== 'OK') continue;
      const url = `${base}/${n}`;
      const r = new IORedis(url);
      await r.flushdb();
      r.disconnect();
      return url;
    }
    throw new Error(`every Redis database 1-15 at ${base} is claimed by a test file of the last ${REDIS_DB_CLAIM_S} s`);
  } finally {
    claims.disconnect();
  }
}
