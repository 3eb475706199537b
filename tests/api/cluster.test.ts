// The server as `make run` starts it: a primary and WEB_CONCURRENCY web processes on one port
// (lib/server/cluster.ts), one of them the runner of the embedded background tasks.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScratchDb, scratchSqlite } from '@/lib/db/scratch';
import { createCompany, registerCompany } from '../helpers/company';
import { scratchOfThisPass } from '../helpers/context';
import { processTree, treeCpuMs, webProcesses } from '../helpers/proc';
import { type TestServer, startServer, statusOnNewConnection } from '../helpers/server';
import { missingShared, sharedPath } from '../helpers/shared-data';
import { waitForTask } from '../helpers/tasks';

const ROOT = join(import.meta.dirname, '..', '..');
const NAIP = ['raster', 'naip', 'm_4709963_se_14_1_20190904.tif'] as const;
const missingNaip = missingShared(...NAIP);
if (missingNaip) console.warn(`skipping the task half of the runner-restart test: ${missingNaip}`);
const FIELD = { type: 'Polygon', coordinates: [[[-99.17, 47.01], [-99.14, 47.01], [-99.14, 47.03], [-99.17, 47.03], [-99.17, 47.01]]] };
const rect = (x: number, y: number) => ({ type: 'Polygon', coordinates: [[[x, y], [x + 0.01, y], [x + 0.01, y + 0.01], [x, y + 0.01], [x, y]]] });

async function waitFor<T>(what: string, probe: () => T | undefined | false, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** GET with the session on a connection of its own: each new connection may go to another process. */
const getOnNewConnection = (url: string, cookie: string) => statusOnNewConnection(url, cookie ? { cookie: `session_token=${cookie}` } : {});

describe('a server of several web processes', () => {
  let scratch: ScratchDb;
  let server: TestServer;

  beforeAll(async () => {
    scratch = await scratchOfThisPass();
    server = await startServer({ env: scratch.env });
  });
  afterAll(async () => {
    await server?.stop();
    await scratch?.drop();
  });

  it('is a primary and two web processes, exactly one of them the runner', async () => {
    const web = await waitFor('two web processes', () => webProcesses(server).length === 2 && webProcesses(server));
    expect(web.map((w) => w.role).sort()).toEqual(['runner', 'web']);
    expect(web.every((w) => !w.restarted)).toBe(true);
  });

  it('counts a rate limit for the whole server, whichever process answers', async () => {
    const c = await createCompany(server.url);
    const id = (await c.as.operator.post('/api/fields', { name: 'F', geometry: rect(10, 10) })).body.id;
    const url = `${server.url}/api/field/export/kmz/${id}`;
    const web = webProcesses(server);
    const cpuBefore = web.map((w) => treeCpuMs(w.pid));
    const statuses: number[] = [];
    for (let i = 0; i < 100; i++) statuses.push(await getOnNewConnection(url, c.as.operator.cookie!));
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    // Both processes did part of the work...
    web.forEach((w, i) => expect(treeCpuMs(w.pid), `${w.role} process worked`).toBeGreaterThan(cpuBefore[i]!));
    // ...and the 101st request is refused wherever it lands.
    expect(await getOnNewConnection(url, c.as.operator.cookie!)).toBe(429);
    expect(await getOnNewConnection(url, c.as.operator.cookie!)).toBe(429);
  });

  it('compresses at a fast level what the client accepts, and nothing for a client that accepts nothing', async () => {
    const { api } = await registerCompany(server.url);
    for (let i = 0; i < 30; i++) expect((await api.post('/api/fields', { name: `Поле ${i}`, geometry: rect(20 + i * 0.02, 50) })).status).toBe(201);
    const raw = (encoding?: string, path = '/api/fields') =>
      new Promise<{ encoding?: string; body: Buffer }>((resolve, reject) => {
        http
          .get(`${server.url}${path}`, { headers: { cookie: `session_token=${api.cookie}`, ...(encoding ? { 'accept-encoding': encoding } : {}) } }, (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => resolve({ encoding: res.headers['content-encoding'], body: Buffer.concat(chunks) }));
          })
          .on('error', reject);
      });
    const plain = await raw();
    expect(plain.encoding).toBeUndefined();
    const list = JSON.parse(plain.body.toString());
    expect(list.features).toHaveLength(30);
    const gzip = await raw('gzip');
    expect(gzip.encoding).toBe('gzip');
    expect(JSON.parse(gunzipSync(gzip.body).toString())).toEqual(list);
    // Level 1: zlib's header says "fastest" (XFL = 4).
    expect(gzip.body[8]).toBe(4);
    const br = await raw('gzip, deflate, br');
    expect(br.encoding).toBe('br');
    expect(JSON.parse(brotliDecompressSync(br.body).toString())).toEqual(list);
    expect(br.body.length).toBeLessThan(plain.body.length / 2);
    // A small answer has a compressor of its own (lib/server/web.mjs): the same level, whole.
    const path = `/api/fields/${list.features[0].id}`;
    const field = JSON.parse((await raw(undefined, path)).body.toString());
    expect(field.name).toBe('Поле 0');
    const smallGzip = await raw('gzip', path);
    expect(smallGzip.encoding).toBe('gzip');
    expect(smallGzip.body[8]).toBe(4);
    expect(JSON.parse(gunzipSync(smallGzip.body).toString())).toEqual(field);
    const smallBr = await raw('br', path);
    expect(smallBr.encoding).toBe('br');
    expect(JSON.parse(brotliDecompressSync(smallBr.body).toString())).toEqual(field);
  });

  // A server of its own for each process killed: connections the test's client keeps open to the
  // killed process are reset, and other tests must not reuse them.
  const ownServer = () => startServer({ env: { ...scratch.env, SERVICE_DB: join(server.dataDir, `own-${Date.now()}.db`) } });

  it('replaces a web process that dies, and keeps answering meanwhile', async () => {
    const own = await ownServer();
    try {
      const { api } = await registerCompany(own.url);
      const victim = (await waitFor('two web processes', () => webProcesses(own).length === 2 && webProcesses(own))).find((w) => w.role === 'web')!;
      process.kill(victim.pid, 'SIGKILL');
      // Once the primary has seen the death (it forks the replacement then), the survivor takes every new connection.
      const replacement = await waitFor('a new web process', () => webProcesses(own).find((w) => w.role === 'web' && w.pid !== victim.pid));
      for (let i = 0; i < 10; i++) expect(await getOnNewConnection(`${own.url}/api/fields`, api.cookie!)).toBe(200);
      expect(replacement.restarted).toBe(false);
      expect(webProcesses(own)).toHaveLength(2);
    } finally {
      await own.stop();
    }
  });

  it('replaces a runner that dies; a task submitted meanwhile is run by the new runner', async () => {
    const own = await ownServer();
    try {
      const { api } = await registerCompany(own.url);
      await api.post('/api/fields', { name: 'F', geometry: FIELD });
      const runner = (await waitFor('two web processes', () => webProcesses(own).length === 2 && webProcesses(own))).find((w) => w.role === 'runner')!;
      process.kill(runner.pid, 'SIGKILL');
      const next = await waitFor('a new runner', () => webProcesses(own).find((w) => w.role === 'runner' && w.pid !== runner.pid), 60_000);
      // It shares the data folder with a process that may be receiving uploads: no fresh-start clean-up.
      expect(next.restarted).toBe(true);
      if (!missingNaip) {
        // Submitted while the new runner starts: the other process takes the upload and the task waits for the runner.
        const res = await api.upload('/upload', { raster_file: { file: sharedPath(...NAIP), name: 'naip.tif', type: 'image/tiff' }, zones: '3' });
        expect(res.status, res.text).toBe(202);
        const task = await waitForTask(api, res.body.task_id);
        expect(task.status, JSON.stringify(task.error)).toBe('completed');
      }
      expect(webProcesses(own)).toHaveLength(2);
    } finally {
      await own.stop();
    }
  });

  it('stops with every process on SIGTERM', async () => {
    const other = await ownServer();
    const tree = await waitFor('its web processes', () => webProcesses(other).length === 2 && processTree(other.proc.pid!));
    await other.stop('SIGTERM');
    expect(other.proc.exitCode).toBe(143);
    await waitFor('all its processes gone', () => tree.every((pid) => !existsSync(`/proc/${pid}`)), 15_000);
  });
});

describe('a server that cannot start', () => {
  it('stops at once with a clear message when WEB_CONCURRENCY is wrong', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'lib/server/serve.ts'), 'start', '-p', '0'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, NODE_ENV: 'production', WEB_CONCURRENCY: 'two' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('WEB_CONCURRENCY: must be a whole number from 1 to 64, got "two"');
  });

  it('stops instead of starting processes again and again when its port is taken', async () => {
    const scratch = scratchSqlite();
    const first = await startServer({ env: scratch.env });
    try {
      const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'lib/server/serve.ts'), 'start', '-p', String(first.port), '-H', '127.0.0.1'], {
        cwd: ROOT,
        env: { PATH: process.env.PATH, NODE_ENV: 'production', ...first.env, DATA_DIR: join(first.dataDir, 'second') },
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(r.status, r.stdout + r.stderr).toBe(1);
      expect(r.stdout + r.stderr).toContain('EADDRINUSE');
      expect(await getOnNewConnection(`${first.url}/api/health`, '')).toBe(200);
    } finally {
      await first.stop();
      await scratch.drop();
    }
  });

});
