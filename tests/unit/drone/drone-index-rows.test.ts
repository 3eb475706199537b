// The index loop over a raw mosaic (index-rows.ts), shared out between this thread and a worker.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { IndexGrid } from '@/lib/drone/index-rows';
import { addIndexRows } from '@/lib/drone/index-rows';
import { indexRowsOnThreads } from '@/lib/drone/threads';

const W = 800, H = 3000, FACTOR = 3, NB = 3;
const dir = mkdtempSync(join(tmpdir(), 'index-rows-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A raw RGB + alpha mosaic of noise, a tenth of it without imagery, and a field of spans (a slanted band). */
function rawMosaic(): { path: string; spans: Int32Array[]; imaged: number } {
  let seed = 5;
  const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const px = new Uint8Array(W * H * (NB + 1));
  for (let k = 0; k < W * H; k++) {
    for (let b = 0; b < NB; b++) px[k * (NB + 1) + b] = (rand() * 256) | 0;
    px[k * (NB + 1) + NB] = rand() < 0.1 ? 0 : 255;
  }
  const spans = Array.from({ length: H }, (_, row) => Int32Array.of(Math.floor(row / 8), Math.min(W - 1, Math.floor(row / 8) + 400)));
  let imaged = 0;
  spans.forEach(([c0, c1], row) => {
    for (let col = c0!; col <= c1!; col++) if (px[(row * W + col) * (NB + 1) + NB]) imaged++;
  });
  const path = join(dir, 'mosaic.raw');
  writeFileSync(path, px);
  return { path, spans, imaged };
}

/** The grid of the band of rows [row0, row1) (the whole mosaic unless given). */
const grid = (spans: Int32Array[], row0 = 0, row1 = H): IndexGrid => {
  const OW = Math.ceil(W / FACTOR), OH = Math.ceil((row1 - row0) / FACTOR);
  return {
    ndvi: false, bands: [0, 1, 2, -1], nb: NB, W, row0, row1, spans: spans.slice(row0, row1), OW, factor: FACTOR,
    cellOfColumn: Int32Array.from({ length: W }, (_, col) => Math.floor(col / FACTOR)),
    sum: new Float64Array(new SharedArrayBuffer(8 * OW * OH)), cnt: new Uint32Array(new SharedArrayBuffer(4 * OW * OH)),
  };
};

describe('the index loop on two threads', () => {
  it('adds up what one thread alone does: each cell of the grid, the histograms and the counts', async () => {
    const { path, spans, imaged } = rawMosaic();
    const alone = grid(spans), shared = grid(spans);
    const one = await addIndexRows(path, alone, new Int32Array(new SharedArrayBuffer(4)));
    // The first run starts the worker thread, which may find every take gone; the second shares them.
    await indexRowsOnThreads(path, grid(spans));
    const both = await indexRowsOnThreads(path, shared);
    // On a loaded machine the worker may still come too late for any take: said, not failed.
    if (availableParallelism() === 1) console.log('one core: no worker thread, the rows are not shared out');
    else if (both.rowsByThread.some((rows) => rows === 0)) console.log(`the worker thread took no rows this run (${both.rowsByThread}): the sharing was not exercised`);
    expect(both.rowsByThread.length).toBe(availableParallelism() > 1 ? 2 : 1);
    expect(both.rows).toBe(H);
    expect(one.n).toBe(imaged);
    expect(both.n).toBe(imaged);
    // A cell lies in one take, its rows added in order: the same sum to the last bit.
    expect(Buffer.compare(Buffer.from(shared.sum.buffer), Buffer.from(alone.sum.buffer))).toBe(0);
    expect(Buffer.compare(Buffer.from(shared.cnt.buffer), Buffer.from(alone.cnt.buffer))).toBe(0);
    expect(Array.from(both.bins)).toEqual(Array.from(one.bins));
    expect(Array.from(both.fine)).toEqual(Array.from(one.fine));
    expect(both.s1).toBeCloseTo(one.s1, 6);
    expect(both.s2).toBeCloseTo(one.s2, 6);
    expect(alone.cnt.reduce((a, b) => a + b, 0)).toBe(imaged);
  });

  it('lets this thread\'s other work run between its takes (the seam check beside the index), and adds up the same', async () => {
    const { path, spans } = rawMosaic();
    const alone = grid(spans), between = grid(spans);
    const one = await addIndexRows(path, alone, new Int32Array(new SharedArrayBuffer(4)));
    // Other work on this thread: one turn each time the event loop comes round.
    let turns = 0, done = false;
    const other = (async () => {
      while (!done) {
        turns++;
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const totals = await addIndexRows(path, between, new Int32Array(new SharedArrayBuffer(4)));
    const turnsMeanwhile = turns;
    done = true;
    await other;
    // 3,000 rows in takes of 258 (256 rounded up to whole cells of 3): 12 takes, a turn after each.
    expect(turnsMeanwhile).toBeGreaterThanOrEqual(12);
    expect(totals.rows).toBe(H);
    expect(totals.n).toBe(one.n);
    expect(Array.from(totals.fine)).toEqual(Array.from(one.fine));
    expect(Buffer.compare(Buffer.from(between.sum.buffer), Buffer.from(alone.sum.buffer))).toBe(0);
  });

  it('fails with the reading\'s own error when the raw mosaic is gone, the worker\'s failure handled too', async () => {
    const { path, spans } = rawMosaic();
    await expect(indexRowsOnThreads(join(dir, 'gone.raw'), grid(spans))).rejects.toThrow(/ENOENT/);
    // The worker's own failure arrives after this thread's: a later index on the same worker waits
    // for it, and vitest fails the run on a rejection left unhandled.
    expect((await indexRowsOnThreads(path, grid(spans))).rows).toBe(H);
  });

  it('adds a band of rows into the band\'s own cells, as the whole grid holds them', async () => {
    const { path, spans } = rawMosaic();
    const whole = grid(spans);
    await addIndexRows(path, whole, new Int32Array(new SharedArrayBuffer(4)));
    // 1,200 rows: a multiple of the factor that is not one of the rows a take holds.
    const bands = [grid(spans, 0, 1200), grid(spans, 1200, 2400), grid(spans, 2400, H)];
    const rows: number[] = [];
    for (const band of bands) rows.push((await indexRowsOnThreads(path, band)).rows);
    expect(rows).toEqual([1200, 1200, H - 2400]);
    const joined = (k: 'sum' | 'cnt') => Buffer.concat(bands.map((band) => Buffer.from(band[k].buffer)));
    expect(Buffer.compare(joined('sum'), Buffer.from(whole.sum.buffer))).toBe(0);
    expect(Buffer.compare(joined('cnt'), Buffer.from(whole.cnt.buffer))).toBe(0);
  });
});
