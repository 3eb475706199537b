import { closeSync, mkdtempSync, openAsBlob, openSync, rmSync, writeSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { api, baseUrl, dbKind } from '../helpers/context';
import { registerCompany } from '../helpers/company';
import { startServer } from '../helpers/server';
import { scratchSqlite } from '@/lib/db/scratch';

describe('service basics', () => {
  it('reports health with the database and queue in use', async () => {
    const res = await api().get('/api/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, database: dbKind(), queue: 'local', version: expect.stringMatching(/^\d{4}\.\d+\.\d+$/) });
  });

  it('answers unknown /api paths with the JSON 404 envelope in the caller language', async () => {
    const en = await api().get('/api/no/such/thing', { 'accept-language': 'en-GB,en;q=0.9' });
    expect(en.status).toBe(404);
    expect(en.body).toEqual({ success: false, error: 'There is no path /api/no/such/thing' });
    const ru = await api().post('/api/nothing-here', {});
    expect(ru.status).toBe(404);
    expect(ru.body.error).toBe('Путь /api/nothing-here не существует');
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

  it('keeps a request id the client sent', async () => {
    const res = await fetch(baseUrl() + '/api/health', { headers: { 'x-request-id': 'abc-123' } });
    expect(res.headers.get('x-request-id')).toBe('abc-123');
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
});
