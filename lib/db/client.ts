// The one Prisma client of the process, on SQLite (libsql driver adapter) or PostgreSQL (pg), chosen
// from the configuration. Both clients come from the same models, so they share one type.
import type { Client, Config } from '@libsql/client';
import { PrismaLibSql } from '@prisma/adapter-libsql';
import { PrismaPg } from '@prisma/adapter-pg';
import { config } from '../config';
import { log } from '../log';
import { PrismaClient as PostgresClient } from './generated/postgresql/client';
import { PrismaClient as SqliteClient } from './generated/sqlite/client';
import { makeDataPathsRelative } from './data-paths';
import { migrate } from './migrate';
import { SQLITE_LOCK_WAIT_MS, SqliteFileClient } from './sqlite-file-client';
import { type DbTarget, dbTarget, sqliteUrl } from './target';

export type Db = SqliteClient;
export type { Prisma } from './generated/sqlite/client';
/** The client inside `db.$transaction(async (tx) => …)`; a plain `Db` can stand in for it. */
export type DbTx = import('./generated/sqlite/client').Prisma.TransactionClient;

export function createDb(target: DbTarget): Db {
  if (target.kind === 'postgresql') {
    const options = preparesStatements(target.url) ? { statementNameGenerator: statementNames(STATEMENT_NAMES_AT_MOST) } : {};
    const adapter = new PrismaPg({ connectionString: target.url, max: 10 }, options);
    // Same models, same generated API: only the SQL dialect differs.
    return new PostgresClient({ adapter }) as unknown as Db;
  }
  return new SqliteClient({
    adapter: new PrismaSqliteFile(target.file),
    // A transaction may wait for the write lock held by another process or a task thread (see
    // SqliteFileClient); Prisma must not give up on it sooner.
    transactionOptions: { maxWait: SQLITE_LOCK_WAIT_MS + 1000 },
  });
}

const STATEMENT_NAMES_AT_MOST = 500;
const STATEMENT_ARGS_AT_MOST = 32;

/**
 * Names PostgreSQL's prepared statements after their text, so that a pooled connection parses each
 * statement once rather than on every query (Prisma's adapter names none unless told; what it
 * saved is in bench/HISTORY.md, 2026-11-24). Bounded, since the server keeps a named statement for
 * the connection's life: statements of many arguments (bulk inserts, long IN lists, whose text
 * varies with their length) and any beyond the first `limit` texts stay unnamed, parsed each time.
 */
export function statementNames(limit: number): (query: { sql: string; args: unknown[] }) => string {
  const names = new Map<string, string>();
  return ({ sql, args }) => {
    const known = names.get(sql);
    if (known !== undefined) return known;
    if (args.length > STATEMENT_ARGS_AT_MOST || names.size >= limit) return '';
    const name = `fm${names.size}`;
    names.set(sql, name);
    return name;
  };
}

/**
 * A pooler in transaction mode (PgBouncer before 1.21) hands each statement to any server
 * connection, where a statement prepared on another is unknown; `pgbouncer=true` in the URL, as
 * Prisma's own engines read it, turns naming off.
 */
export function preparesStatements(url: string): boolean {
  try {
    return new URL(url).searchParams.get('pgbouncer') !== 'true';
  } catch {
    return true;
  }
}

/** Prisma's libsql adapter on our own connection handling (see sqlite-file-client for why). */
class PrismaSqliteFile extends PrismaLibSql {
  readonly #file: string;

  constructor(file: string) {
    super({ url: sqliteUrl(file) });
    this.#file = file;
  }

  override createClient(config: Config): Client {
    // Prisma's shadow database is in memory: one connection, which the plain client keeps.
    if (config.url === ':memory:') return super.createClient(config);
    return new SqliteFileClient(this.#file) as unknown as Client;
  }
}

// Kept on globalThis so that `next dev` reloads do not open a new pool each time.
const holder = globalThis as unknown as { __fieldmapDb?: { db: Db; ready: Promise<void> } };

export function db(): Db {
  return ensureDb().db;
}

/**
 * Resolves once pending migrations are applied (a new empty database starts cleanly) and the file
 * paths recorded under DATA_DIR are relative to it (lib/db/data-paths.ts); route handlers await it
 * before their first query.
 */
export function dbReady(): Promise<void> {
  return ensureDb().ready;
}

function ensureDb() {
  if (!holder.__fieldmapDb) {
    const target = dbTarget(config());
    const client = createDb(target);
    const ready = migrate(target)
      .then(() => makeDataPathsRelative(client, config().dataDir))
      .then((changed) => {
        if (changed.scans || changed.tasks) log.info({ ...changed, dataDir: config().dataDir }, 'recorded stored file paths relative to DATA_DIR');
      });
    ready.catch(() => {
      // Let the next request try again (a database that was down at start may come back).
      holder.__fieldmapDb = undefined;
    });
    holder.__fieldmapDb = { db: client, ready };
  }
  return holder.__fieldmapDb;
}
