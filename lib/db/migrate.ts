// Applies the versioned SQL migrations in prisma/migrations/<provider>/ in order, each in its own
// transaction, recording name and checksum in `_migrations`. Prisma's migrate CLI needs a schema
// engine binary downloaded at run time; this runner needs nothing but the database drivers, so it
// works offline. The SQL files are generated from prisma/models.prisma by `npm run db:diff`.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { SqliteFileClient } from './sqlite-file-client';
import type { DbTarget } from './target';

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export function migrationsDir(kind: DbTarget['kind'], root = process.cwd()): string {
  return join(root, 'prisma', 'migrations', kind);
}

export function readMigrations(kind: DbTarget['kind'], root?: string): Migration[] {
  const dir = migrationsDir(kind, root);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((f) => {
      const sql = readFileSync(join(dir, f), 'utf8');
      return { name: f.replace(/\.sql$/, ''), sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS "_migrations" (
  "name" TEXT PRIMARY KEY, "checksum" TEXT NOT NULL, "applied_at" TEXT NOT NULL)`;

function checkApplied(applied: Map<string, string>, all: Migration[]): Migration[] {
  for (const [name, checksum] of applied) {
    const m = all.find((x) => x.name === name);
    if (!m) throw new Error(`Database has migration ${name}, which this release does not know: is the code older than the database?`);
    if (m.checksum !== checksum) throw new Error(`Migration ${name} was changed after it was applied (checksum mismatch).`);
  }
  return all.filter((m) => !applied.has(m.name));
}

/** Applies pending migrations; returns the names applied. Safe to run from several processes at once. */
export async function migrate(target: DbTarget, root?: string): Promise<string[]> {
  const all = readMigrations(target.kind, root);
  return target.kind === 'sqlite' ? migrateSqlite(target.file, all) : migratePostgres(target.url, all);
}

/**
 * A v2026.2 database (tables owner, field, fieldscan, fieldzone, no record of migrations) must go
 * through its upgrade (README, "Upgrading from v2026.2"), which keeps a backup and converts it whole.
 * Migrating it here would fail half-way on its old tables, after changing the file.
 */
export class LegacyDatabaseError extends Error {
  constructor(file: string) {
    super(`${file} is a v2026.2 database. Upgrade it first: npm run migrate:v2026.2 -- --db ${file} (README, "Upgrading from v2026.2"). It was left untouched.`);
    this.name = 'LegacyDatabaseError';
  }
}

/** Throws LegacyDatabaseError for a v2026.2 file, reading it only. */
export async function refuseLegacySqlite(file: string): Promise<void> {
  if (!existsSync(file)) return;
  const client = new SqliteFileClient(file);
  try {
    const tables = new Set((await client.execute("SELECT name FROM sqlite_master WHERE type = 'table'")).rows.map((r) => String(r.name)));
    if (!tables.has('_migrations') && ['owner', 'field', 'fieldscan', 'fieldzone'].every((t) => tables.has(t))) throw new LegacyDatabaseError(file);
  } finally {
    client.close();
  }
}

async function migrateSqlite(file: string, all: Migration[]): Promise<string[]> {
  await refuseLegacySqlite(file);
  const client = new SqliteFileClient(file);
  try {
    await client.execute('PRAGMA journal_mode = WAL');
    await client.execute(CREATE_TABLE);
    const done: string[] = [];
    for (;;) {
      // One migration per write transaction; re-read the applied list inside it so that two
      // processes starting together do not apply the same file twice.
      const tx = await client.transaction();
      try {
        const rows = await tx.execute('SELECT name, checksum FROM "_migrations"');
        const pending = checkApplied(new Map(rows.rows.map((r) => [String(r.name), String(r.checksum)])), all);
        const next = pending[0];
        if (!next) {
          await tx.rollback();
          return done;
        }
        await tx.executeMultiple(next.sql);
        await tx.execute({
          sql: 'INSERT INTO "_migrations" (name, checksum, applied_at) VALUES (?, ?, ?)',
          args: [next.name, next.checksum, new Date().toISOString()],
        });
        await tx.commit();
        done.push(next.name);
      } catch (err) {
        if (!tx.closed) await tx.rollback();
        throw err;
      } finally {
        tx.close();
      }
    }
  } finally {
    client.close();
  }
}

async function migratePostgres(url: string, all: Migration[]): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('BEGIN');
    // Serialises concurrent starters; released at COMMIT.
    await client.query('SELECT pg_advisory_xact_lock(72616970)');
    await client.query(CREATE_TABLE);
    const rows = await client.query<{ name: string; checksum: string }>('SELECT name, checksum FROM "_migrations"');
    const pending = checkApplied(new Map(rows.rows.map((r) => [r.name, r.checksum])), all);
    for (const m of pending) {
      await client.query(m.sql);
      await client.query('INSERT INTO "_migrations" (name, checksum, applied_at) VALUES ($1, $2, $3)', [
        m.name,
        m.checksum,
        new Date().toISOString(),
      ]);
    }
    await client.query('COMMIT');
    return pending.map((m) => m.name);
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    await client.end();
  }
}
