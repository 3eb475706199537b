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

/** Whether Redis answers a PING within `timeoutMs`. */
export async function redisAnswers(timeoutMs = 1_000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      redisClient().ping().then((r) => r === 'PONG'),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs))),
    ]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
