// One real server per API run, on a fresh SQLite file or (TEST_DB=postgresql) a fresh PostgreSQL
// database that is dropped afterwards.
import type { TestProject } from 'vitest/node';
import { scratchPostgres, scratchSqlite } from '../../lib/db/scratch';
import { startServer } from '../helpers/server';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    dbKind: 'sqlite' | 'postgresql';
    serverEnv: Record<string, string>;
    serverPid: number;
  }
}

export default async function setup(project: TestProject) {
  const kind = process.env.TEST_DB === 'postgresql' ? 'postgresql' : 'sqlite';
  const scratch = kind === 'postgresql' ? await scratchPostgres() : scratchSqlite();
  const server = await startServer({ env: scratch.env });
  project.provide('baseUrl', server.url);
  project.provide('dbKind', kind);
  project.provide('serverEnv', server.env);
  project.provide('serverPid', server.proc.pid ?? 0);
  return async () => {
    await server.stop();
    await scratch.drop();
  };
}
