import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { receiveMultipart } from '@/lib/uploads/multipart';

const dir = mkdtempSync(join(tmpdir(), 'fieldmap-multipart-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('multipart file names', () => {
  it('reads a file name in UTF-8, as browsers and FormData send it', async () => {
    const form = new FormData();
    form.append('raster_file', new Blob([new Uint8Array([1, 2, 3])]), 'снимок поля.tif');
    const req = new Request('http://x/upload', { method: 'POST', body: form });
    const received = await receiveMultipart(req, { dir, files: { raster_file: 1024 } });
    try {
      expect(received.files.raster_file?.filename).toBe('снимок поля.tif');
    } finally {
      await received.discard();
    }
  });

  it('reads an RFC 5987 filename* too', async () => {
    const body = '--b\r\nContent-Disposition: form-data; name="raster_file"; filename*=UTF-8\'\'%D0%BF%D0%BE%D0%BB%D0%B5.tif\r\nContent-Type: image/tiff\r\n\r\nabc\r\n--b--\r\n';
    const req = new Request('http://x/upload', { method: 'POST', body, headers: { 'content-type': 'multipart/form-data; boundary=b' } });
    const received = await receiveMultipart(req, { dir, files: { raster_file: 1024 } });
    try {
      expect(received.files.raster_file?.filename).toBe('поле.tif');
    } finally {
      await received.discard();
    }
  });
});
