// GET /api/health: which database and queue this process uses, whether they answer, and (with
// Redis) how many worker processes take tasks, and which features this machine's programs allow.
import { capabilities, missingReasons } from './capabilities';
import { config } from './config';
import type { Db } from './db/client';
import pkg from '../package.json';

export async function healthReport(db: Db) {
  const c = config();
  let database = true;
  try {
    await db.$queryRawUnsafe('SELECT 1');
  } catch {
    database = false;
  }
  // Uploads need the queue: with Redis not answering they are refused (503), so the service is not healthy.
  const queue = c.REDIS_URL ? await (await import('./redis')).redisAnswers() : true;
  // With no worker process, uploads are taken but wait: said, though the web tier itself is healthy
  // (a load balancer must not take every web server out for it).
  const workers = c.REDIS_URL && queue ? await (await import('./tasks/redis-queue')).workersTakingTasks() : undefined;
  const error = [database ? '' : 'database unavailable', queue ? '' : 'queue unavailable'].filter(Boolean).join('; ');
  return {
    success: database && queue,
    database: c.databaseKind,
    queue: c.REDIS_URL ? ('redis' as const) : ('local' as const),
    ...(workers !== undefined ? { workers } : {}),
    ...(workers === 0 ? { warning: 'no worker process is taking tasks: uploads wait until one starts (npm run worker)' } : {}),
    // What this machine can do: a feature whose program is missing is refused at once (lib/capabilities.ts).
    capabilities: capabilities().available,
    ...(Object.keys(capabilities().missing).length ? { capabilities_missing: missingReasons(capabilities()) } : {}),
    version: pkg.version,
    ...(error ? { error } : {}),
  };
}
