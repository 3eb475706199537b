// The limits of a streamed upload (lib/uploads/multipart.ts): each failure ends the upload with its
// own error, and no file written for it is left behind.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AppError } from '@/lib/errors';
import { receiveMultipart } from '@/lib/uploads/multipart';

const root = mkdtempSync(join(tmpdir(), 'fieldmap-multipart-limits-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;
const freshDir = () => join(root, String(dirs++));

const BOUNDARY = 'b';
const TYPE = `multipart/form-data; boundary=${BOUNDARY}`;
const filePart = (name: string, body: string, filename = 'a.bin') =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n${body}\r\n`;
const fieldPart = (name: string, value: string) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
const form = (...parts: string[]) => `${parts.join('')}--${BOUNDARY}--\r\n`;
const request = (body: string | ReadableStream<Uint8Array>, headers: Record<string, string> = { 'content-type': TYPE }) =>
  new Request('http://x/upload', { method: 'POST', body, headers, duplex: 'half' } as RequestInit);

/** A body that sends `head` and then nothing more: stalled, or failing after `failAfterMs`. */
function stalledBody(head: string, failAfterMs?: number): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(head));
      if (failAfterMs !== undefined) setTimeout(() => controller.error(new Error('socket hang up')), failAfterMs);
    },
  });
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

const leftOver = (dir: string) => {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
};

describe('a streamed upload', () => {
  it('writes each file part with its size and SHA-256, reads text fields and a small text part sent as a file', async () => {
    const dir = freshDir();
    const body = form(filePart('raster_file', 'hello'), fieldPart('name', 'North'), filePart('data', '{"a":1}', 'data.json'));
    const received = await receiveMultipart(request(body), { dir, files: { raster_file: 1024 } });
    const file = received.files.raster_file!;
    expect(file).toMatchObject({ part: 'raster_file', filename: 'a.bin', size: 5, mimeType: 'application/octet-stream' });
    expect(file.sha256).toBe(createHash('sha256').update('hello').digest('hex'));
    expect(readFileSync(file.path, 'utf8')).toBe('hello');
    expect(received.fields).toEqual({ name: 'North', data: '{"a":1}' });
    await received.discard();
    expect(leftOver(dir)).toEqual([]);
  });

  it('keeps the first copy of a file part and drains a second, and drains a large unknown one', async () => {
    const dir = freshDir();
    const body = form(filePart('raster_file', 'first'), filePart('raster_file', 'second'), filePart('other', 'x'.repeat(4096)));
    const received = await receiveMultipart(request(body), { dir, files: { raster_file: 1024 }, maxFieldBytes: 1024 });
    expect(readFileSync(received.files.raster_file!.path, 'utf8')).toBe('first');
    expect(received.fields).toEqual({});
    expect(leftOver(dir)).toHaveLength(1);
    await received.discard();
  });

  it('refuses what is not a form, or declares more than it may send, before reading', async () => {
    const dir = freshDir();
    expect((await refusal(receiveMultipart(request('x', { 'content-type': 'application/json' }), { dir, files: {} }))).key).toBe('expected_multipart');
    const tooLong = await refusal(receiveMultipart(request('x', { 'content-type': TYPE, 'content-length': String(3 * 1024 * 1024) }), { dir, files: { f: 1024 * 1024 } }));
    expect([tooLong.kind, tooLong.key, tooLong.params, tooLong.headers]).toEqual(['payload_too_large', 'payload_too_large', { limit: 1 }, { Connection: 'close' }]);
    expect((await refusal(receiveMultipart(request('x', { 'content-type': 'multipart/form-data' }), { dir, files: {} }))).key).toBe('expected_multipart');
  });

  it('ends a file part larger than its limit, removing what it wrote', async () => {
    const dir = freshDir();
    const body = form(filePart('raster_file', 'y'.repeat(200_000)));
    const err = await refusal(receiveMultipart(request(body), { dir, files: { raster_file: 100_000 } }));
    expect([err.kind, err.params]).toEqual(['payload_too_large', { limit: 0.1 }]);
    expect(leftOver(dir)).toEqual([]);
  });

  it('says a file part sent as text is not a file, and a text field too long is too large', async () => {
    const asText = await refusal(receiveMultipart(request(form(fieldPart('raster_file', 'abc'))), { dir: freshDir(), files: { raster_file: 1024 } }));
    expect([asText.kind, asText.key, asText.params]).toEqual(['unprocessable', 'upload_part_not_file', { part: 'raster_file' }]);
    const long = await refusal(receiveMultipart(request(form(fieldPart('name', 'z'.repeat(2048)))), { dir: freshDir(), files: {}, maxFieldBytes: 1024 }));
    expect([long.kind, long.params]).toEqual(['payload_too_large', { limit: 0 }]);
  });

  it('refuses too many parts or fields as such, and a body that is no form as malformed', async () => {
    const parts = await refusal(receiveMultipart(request(form(...Array.from({ length: 101 }, (_, i) => filePart(`p${i}`, 'x')))), { dir: freshDir(), files: {} }));
    expect([parts.key, parts.params]).toEqual(['upload_too_many_parts', { max: 100 }]);
    const fields = await refusal(receiveMultipart(request(form(...Array.from({ length: 51 }, (_, i) => fieldPart(`f${i}`, 'x')))), { dir: freshDir(), files: {} }));
    expect([fields.key, fields.params]).toEqual(['upload_too_many_fields', { max: 50 }]);
    const malformed = await refusal(receiveMultipart(request(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="raster_file"; filename="a"\r\n\r\nabc`), { dir: freshDir(), files: { raster_file: 1024 } }));
    expect([malformed.kind, malformed.key]).toEqual(['bad_request', 'upload_malformed']);
  });

  it('ends a stalled upload after the idle timeout, removing the partial file', async () => {
    const dir = freshDir();
    const head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="raster_file"; filename="a"\r\n\r\n${'q'.repeat(10_000)}`;
    const err = await refusal(receiveMultipart(request(stalledBody(head)), { dir, files: { raster_file: 1_000_000 }, idleTimeoutMs: 300 }));
    expect([err.kind, err.key, err.headers]).toEqual(['timeout', 'upload_timeout', { Connection: 'close' }]);
    expect(leftOver(dir)).toEqual([]);
  });

  it('ends an upload whose client goes away, removing the partial file', async () => {
    const dir = freshDir();
    const head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="raster_file"; filename="a"\r\n\r\n${'q'.repeat(10_000)}`;
    const err = await refusal(receiveMultipart(request(stalledBody(head, 50)), { dir, files: { raster_file: 1_000_000 }, idleTimeoutMs: 5_000 }));
    expect([err.kind, err.key]).toEqual(['client_closed', 'upload_aborted']);
    expect(leftOver(dir)).toEqual([]);
  });
});
