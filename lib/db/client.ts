// The one Prisma client of the process, on SQLite (libsql driver adapter) or PostgreSQL (pg), chosen
// from the configuration. Both clients come from the same models, so they share one type.
import './sqlite-busy-timeout';
import { PrismaLibSql } from '@prisma/adapter-libsql';
import { PrismaPg } from '@prisma/adapter-pg';
import { config } from '../config';
import { PrismaClient as PostgresClient } from './generated/postgresql/client';
import { PrismaClient as SqliteClient } from './generated/sqlite/client';
import { migrate } from './migrate';
import { type DbTarget, dbTarget, sqliteUrl } from './target';

export type Db = SqliteClient;
export type { Prisma } from './generated/sqlite/client';

export function createDb(target: DbTarget): Db {
  if (target.kind === 'postgresql') {
    const adapter = new PrismaPg({ connectionString: target.url, max: 10 });
    // Same models, same generated API: only the SQL dialect differs.
    return new PostgresClient({ adapter }) as unknown as Db;
  }
  return new SqliteClient({ adapter: new PrismaLibSql({ url: sqliteUrl(target.file) }) });
}

/** SQLite settings: foreign keys enforced (the busy timeout is set per connection, see sqlite-busy-timeout). */
export async function prepareDb(db: Db, kind: DbTarget['kind']): Promise<void> {
  if (kind !== 'sqlite') return;
  await db.$queryRawUnsafe('PRAGMA foreign_keys = ON');
  await db.$queryRawUnsafe('PRAGMA synchronous = NORMAL');
}

// Kept on globalThis so that `next dev` reloads do not open a new pool each time.
const holder = globalThis as unknown as { __fieldmapDb?: { db: Db; ready: Promise<void> } };

export function db(): Db {
  return ensureDb().db;
}

/**
 * Resolves once pending migrations are applied (a new empty database starts cleanly) and the
 * connection is configured; route handlers await it before their first query.
 */
export function dbReady(): Promise<void> {
  return ensureDb().ready;
}

function ensureDb() {
  if (!holder.__fieldmapDb) {
    const target = dbTarget(config());
    const client = createDb(target);
    const ready = migrate(target).then(() => prepareDb(client, target.kind));
    ready.catch(() => {
      // Let the next request try again (a database that was down at start may come back).
      holder.__fieldmapDb = undefined;
    });
    holder.__fieldmapDb = { db: client, ready };
  }
  return holder.__fieldmapDb;
}
