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
  return {
    success: database,
    database: c.databaseKind,
    queue: c.REDIS_URL ? ('redis' as const) : ('local' as const),
    version: pkg.version,
    ...(database ? {} : { error: 'database unavailable' }),
  };
}
