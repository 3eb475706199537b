// A streamed upload's cost to the server: 1 GB through the multipart path, time and RSS growth.
import { closeSync, mkdtempSync, openAsBlob, openSync, rmSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scratchSqlite } from '../lib/db/scratch';
import { registerCompany } from '../tests/helpers/company';
import { startServer } from '../tests/helpers/server';
import { type Row, printTable, round, writeResults } from './lib';

export async function benchUpload(): Promise<Row[]> {
  const scratch = scratchSqlite();
  const server = await startServer({ env: { ...scratch.env, LOG_LEVEL: 'error' } });
  const dir = mkdtempSync(join(tmpdir(), 'bench-upload-'));
  try {
    const { api } = await registerCompany(server.url);
    const file = join(dir, 'big.bin');
    const fd = openSync(file, 'w');
    const chunk = randomBytes(8 * 1024 * 1024);
    for (let i = 0; i < 125; i++) writeSync(fd, chunk);
    closeSync(fd);
    const before = server.rss();
    let peak = before;
    const timer = setInterval(() => (peak = Math.max(peak, server.rss())), 20);
    const form = new FormData();
    form.append('file', await openAsBlob(file), 'big.bin');
    const t = performance.now();
    const res = await api.request('POST', '/api/diagnostics/upload', form);
    const ms = performance.now() - t;
    clearInterval(timer);
    if (res.status !== 200) throw new Error(`upload answered ${res.status}: ${res.text}`);
    const rows: Row[] = [
      { metric: '1 GB multipart upload to disk', value: round(ms / 1000, 2), unit: 's' },
      { metric: 'throughput', value: round(1000 / (ms / 1000), 0), unit: 'MB/s' },
      { metric: 'server RSS growth', value: round((peak - before) / 1e6, 0), unit: 'MB', target: '< 100', ok: peak - before < 100e6 },
    ];
    writeResults('upload', rows);
    printTable('Streamed upload', rows);
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.stop();
    await scratch.drop();
  }
}
