// One real server per API run, on a fresh SQLite file or (TEST_DB=postgresql) a fresh PostgreSQL
// database that is dropped afterwards.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
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

const ROOT = join(import.meta.dirname, '..', '..');

export default async function setup(project: TestProject) {
  const kind = process.env.TEST_DB === 'postgresql' ? 'postgresql' : 'sqlite';
  const scratch = kind === 'postgresql' ? await scratchPostgres() : scratchSqlite();
  // The server's own output stays in test-results/ so that a failed run can be diagnosed afterwards.
  mkdirSync(join(ROOT, 'test-results'), { recursive: true });
  rmSync(join(ROOT, 'test-results', `server-${kind}.log`), { force: true });
  // Drone mosaics re-match their seams, so that the API tests check the output itself. The server is
  // as if behind one reverse proxy, so that a test can come from an address of its own
  // (X-Forwarded-For); every request here comes from one socket address.
  const server = await startServer({ env: { ...scratch.env, DRONE_SEAM_CHECK: '1', TRUSTED_PROXIES: '1' }, logFile: join(ROOT, 'test-results', `server-${kind}.log`) });
  project.provide('baseUrl', server.url);
  project.provide('dbKind', kind);
  project.provide('serverEnv', server.env);
  project.provide('serverPid', server.proc.pid ?? 0);
  return async () => {
    await server.stop();
    await scratch.drop();
  };
}
