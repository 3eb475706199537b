// Connections to Redis (REDIS_URL, the scale-out setup): the task queues', and one client per process
// for plain commands (rate-limit counters, the health check).
import IORedis from 'ioredis';
import { config } from './config';

/** A new connection for BullMQ, which needs maxRetriesPerRequest null on the connections workers use. */
export function redisConnection(): IORedis {
  return new IORedis(config().REDIS_URL!, { maxRetriesPerRequest: null });
}

let commands: IORedis | undefined;

/** The process's client for plain commands: a command fails after one reconnection attempt rather than wait for Redis to come back. */
export function redisClient(): IORedis {
  if (!commands) {
    commands = new IORedis(config().REDIS_URL!, { maxRetriesPerRequest: 1 });
    // Reconnection errors are ioredis's to retry; each command that needs Redis says what it got.
    commands.on('error', () => undefined);
  }
  return commands;
}

/**
 * What `work` answers within `ms`, else `fallback` (also when it fails): ioredis keeps a command while
 * it reconnects, for ever on a queue's connection, and a request must not wait for Redis that long.
 */
export async function withinTime<T, F>(work: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([work, new Promise<F>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)))]);
  } catch {
    return fallback;
  } finally {
    clearTimeout(timer);
  }
}

/** Whether Redis answers a PING within `timeoutMs`. */
export const redisAnswers = (timeoutMs = 1_000): Promise<boolean> => withinTime(redisClient().ping().then((r) => r === 'PONG'), timeoutMs, false);
