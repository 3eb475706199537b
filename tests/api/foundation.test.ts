import { closeSync, mkdtempSync, openAsBlob, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { api, baseUrl, dbKind } from '../helpers/context';
import { registerCompany } from '../helpers/company';
import { startServer } from '../helpers/server';
import { scratchSqlite } from '@/lib/db/scratch';

/**
 * Sends `text` over a socket as it is, for requests fetch will not write. A whole request answers all the
 * server sent until it closed; an unfinished one (`whole: false`) answers once a JSON body has come.
 */
function sendRawHttp(text: string, { whole = true } = {}): Promise<string> {
  const { hostname, port } = new URL(baseUrl());
  return new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => (whole ? socket.end(text) : socket.write(text)));
    let answer = '';
    socket.setEncoding('utf8').on('error', reject).on('close', () => resolve(answer)).on('data', (d) => {
      answer += d;
      if (!whole && /\r\n\r\n[\s\S]*\}/.test(answer)) socket.destroy();
    });
  });
}

describe('service basics', () => {
  it('reports health with the database and queue in use', async () => {
    const res = await api().get('/api/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, database: dbKind(), queue: 'local', version: expect.stringMatching(/^\d{4}\.\d+\.\d+$/), capabilities: { drone: true, raster: true } });
  });

  it('answers unknown /api paths with the JSON 404 envelope in the caller language', async () => {
    const en = await api().get('/api/no/such/thing', { 'accept-language': 'en-GB,en;q=0.9' });
    expect(en.status).toBe(404);
    expect(en.body).toEqual({ success: false, error: 'There is no path /api/no/such/thing' });
    const ru = await api().post('/api/nothing-here', {});
    expect(ru.status).toBe(404);
    expect(ru.body.error).toBe('Путь /api/nothing-here не существует');
    // q is case-insensitive (RFC 9110 12.4.2): `Q=0.1` ranks English below Slovak.
    expect((await api().get('/api/no/such/thing', { 'accept-language': 'en;Q=0.1,sk;q=0.5' })).body.error).toBe('Cesta /api/no/such/thing neexistuje');
    expect((await api().put('/api/stats', {}, { 'accept-language': 'en;Q=0.1,sk;q=0.5' })).body.error).toBe('Metóda PUT nie je pre túto cestu podporovaná');
  });

  it('answers a method a path does not take with 405 in the JSON envelope, compressed or not', async () => {
    const put = await api().put('/api/stats', {}, { 'accept-language': 'en' });
    expect(put.status).toBe(405);
    expect(put.body).toEqual({ success: false, error: 'Method PUT is not supported on this path' });
    const get = await fetch(baseUrl() + '/upload', { headers: { 'accept-encoding': 'gzip', cookie: 'NEXT_LOCALE=sk' } });
    expect(get.status).toBe(405);
    expect(await get.json()).toEqual({ success: false, error: 'Metóda GET nie je pre túto cestu podporovaná' });
    // RFC 9110 15.5.6: a 405 names the methods the path takes, as its OPTIONS answer does.
    expect(put.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(get.headers.get('allow')).toBe('OPTIONS, POST');
    const merge = await fetch(baseUrl() + '/api/fields/merge', { method: 'DELETE' });
    expect(merge.headers.get('allow')).toBe((await fetch(baseUrl() + '/api/fields/merge', { method: 'OPTIONS' })).headers.get('allow'));
    expect(merge.headers.get('allow')).toBe('OPTIONS, POST');
  });

  it('answers a method Next.js has no handler for, or a path that is not valid percent-encoding, in the JSON envelope', async () => {
    const propfind = await fetch(baseUrl() + '/api/fields/1', { method: 'PROPFIND', headers: { 'accept-language': 'en' } });
    expect(propfind.status).toBe(405);
    expect(propfind.headers.get('allow')).toBe('DELETE, GET, HEAD, OPTIONS, PUT');
    expect(await propfind.json()).toEqual({ success: false, error: 'Method PROPFIND is not supported on this path' });
    const answer = await sendRawHttp('GET /api/fields/%ZZ HTTP/1.1\r\nHost: x\r\nAccept-Language: en\r\nConnection: close\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(answer.split('\r\n\r\n')[1]!)).toEqual({ success: false, error: 'The request is not valid HTTP' });
  });

  it('answers a request that is not valid HTTP, or whose headers are too large, in the JSON envelope', async () => {
    // Node.js's own answer to these is a bare status line with an empty body.
    const malformed = await sendRawHttp('POST /api/auth/login HTTP/1.1\r\nHost: x\r\nAccept-Language: en\r\nContent-Length: nine\r\n\r\n{}');
    expect(malformed).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(JSON.parse(malformed.split('\r\n\r\n')[1]!)).toEqual({ success: false, error: 'The request is not valid HTTP' });
    const huge = await sendRawHttp(`GET /api/health HTTP/1.1\r\nHost: x\r\nAccept-Language: sk\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(huge).toMatch(/^HTTP\/1\.1 431 /);
    expect(JSON.parse(huge.split('\r\n\r\n')[1]!)).toEqual({ success: false, error: 'Hlavičky požiadavky sú príliš veľké' });
    // And the server goes on answering.
    expect((await api().get('/api/health')).status).toBe(200);
  });

  it("answers in the signed-in user's language, else the language switcher's cookie, else Accept-Language", async () => {
    const { api: sk } = await registerCompany(baseUrl(), { language: 'sk' });
    expect((await sk.get('/api/no/such/thing', { 'accept-language': 'en' })).body.error).toBe('Cesta /api/no/such/thing neexistuje');
    const login = await api().post('/api/auth/login', { email: 'nobody@example.com' }, { 'accept-language': 'ru', cookie: 'NEXT_LOCALE=en' });
    expect(login.status).toBe(422);
    expect(login.body.error).toBe('Invalid data: password: required');
  });

  it('refuses JSON bodies over 16 MB (413) before reading them, and other content types (415)', async () => {
    // A length over the limit is refused on its header alone: only the body's first bytes are sent.
    // (Through fetch, the client may still be writing 17 MB when the server answers and closes, and
    // fail with EPIPE before it reads the answer.)
    const declared = await sendRawHttp(
      `POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAccept-Language: en\r\nContent-Length: ${17 * 1024 * 1024}\r\n\r\n{"email":"a@b.c","password":"xxxx`,
      { whole: false },
    );
    expect(declared).toMatch(/^HTTP\/1\.1 413 /);
    expect(JSON.parse(declared.match(/\{.*\}/)![0])).toEqual({ success: false, error: 'The request is larger than the 16 MB allowed' });
    // Sent in chunks with no length given: refused once 16 MB have come.
    const chunk = new TextEncoder().encode('x'.repeat(1024 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(sent++ === 0 ? new TextEncoder().encode('{"email":"a@b.c","password":"') : chunk);
        if (sent > 200) controller.close();
      },
    });
    const streamed = await fetch(baseUrl() + '/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body, duplex: 'half' } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(sent).toBeLessThan(200);
    const form = await api().post('/api/auth/login', 'email=a@b.c&password=x', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(415);
    expect(form.body.success).toBe(false);
  });

  it('treats a malformed session cookie as no session (401), and keeps signed-in answers out of caches', async () => {
    for (const cookie of ['session_token=%E0%A4%A', 'session_token=%']) {
      const res = await api().get('/api/fields', { cookie });
      expect(res.status, cookie).toBe(401);
      expect(res.body.success).toBe(false);
    }
    const { api: client } = await registerCompany(baseUrl());
    expect((await client.get('/api/fields')).headers.get('cache-control')).toBe('private, no-store');
    expect((await client.get('/api/fields/999999')).headers.get('cache-control')).toBe('private, no-store');
    expect((await api().get('/api/health')).headers.get('cache-control')).not.toBe('private, no-store');
    // Fields a form does not change are refused, not dropped with a success.
    const profile = await client.put('/api/auth/profile', { email: 'new@example.com' });
    expect(profile.status).toBe(422);
    expect(profile.body.error).toBe('Invalid data: unknown fields: email');
  });

  it('puts a request id and the security headers on every response', async () => {
    for (const path of ['/api/health', '/', '/api/missing']) {
      const res = await fetch(baseUrl() + path);
      expect(res.headers.get('x-request-id') ?? (path === '/' ? 'page' : null), path).toBeTruthy();
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    }
  });

  it('lets a page run only the scripts it wrote, by a nonce of its own (no inline script of anyone else)', async () => {
    const nonces = new Set<string>();
    for (let i = 0; i < 2; i++) {
      const res = await fetch(baseUrl() + '/login', { headers: { 'accept-language': 'en' } });
      const policy = res.headers.get('content-security-policy')!;
      const scriptSrc = policy.split('; ').find((d) => d.startsWith('script-src'))!;
      expect(scriptSrc).toMatch(/^script-src 'self' 'nonce-[A-Za-z0-9+/]{22}==' 'strict-dynamic'$/);
      expect(policy).not.toContain("'unsafe-inline' 'strict-dynamic'");
      const nonce = /'nonce-([^']+)'/.exec(scriptSrc)![1]!;
      nonces.add(nonce);
      // Every script of the page carries it (Next.js read it from the request's policy).
      const html = await res.text();
      const scripts = html.match(/<script\b[^>]*>/g) ?? [];
      expect(scripts.length).toBeGreaterThan(0);
      for (const tag of scripts) expect(tag).toContain(`nonce="${nonce}"`);
    }
    expect(nonces.size).toBe(2);
    // An API answer runs nothing: it draws no nonce.
    expect((await fetch(baseUrl() + '/api/health')).headers.get('content-security-policy')).toContain("script-src 'self';");
  });

  it('keeps a request id the client sent', async () => {
    const res = await fetch(baseUrl() + '/api/health', { headers: { 'x-request-id': 'abc-123' } });
    expect(res.headers.get('x-request-id')).toBe('abc-123');
  });

  it('refuses a compressed request body with 415 naming what it takes, and writes nothing', async () => {
    const { gzipSync } = await import('node:zlib');
    const body = gzipSync(JSON.stringify({ email: 'gz@example.com', password: 'whatever1', company_name: 'GZ', first_name: 'G', last_name: 'Z', language: 'en' }));
    const res = await fetch(baseUrl() + '/api/auth/register', { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', 'accept-language': 'en' }, body });
    expect(res.status).toBe(415);
    expect(res.headers.get('accept-encoding')).toBe('identity');
    expect(await res.json()).toEqual({ success: false, error: 'Request bodies are taken uncompressed: Content-Encoding “gzip” is not supported' });
    expect((await api().post('/api/auth/login', { email: 'gz@example.com', password: 'whatever1' })).status).toBe(401);
  });

  it('answers malformed JSON with 400 and writes nothing', async () => {
    const res = await api().post('/api/auth/register', '{"email": "x@y.z", "password": ', { 'content-type': 'application/json' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error: 'Тело запроса не является корректным JSON' });
    const again = await api().post('/api/auth/login', { email: 'x@y.z', password: 'whatever1' });
    expect(again.status).toBe(401);
  });

  it('serves the home page', async () => {
    const res = await fetch(baseUrl() + '/', { headers: { 'accept-language': 'sk' } });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Vitajte vo Fieldmap');
  });
});

describe('client addresses', () => {
  it('without a proxy in front, what a client writes in X-Forwarded-For or X-Forwarded-Proto is not taken: its failed sign-ins count as its own, its cookie is not Secure', async () => {
    // A server of its own, with no TRUSTED_PROXIES, as `make run` starts it.
    const scratch = scratchSqlite();
    const server = await startServer({ env: scratch.env });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 51; i++) {
        const res = await fetch(`${server.url}/api/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': `198.51.100.${i}` },
          body: JSON.stringify({ email: `nobody-${i}@example.test`, password: 'wrong-password' }),
        });
        statuses.push(res.status);
      }
      // Each request named another address; all came from one socket, whose fifty failures are the limit.
      expect(statuses.slice(0, 50).every((s) => s === 401)).toBe(true);
      expect(statuses[50]).toBe(429);
      // Nor is its word that it came over HTTPS: the cookie of a plain-HTTP answer is not marked
      // Secure, or the browser would not send it back over plain HTTP.
      const registered = await fetch(`${server.url}/api/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-proto': 'https' },
        body: JSON.stringify({ email: `proto-${Date.now()}@example.test`, password: 'correct horse 42', company_name: `Proto ${Date.now()}` }),
      });
      expect(registered.status).toBe(201);
      expect(registered.headers.get('set-cookie')).toMatch(/^session_token=[\w-]+\.[\w-]+;/);
      expect(registered.headers.get('set-cookie')).not.toMatch(/Secure/);
    } finally {
      await server.stop();
      await scratch.drop();
    }
  });
});

describe('streamed uploads', () => {
  it('a 200 MB upload arrives whole while server memory grows by less than 100 MB', async () => {
    // A server of its own: the shared one serves other test files at the same time, and their work
    // would count in its memory.
    const scratch = scratchSqlite();
    const server = await startServer({ env: scratch.env });
    const { api: client } = await registerCompany(server.url);
    const dir = mkdtempSync(join(tmpdir(), 'big-upload-'));
    const file = join(dir, 'big.bin');
    const hash = createHash('sha256');
    const fd = openSync(file, 'w');
    const chunk = randomBytes(4 * 1024 * 1024);
    for (let i = 0; i < 50; i++) {
      writeSync(fd, chunk);
      hash.update(chunk);
    }
    closeSync(fd);
    const before = server.rss();
    expect(before).toBeGreaterThan(0);
    let peak = before;
    const timer = setInterval(() => {
      peak = Math.max(peak, server.rss());
    }, 25);
    try {
      const form = new FormData();
      form.append('file', await openAsBlob(file), 'big.bin');
      form.append('note', 'hello');
      const res = await client.request('POST', '/api/diagnostics/upload', form);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ success: true, size: 200 * 1024 * 1024, sha256: hash.digest('hex'), fields: { note: 'hello' } });
    } finally {
      clearInterval(timer);
      rmSync(dir, { recursive: true, force: true });
      await server.stop();
      await scratch.drop();
    }
    expect(peak - before).toBeLessThan(100 * 1024 * 1024);
  });

  it('refuses a part that grows past its limit with 413, and the server throws nothing it does not catch', async () => {
    // A server of its own, so that its log holds this test's requests alone.
    const scratch = scratchSqlite();
    const logFile = join(mkdtempSync(join(tmpdir(), 'over-limit-')), 'server.log');
    const server = await startServer({ env: { ...scratch.env, LOG_LEVEL: 'info' }, logFile });
    try {
      const { api: client } = await registerCompany(server.url);
      // Under the request's declared limit (the raster part may take 1 GB), over the shapefile part's 50 MB.
      const zip = new Blob([randomBytes(52 * 1024 * 1024)]);
      // The throw came from a race with the socket: one refusal in three or four showed it.
      let read = 0;
      for (let i = 0; i < 8; i++) {
        const form = new FormData();
        form.append('shapefile_zip', zip, 'parcels.zip');
        // The 413 closes the connection without reading the rest: a client still sending may see it cut
        // (EPIPE, ECONNRESET) before it reads the answer. What the server answered, its log says below.
        const res = await client.request('POST', '/upload', form).catch((err: unknown) => {
          if (/EPIPE|ECONNRESET|UND_ERR_SOCKET/.test(String((err as { cause?: { code?: string } }).cause?.code))) return null;
          throw err;
        });
        if (!res) continue;
        read++;
        expect(res.status).toBe(413);
        expect(res.body.success).toBe(false);
      }
      expect(read).toBeGreaterThan(0);
      expect((await client.get('/api/health')).status).toBe(200);
    } finally {
      await server.stop();
      await scratch.drop();
    }
    // Cancelling the body Next.js was still feeding made its next write throw ERR_INVALID_STATE, uncaught.
    const log = readFileSync(logFile, 'utf8');
    expect(log).not.toMatch(/uncaughtException|ERR_INVALID_STATE/);
    const answers = log.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { msg?: string; method?: string; status?: number });
    expect(answers.filter((l) => l.msg === 'request' && l.method === 'POST' && l.status === 413)).toHaveLength(8);
  });
});
