// Throw-away databases for tests, benchmarks and `npm run db:diff`.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { DbTarget } from './target';

export const POSTGRES_ADMIN_URL = process.env.POSTGRES_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';

export interface ScratchDb {
  target: DbTarget;
  env: Record<string, string>;
  drop(): Promise<void>;
}

export function scratchSqlite(): ScratchDb {
  const dir = mkdtempSync(join(tmpdir(), 'fieldmap-db-'));
  const file = join(dir, 'fields.db');
  return {
    target: { kind: 'sqlite', file },
    env: { SERVICE_DB: file },
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** True when a PostgreSQL server answers at POSTGRES_ADMIN_URL. */
export async function postgresAvailable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function scratchPostgres(): Promise<ScratchDb> {
  const name = `fieldmap_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    target: { kind: 'postgresql', url: url.toString() },
    env: { DATABASE_URL: url.toString() },
    drop: async () => {
      const c = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    },
  };
}
