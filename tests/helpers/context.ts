// What API tests share: the server of this run, and a database handle on the same database for the
// few checks that must look underneath the API (stored hashes, expiry).
import { inject } from 'vitest';
import { createDb } from '../../lib/db/client';
import { type ScratchDb, scratchPostgres, scratchSqlite } from '../../lib/db/scratch';
import { dbTarget } from '../../lib/db/target';
import { Api } from './api';
import { treeRssBytes } from './proc';

export const baseUrl = () => inject('baseUrl');
export const dbKind = () => inject('dbKind');
export const serverEnv = () => inject('serverEnv');

/** Resident memory of the shared server's processes, from /proc. */
export const serverRss = () => treeRssBytes(inject('serverPid'));
export const api = () => new Api(inject('baseUrl'));

/** A database of its own, of the kind this pass of the API tests runs on, for a test that starts a server of its own. */
export const scratchOfThisPass = (): Promise<ScratchDb> => (dbKind() === 'postgresql' ? scratchPostgres() : Promise.resolve(scratchSqlite()));

export function directDb() {
  const env = inject('serverEnv');
  return createDb(dbTarget({ SERVICE_DB: env.SERVICE_DB ?? 'fields.db', DATABASE_URL: env.DATABASE_URL }));
}

/**
 * Direct writes share the SQLite file with the server, whose own transactions (an import running in
 * another test file) may hold the write lock for a moment: such a write is tried again.
 */
export async function retried<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (err) {
      if (attempt >= 5) throw err;
      await new Promise((r) => setTimeout(r, 250 * attempt));
    }
  }
}
