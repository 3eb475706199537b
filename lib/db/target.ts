// Which database the service talks to, from the configuration: SQLite by default, PostgreSQL when
// DATABASE_URL is set.
import { resolve } from 'node:path';

export type DbTarget = { kind: 'sqlite'; file: string } | { kind: 'postgresql'; url: string };

export function dbTarget(env: { SERVICE_DB: string; DATABASE_URL?: string }): DbTarget {
  return env.DATABASE_URL ? { kind: 'postgresql', url: env.DATABASE_URL } : { kind: 'sqlite', file: resolve(env.SERVICE_DB) };
}

export const sqliteUrl = (file: string) => `file:${file}`;
