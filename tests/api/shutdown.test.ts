// Graceful shutdown of a web process (issue 8): on SIGTERM it stops taking connections, finishes the
// request in flight (here an upload still arriving), removes that upload's temporary file, and exits.
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scratchSqlite } from '@/lib/db/scratch';
import { registerCompany } from '../helpers/company';
import { dbKind } from '../helpers/context';
import { startServer } from '../helpers/server';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Its own server on its own SQLite file: once per run is enough.
const reason = dbKind() !== 'sqlite' ? 'the shutdown test runs in the SQLite pass' : undefined;
if (reason) console.warn(`skipping: ${reason}`);

describe.skipIf(!!reason)('SIGTERM to a web process', () => {
  it('finishes the upload in flight, cleans up after it, then exits', async () => {
    const scratch = scratchSqlite();
    const server = await startServer({ env: scratch.env });
    const { api } = await registerCompany(server.url);
    const body = randomBytes(4 * 1024 * 1024);
    const boundary = `b${randomBytes(8).toString('hex')}`;
    const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const exited = new Promise<number | null>((r) => server.proc.once('exit', (code) => r(code)));

    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(`${server.url}/api/diagnostics/upload`, {
        method: 'POST',
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': head.length + body.length + tail.length, cookie: `session_token=${api.cookie}` },
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on('error', reject);
      void (async () => {
        req.write(head);
        // A quarter arrives, then the signal, then the rest, slowly.
        req.write(body.subarray(0, 1024 * 1024));
        await pause(500);
        server.proc.kill('SIGTERM');
        for (let off = 1024 * 1024; off < body.length; off += 256 * 1024) {
          req.write(body.subarray(off, off + 256 * 1024));
          await pause(100);
        }
        req.end(tail);
      })();
    });

    const res = await answer;
    expect(res.status, res.text).toBe(200);
    expect(JSON.parse(res.text)).toMatchObject({ success: true, size: body.length, sha256: createHash('sha256').update(body).digest('hex') });
    // Then it leaves, by itself (143: terminated by SIGTERM after its clean-up).
    expect(await exited).toBe(143);
    expect(readdirSync(join(server.dataDir, 'tmp'))).toEqual([]);
    await scratch.drop();
  });
});
