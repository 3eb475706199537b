// How compositing splits a mosaic into strips of columns (compositeStrips) and holds decoded photos
// (PhotoCache): the byte-for-byte check of a mosaic made in strips is in drone-synthetic.test.ts and
// drone-composite-rows.test.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { compositeStrips, PhotoCache } from '@/lib/drone/composite';
import { SEGMENT_COLUMNS } from '@/lib/drone/composite-rows';
import type { Placed } from '@/lib/drone/placed';

/** `lines` flight lines of `perLine` photos of 5472 x 3648 px at 2.5 cm, each footprint 137 x 91 m, lines 40 m apart. */
function survey(lines: number, perLine: number) {
  const placed = Array.from({ length: lines * perLine }, () => ({ width: 5472, height: 3648 }) as Placed);
  const bbox = placed.map((_, i) => {
    const e = 40 * Math.floor(i / perLine), n = -18 * (i % perLine);
    return [e - 68, e + 68, n - 45, n + 45];
  });
  const x0 = -68, y0 = 45, gsd = 0.025;
  const W = Math.ceil((40 * (lines - 1) + 136) / gsd), H = Math.ceil((18 * (perLine - 1) + 90) / gsd);
  return { src: { placed, bbox, nb: 3, scale: 1 }, grid: { x0, y0, gsd, W, H } };
}

describe('compositeStrips', () => {
  it('keeps one strip while the photos of two bands of rows fit in the budget', () => {
    const { src, grid } = survey(2, 10);
    expect(compositeStrips(src, grid, 900 * 2 ** 20)).toEqual([[0, grid.W]]);
  });

  it('splits a wide survey into strips that cover every column once and need far fewer photos at a time', () => {
    const { src, grid } = survey(10, 20);
    const strips = compositeStrips(src, grid, 900 * 2 ** 20);
    expect(strips.length).toBeGreaterThan(1);
    expect(strips[0]![0]).toBe(0);
    expect(strips.at(-1)![1]).toBe(grid.W);
    strips.slice(1).forEach(([c0], k) => expect(c0).toBe(strips[k]![1]));
    // Whole segments each, so that a strip draws the bytes the whole mosaic would (composite-rows.ts).
    strips.slice(1).forEach(([c0]) => expect(c0 % SEGMENT_COLUMNS).toBe(0));
    // Photos under the top two bands of rows (256 rows) of a strip: a full-width band meets all 10 lines.
    const photosIn = ([c0, c1]: [number, number]) => src.bbox.filter((b) => b[1]! >= grid.x0 + c0 * grid.gsd && b[0]! <= grid.x0 + c1 * grid.gsd && b[3]! >= grid.y0 - 256 * grid.gsd && b[2]! <= grid.y0).length;
    const most = Math.max(...strips.map(photosIn));
    expect(most).toBeLessThanOrEqual(0.6 * photosIn([0, grid.W]));
  });

  it('never cuts strips narrower than 512 columns, however small the budget', () => {
    const { src, grid } = survey(10, 20);
    const strips = compositeStrips(src, grid, 1);
    expect(strips.length).toBeGreaterThan(1);
    expect(Math.min(...strips.map(([a, b]) => b - a))).toBeGreaterThanOrEqual(512);
  });
});

describe('PhotoCache', () => {
  const dir = mkdtempSync(join(tmpdir(), 'photo-cache-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const W = 64, H = 48, BYTES = W * H * 3;

  /** Eight JPEGs of one flat colour each, as placed photos. */
  async function photos(): Promise<Placed[]> {
    return Promise.all(Array.from({ length: 8 }, async (_, i) => {
      const path = join(dir, `p${i}.jpg`);
      await sharp({ create: { width: W, height: H, channels: 3, background: { r: 30 * i, g: 100, b: 200 - 20 * i } } }).jpeg({ quality: 100 }).toFile(path);
      return { width: W, height: H, capture: { main: { path, file: `p${i}.jpg`, widthPx: W, heightPx: H } } } as unknown as Placed;
    }));
  }

  it('holds at most its budget of shared memory, reusing the buffers of photos outside the band', async () => {
    const cache = new PhotoCache(await photos(), ['red', 'green', 'blue'], 3 * BYTES, 1, 1);
    const buffers = new Set<ArrayBufferLike>();
    for (let band = 0; band < 6; band++) {
      const ids = [band, band + 1, band + 2];
      cache.startBand(ids);
      const px = await Promise.all(ids.map((i) => cache.get(i)));
      px.forEach(({ px: p }, k) => {
        expect(p.buffer).toBeInstanceOf(SharedArrayBuffer);
        expect(Math.abs(p[0]! - 30 * ids[k]!)).toBeLessThanOrEqual(2);
        buffers.add(p.buffer);
      });
    }
    expect(buffers.size).toBe(3);
  });

  it('lets go of every photo and buffer when cleared, and decodes anew into new buffers when asked again', async () => {
    const cache = new PhotoCache(await photos(), ['red', 'green', 'blue'], 3 * BYTES, 1, 1);
    cache.startBand([0, 1]);
    const before = await Promise.all([0, 1].map((i) => cache.get(i)));
    cache.clear();
    const after = await Promise.all([0, 1].map((i) => cache.get(i)));
    after.forEach(({ px }, k) => {
      expect(px.buffer).not.toBe(before[k]!.px.buffer);
      expect(Array.from(px)).toEqual(Array.from(before[k]!.px));
    });
  });

  it('never hands a photo of the band being drawn to another, going over the budget instead', async () => {
    const cache = new PhotoCache(await photos(), ['red', 'green', 'blue'], 2 * BYTES, 1, 1);
    const red = ({ px }: { px: Uint8Array }, i: number) => expect(Math.abs(px[0]! - 30 * i)).toBeLessThanOrEqual(2);
    const ids = [0, 1, 2, 3];
    cache.startBand(ids);
    const px = await Promise.all(ids.map((i) => cache.get(i)));
    // The next band's photos decode while this one is drawn: they must not take its buffers.
    cache.prefetch([4, 5]);
    await Promise.all([cache.get(4), cache.get(5)]);
    px.forEach((p, k) => red(p, ids[k]!));
    const seen = new Set<ArrayBufferLike>(px.map((p) => p.px.buffer));
    for (const band of [[4, 5], [6, 7]]) {
      cache.startBand(band);
      const next = await Promise.all(band.map((i) => cache.get(i)));
      next.forEach((p, k) => red(p, band[k]!));
      next.forEach((p) => seen.add(p.px.buffer));
    }
    // Four buffers for the band that needed four, then one more for the prefetch at most; none since.
    expect(seen.size).toBeLessThanOrEqual(5);
  });

  it('decodes further ahead only while the parts fit beside those held and decoding', async () => {
    const cache = new PhotoCache(await photos(), ['red', 'green', 'blue'], 4 * BYTES, 1, 1);
    cache.startBand([0, 1]);
    const band = await Promise.all([cache.get(0), cache.get(1)]);
    // Room for two more: the third is not decoded. Decoded, it would take the buffer of the first
    // decoded ahead (the oldest outside the band), which would then be decoded again when asked for.
    cache.prefetch([2, 3, 4], undefined, 1);
    const ahead = await Promise.all([cache.get(2), cache.get(3)]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(new Set([...band, ...ahead].map((p) => p.px.buffer)).size).toBe(4);
    expect(await cache.get(2)).toBe(ahead[0]);
    expect(await cache.get(3)).toBe(ahead[1]);
    band.forEach((p, k) => expect(Math.abs(p.px[0]! - 30 * k)).toBeLessThanOrEqual(2));
  });

  it('decodes nothing further ahead once the buffers it has made reach the share asked, held or spare', async () => {
    const placed = await photos();
    const cache = new PhotoCache(placed, ['red', 'green', 'blue'], 4 * BYTES, 1, 1);
    cache.startBand([0, 1]);
    await Promise.all([cache.get(0), cache.get(1)]);
    // Nothing held, but two buffers made: half the budget.
    cache.release(0);
    cache.release(1);
    cache.startBand([]);
    cache.prefetch([2], undefined, 0.5);
    cache.prefetch([3], undefined, 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    // With its file gone, a photo not decoded ahead can no longer be.
    for (const i of [2, 3]) rmSync((placed[i]!.capture.main as { path: string }).path);
    await expect(cache.get(2)).rejects.toThrow();
    expect(Math.abs((await cache.get(3)).px[0]! - 90)).toBeLessThanOrEqual(2);
  });

  it('holds the whole frame when asked not to cut parts, whatever part a window asks for', async () => {
    const placed = await photos();
    const part = { u0: 8, v0: 4, w: 16, h: 12 };
    const cut = await new PhotoCache(placed, ['red', 'green', 'blue'], 4 * BYTES, 1, 1).get(3, part);
    expect(cut.region).toEqual(part);
    expect(cut.px.length).toBe(16 * 12 * 3);
    const whole = new PhotoCache(placed, ['red', 'green', 'blue'], 4 * BYTES, 1, 1, false);
    const first = await whole.get(3, part);
    expect(first.region).toEqual({ u0: 0, v0: 0, w: W, h: H });
    expect(await whole.get(3, { u0: 30, v0: 20, w: 8, h: 8 })).toBe(first);
  });
});
