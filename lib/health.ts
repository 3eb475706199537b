// GET /api/health: which database and queue this process uses, and whether the database answers.
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
  const error = [database ? '' : 'database unavailable', queue ? '' : 'queue unavailable'].filter(Boolean).join('; ');
  return {
    success: database && queue,
    database: c.databaseKind,
    queue: c.REDIS_URL ? ('redis' as const) : ('local' as const),
    version: pkg.version,
    ...(error ? { error } : {}),
  };
}
