// How compositing splits a mosaic into strips of columns (compositeStrips): the byte-for-byte check of
// a mosaic made in strips is in drone-synthetic.test.ts.
import { describe, expect, it } from 'vitest';
import { compositeStrips } from '@/lib/drone/composite';
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
