// Each web process keeps the sessions it has looked up (lib/auth/session-cache.ts); a change to
// sessions, users or companies through the server clears every process's before its answer leaves.
// Each check asks on new connections, which the server hands to its two processes in turn, after
// both have kept the session (the request log names the process that answered). The same log names
// the user and company of each signed-in request.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '@/lib/db/client';
import type { ScratchDb } from '@/lib/db/scratch';
import { Api } from '../helpers/api';
import { PASSWORD, createCompany } from '../helpers/company';
import { scratchOfThisPass } from '../helpers/context';
import { type TestServer, startServer } from '../helpers/server';

const ASKS = 6;

interface RequestLine {
  msg?: string;
  requestId?: string;
  pid?: number;
  status?: number;
  userId?: number;
  companyId?: number;
}

/** GET on a connection of its own (so each may go to the other process): status and parsed body. */
function getOnNewConnection(url: string, cookie: string | undefined, requestId: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false, headers: { 'x-request-id': requestId, ...(cookie ? { cookie: `session_token=${cookie}` } : {}) } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      })
      .on('error', reject);
  });
}

describe('the session caches of a server of several web processes', () => {
  let scratch: ScratchDb;
  let server: TestServer;
  let logFile: string;
  const asEach = async (api: Api, path: string, ids: string[] = []) => {
    const answers = [];
    for (let i = 0; i < ASKS; i++) {
      ids.push(randomUUID());
      answers.push(await getOnNewConnection(`${server.url}${path}`, api.cookie, ids.at(-1)!));
    }
    return answers;
  };
  /** Each request's last log line, by request id (each carries its request's id and its process's). */
  const requestLines = async (ids: string[]) => {
    for (const deadline = Date.now() + 10_000; ; await new Promise((r) => setTimeout(r, 50))) {
      const lines = new Map<string, RequestLine>();
      for (const line of readFileSync(logFile, 'utf8').split('\n')) {
        if (!line.startsWith('{')) continue;
        const entry = JSON.parse(line) as RequestLine;
        if (entry.msg === 'request' && entry.requestId && entry.pid) lines.set(entry.requestId, entry);
      }
      if (ids.every((id) => lines.has(id))) return lines;
      if (Date.now() > deadline) throw new Error(`no log line for ${ids.filter((id) => !lines.has(id)).length} of the requests`);
    }
  };
  /** The processes that logged these requests. */
  const answeredBy = async (ids: string[]) => {
    const lines = await requestLines(ids);
    return new Set(ids.map((id) => lines.get(id)!.pid));
  };
  /** Both processes answer `api` (and keep its session). */
  const warmBoth = async (api: Api) => {
    const ids: string[] = [];
    const answers = await asEach(api, '/api/auth/profile', ids);
    expect(answers.map((a) => a.status)).toEqual(Array(ASKS).fill(200));
    expect((await answeredBy(ids)).size, 'processes that answered').toBe(2);
  };

  beforeAll(async () => {
    scratch = await scratchOfThisPass();
    logFile = join(mkdtempSync(join(tmpdir(), 'fieldmap-log-')), 'server.log');
    server = await startServer({ env: { ...scratch.env, LOG_LEVEL: 'info' }, logFile });
  });
  afterAll(async () => {
    await server?.stop();
    await scratch?.drop();
  });

  it('keeps a session: a change made in the database behind the server is not seen at once', async () => {
    const c = await createCompany(server.url);
    await warmBoth(c.as.viewer);
    const db = createDb(scratch.target);
    try {
      await db.user.update({ where: { id: c.users.viewer.id }, data: { firstName: 'Behind' } });
    } finally {
      await db.$disconnect();
    }
    // Documented: such a change is seen within the cache's minute (docs/accounts-and-sessions.md).
    const answers = await asEach(c.as.viewer, '/api/auth/profile');
    expect(answers.map((a) => a.body.user.first_name)).not.toContain('Behind');
  });

  it('a logout ends the session in every process', async () => {
    const c = await createCompany(server.url);
    const token = c.as.operator.cookie;
    await warmBoth(c.as.operator);
    expect((await c.as.operator.post('/api/auth/logout', {})).status).toBe(200);
    const after = await asEach(Object.assign(new Api(server.url), { cookie: token }), '/api/auth/profile');
    expect(after.map((a) => a.status)).toEqual(Array(ASKS).fill(401));
  });

  it('a profile change is seen by every process', async () => {
    const c = await createCompany(server.url);
    await warmBoth(c.as.agronomist);
    expect((await c.as.agronomist.put('/api/auth/profile', { first_name: 'Renamed' })).status).toBe(200);
    const after = await asEach(c.as.agronomist, '/api/auth/profile');
    expect(after.map((a) => a.body.user.first_name)).toEqual(Array(ASKS).fill('Renamed'));
  });

  it('a lower role and a deactivation apply in every process at once', async () => {
    const c = await createCompany(server.url);
    await warmBoth(c.as.admin);
    expect((await asEach(c.as.admin, '/api/auth/company/users')).map((a) => a.status)).toEqual(Array(ASKS).fill(200));
    expect((await c.as.owner.put(`/api/auth/company/users/${c.users.admin.id}`, { role: 'viewer' })).status).toBe(200);
    expect((await asEach(c.as.admin, '/api/auth/company/users')).map((a) => a.status)).toEqual(Array(ASKS).fill(403));

    await warmBoth(c.as.operator);
    expect((await c.as.owner.put(`/api/auth/company/users/${c.users.operator.id}`, { is_active: false })).status).toBe(200);
    expect((await asEach(c.as.operator, '/api/auth/profile')).map((a) => a.status)).toEqual(Array(ASKS).fill(401));
  });

  it('a new password ends the other sessions in every process', async () => {
    const c = await createCompany(server.url);
    const other = new Api(server.url);
    expect((await other.post('/api/auth/login', { email: c.users.viewer.email, password: PASSWORD })).status).toBe(200);
    await warmBoth(other);
    const changed = await c.as.viewer.put('/api/auth/profile', { password: PASSWORD, new_password: 'a new password 43' });
    expect(changed.status, changed.text).toBe(200);
    expect((await asEach(other, '/api/auth/profile')).map((a) => a.status)).toEqual(Array(ASKS).fill(401));
    expect((await asEach(c.as.viewer, '/api/auth/profile')).map((a) => a.status)).toEqual(Array(ASKS).fill(200));
  });

  it("names the caller's user and company on each signed-in request's log line, a refused one included", async () => {
    const c = await createCompany(server.url);
    const ids: string[] = [];
    expect((await asEach(c.as.viewer, '/api/auth/profile', ids)).map((a) => a.status)).toEqual(Array(ASKS).fill(200));
    expect((await asEach(c.as.viewer, '/api/auth/company/users', ids)).map((a) => a.status)).toEqual(Array(ASKS).fill(403));
    const lines = await requestLines(ids);
    for (const id of ids) expect(lines.get(id), id).toMatchObject({ userId: c.users.viewer.id, companyId: c.id });
    expect(ids.map((id) => lines.get(id)!.status)).toEqual([...Array(ASKS).fill(200), ...Array(ASKS).fill(403)]);
  });
});
