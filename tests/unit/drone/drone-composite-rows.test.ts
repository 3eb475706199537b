// Drawing rows of a mosaic (composite-rows.ts) on a generated scene: tilted cameras over a hill,
// photos of noise so that any pixel drawn from the wrong photo, or blended differently, shows.
import { describe, expect, it } from 'vitest';
import type { Camera } from '@/lib/drone/camera';
import type { RowSources } from '@/lib/drone/composite-rows';
import { drawRows, FEATHER_CUTOFF_M } from '@/lib/drone/composite-rows';
import { halvePixels } from '@/lib/drone/overviews';
import { innerHalfPlanes } from '@/lib/geo/point-in-ring';
import type { DecodedPart, PixelRegion } from '@/lib/drone/photo-region';
import { frameOnGround, frameOutline, nodeReach, outrankedAmong, photoRegion, wholeFrame } from '@/lib/drone/photo-region';
import type { GridWindow } from '@/lib/drone/seams';
import { drawRowsOnThreads } from '@/lib/drone/threads';

const PHOTO_W = 200, PHOTO_H = 150, NB = 3;

/** Two lines of five photos 12 m apart, each seeing about 50 x 37 m from 50 m, tilted up to 2°, over a 6 m hill. */
function scene(): { src: RowSources; imgs: DecodedPart[]; grid: GridWindow } {
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const deg = Math.PI / 180;
  const cameras: Camera[] = Array.from({ length: 10 }, (_, i) => ({
    E: 12 * (i % 5) + 2 * rand(), N: i < 5 ? 0 : -15, Z: 50, yaw: (i < 5 ? 0 : Math.PI) + 3 * deg * (rand() - 0.5),
    pitch: 4 * deg * (rand() - 0.5), roll: 4 * deg * (rand() - 0.5), f: 200, cx: PHOTO_W / 2, cy: PHOTO_H / 2, k1: i % 3 ? 0 : -0.02, k2: 0,
  }));
  const cols = 40, rows = 30;
  const z = Float32Array.from({ length: cols * rows }, (_, k) => 6 * Math.exp(-(((k % cols) - 20) ** 2 + (Math.floor(k / cols) - 15) ** 2) / 40));
  const relief = { e0: -30, n0: -40, cellM: 2, cols, rows, z };
  const imgs = cameras.map(() => {
    const px = new Uint8Array(new SharedArrayBuffer(PHOTO_W * PHOTO_H * NB));
    for (let k = 0; k < px.length; k++) px[k] = Math.floor(256 * rand());
    return { px, region: wholeFrame(PHOTO_W, PHOTO_H) };
  });
  const src: RowSources = {
    placed: cameras.map(() => ({ width: PHOTO_W, height: PHOTO_H })), cameras, relief, nb: NB, scale: 1,
    gains: cameras.map((_, i) => [1 + 0.02 * i, 1, 0.97]), bbox: cameras.map((c) => [c.E - 30, c.E + 30, c.N - 25, c.N + 25]),
  };
  return { src, imgs, grid: { x0: -35, y0: 8, gsd: 0.2, W: 400, H: 100 } };
}

const shared = (bytes: number) => new Uint8Array(new SharedArrayBuffer(bytes));

describe('drawRows', () => {
  it('draws whole rows as it draws each column on its own: the same photos, projections stepped within 0.02 px', () => {
    const { src, imgs, grid } = scene();
    const all = src.placed.map((_, i) => i), stride = NB + 1;
    const { whole, drawn, edges, worst } = wholeAgainstColumns(src, grid, imgs);
    // Noise changes by at most 255 a pixel: 0.02 px moves a sample by at most 5.1, plus rounding.
    // Drawn from a wrong photo, or blended differently, a pixel would be off by about 85 on average.
    expect(worst).toBeLessThanOrEqual(6);
    // Only where a frame's edge crosses the row can stepping and the exact projection disagree on what sees it.
    expect(edges).toBeLessThan(0.001 * grid.W * grid.H);
    // The scene has seams to blend and ground no photo sees, or the check above would prove little:
    // a blended pixel is one no photo drawn alone gives.
    const alone = all.map((i) => {
      const out = shared(grid.W * grid.H * stride);
      drawRows(src, grid, [i], [imgs[i]!], out, 0, grid.H, 0);
      return out;
    });
    let blended = 0;
    for (let k = 0; k < grid.W * grid.H * stride; k += stride) {
      if (whole[k + NB] && alone.every((a) => !a[k + NB] || a[k] !== whole[k] || a[k + 1] !== whole[k + 1] || a[k + 2] !== whole[k + 2])) blended++;
    }
    expect(drawn).toBeGreaterThan(0.6 * grid.W * grid.H);
    expect(drawn).toBeLessThan(grid.W * grid.H);
    expect(blended).toBeGreaterThan(1000);
  });

  it('draws low, steeply tilted photos exactly where the perspective bends a segment: whole rows as each column alone, to rounding', () => {
    // At 12-14 m with 22-25° of roll the perspective bends segments' lines by tenths of a pixel:
    // those must be projected a pixel at a time, never stepped linearly.
    const { src: base, imgs } = scene();
    const deg = Math.PI / 180;
    const cameras = base.cameras.map((c, i) => ({ ...c, Z: 12 + (i % 3), pitch: (i % 2 ? 15 : -12) * deg, roll: (i % 2 ? -25 : 22) * deg, f: 120 }));
    const src: RowSources = { ...base, cameras, bbox: cameras.map((c) => [c.E - 40, c.E + 40, c.N - 35, c.N + 35]) };
    const grid: GridWindow = { x0: -10, y0: 4, gsd: 0.1, W: 640, H: 60 };
    const { drawnInBoth: drawn, worst, off } = wholeAgainstColumns(src, grid, imgs);
    // Noise changes by 85 a pixel on average: bent segments stepped linearly (a tolerance of 0.5 px
    // instead of 0.01) put samples off by up to 152. Within 0.01 px, a few are off by up to 3.
    expect(drawn).toBeGreaterThan(0.5 * grid.W * grid.H);
    expect(worst).toBeLessThanOrEqual(3);
    expect(off).toBeLessThan(0.005 * drawn * NB);
  });

  it('feathers a seam over ±0.65 m (90 % to 10 %) and not at all beyond the cutoff, with no step', () => {
    // Two nadir photos 20 m apart over flat ground, one grey 60, the other 180: the seam at E = 10 m.
    const W = 400, H = 150, cameras: Camera[] = [0, 20].map((E) => ({ E, N: 0, Z: 50, yaw: 0, pitch: 0, roll: 0, f: 200, cx: W / 2, cy: H / 2, k1: 0, k2: 0 }));
    const imgs = [60, 180].map((grey) => ({ px: shared(W * H * NB).fill(grey), region: wholeFrame(W, H) }));
    const src: RowSources = {
      placed: cameras.map(() => ({ width: W, height: H })), cameras, nb: NB, scale: 1, gains: [[1], [1]],
      relief: { e0: -60, n0: -30, cellM: 2, cols: 80, rows: 30, z: new Float32Array(80 * 30) }, bbox: cameras.map((c) => [c.E - 50, c.E + 50, -19, 19]),
    };
    const grid: GridWindow = { x0: 7, y0: 0.025, gsd: 0.05, W: 120, H: 1 };
    const out = shared(grid.W * (NB + 1));
    drawRows(src, grid, [0, 1], imgs, out, 0, 1, 0);
    const cube = (x: number) => Math.max(0, 1 - x / FEATHER_CUTOFF_M) ** 3;
    for (let col = 0; col < grid.W; col++) {
      const e = grid.x0 + (col + 0.5) * grid.gsd, far = cube(2 * Math.abs(e - 10));
      const expected = e < 10 ? (60 + 180 * far) / (1 + far) : (180 + 60 * far) / (1 + far);
      expect(Math.abs(out[col * (NB + 1)]! - expected)).toBeLessThanOrEqual(0.5 + 1e-9);
      if (Math.abs(e - 10) >= FEATHER_CUTOFF_M / 2) expect(out[col * (NB + 1)]).toBe(e < 10 ? 60 : 180);
      if (col) expect(Math.abs(out[col * (NB + 1)]! - out[(col - 1) * (NB + 1)]!)).toBeLessThanOrEqual(5);
    }
    // 90 % to 10 % of the way between the greys 0.65 m either side of the seam.
    expect(Math.abs(out[Math.round((9.35 - grid.x0) / grid.gsd - 0.5) * (NB + 1)]! - 72)).toBeLessThanOrEqual(2);
    expect(Math.abs(out[Math.round((10.65 - grid.x0) / grid.gsd - 0.5) * (NB + 1)]! - 168)).toBeLessThanOrEqual(2);
  });

  it('draws a strip of whole segments to the bytes of the whole (segments keep their place)', () => {
    const { src, imgs, grid } = scene();
    const all = src.placed.map((_, i) => i), stride = NB + 1;
    const whole = shared(grid.W * grid.H * stride);
    drawRows(src, grid, all, imgs, whole, 0, grid.H, 0);
    for (const [c0, W] of [[64, 96], [128, 32], [352, 48]] as const) {
      const strip = shared(W * grid.H * stride);
      drawRows(src, { ...grid, x0: grid.x0 + c0 * grid.gsd, W, inMosaic: { x0: grid.x0, col0: c0 } }, all, imgs, strip, 0, grid.H, 0);
      for (let row = 0; row < grid.H; row++) {
        const a = whole.subarray((row * grid.W + c0) * stride, (row * grid.W + c0 + W) * stride);
        expect(Buffer.compare(Buffer.from(a), Buffer.from(strip.subarray(row * W * stride, (row + 1) * W * stride)))).toBe(0);
      }
    }
  });

  it('draws rows wider than a block of 512 columns to the bytes of strips whose blocks end elsewhere', () => {
    const { src, imgs, grid: narrow } = scene();
    const grid = { ...narrow, gsd: 0.05, W: 1600 };
    const all = src.placed.map((_, i) => i), stride = NB + 1;
    const whole = shared(grid.W * grid.H * stride);
    drawRows(src, grid, all, imgs, whole, 0, grid.H, 0);
    // The whole's blocks end at columns 512, 1024 and 1536; these strips' at 608 and 1056, 1568. Strips end on segments' ends too.
    for (const [c0, W] of [[96, 608], [544, 1056]] as const) {
      const strip = shared(W * grid.H * stride);
      drawRows(src, { ...grid, x0: grid.x0 + c0 * grid.gsd, W, inMosaic: { x0: grid.x0, col0: c0 } }, all, imgs, strip, 0, grid.H, 0);
      let differing = 0;
      for (let row = 0; row < grid.H; row++) {
        const a = whole.subarray((row * grid.W + c0) * stride, (row * grid.W + c0 + W) * stride);
        if (Buffer.compare(Buffer.from(a), Buffer.from(strip.subarray(row * W * stride, (row + 1) * W * stride)))) differing++;
      }
      expect(differing).toBe(0);
    }
  });

  it('draws the same bytes on two threads as on one', async () => {
    const { src, imgs, grid } = scene();
    const all = src.placed.map((_, i) => i), bytes = grid.W * grid.H * (NB + 1);
    const here = shared(bytes), threads = shared(bytes);
    drawRows(src, grid, all, imgs, here, 0, grid.H, 0);
    // Halved each way too, as the threads draw their rows: the same as halving the whole.
    const halved = shared(Math.ceil(grid.W / 2) * Math.ceil(grid.H / 2) * (NB + 1)), whole = new Uint8Array(halved.length);
    await drawRowsOnThreads({ src, grid, inBlock: all, parts: imgs, out: threads, row0: 0, row1: grid.H, halved });
    expect(Buffer.compare(Buffer.from(here.buffer), Buffer.from(threads.buffer))).toBe(0);
    expect(here.some((v, k) => k % (NB + 1) === NB && v === 255)).toBe(true);
    halvePixels(here, grid.W, grid.H, NB + 1, whole);
    expect(Buffer.compare(Buffer.from(halved.buffer), Buffer.from(whole))).toBe(0);
  });

  it('draws a strip of columns from the parts of the photos photoRegion cuts as from the whole photos', () => {
    const { src, imgs, grid } = scene();
    const all = src.placed.map((_, i) => i), stride = NB + 1;
    const strip: GridWindow = { ...grid, x0: grid.x0 + 150 * grid.gsd, W: 60 };
    const regions = all.map((i) => photoRegion(frameOnGround(src.cameras[i]!, PHOTO_W, PHOTO_H, src.relief), PHOTO_W, PHOTO_H, 1, strip));
    const fromWhole = shared(strip.W * strip.H * stride), fromParts = shared(strip.W * strip.H * stride);
    drawRows(src, strip, all, imgs, fromWhole, 0, strip.H, 0);
    drawRows(src, strip, all, all.map((i) => cutPart(imgs[i]!, regions[i]!)), fromParts, 0, strip.H, 0);
    expect(Buffer.compare(Buffer.from(fromWhole.buffer), Buffer.from(fromParts.buffer))).toBe(0);
    // The parts are much smaller than the frames, or nothing was cut.
    const held = regions.reduce((sum, r) => sum + r.w * r.h, 0);
    expect(held).toBeLessThan(0.6 * all.length * PHOTO_W * PHOTO_H);
  });

  it('draws the whole window from each photo cut to where it can weigh in (outrankedAmong) as from the whole photos', () => {
    const { src, imgs, grid } = scene();
    const all = src.placed.map((_, i) => i), stride = NB + 1;
    const nodes = all.map((i) => frameOnGround(src.cameras[i]!, PHOTO_W, PHOTO_H, src.relief));
    const nadirs = src.cameras.map((c): [number, number] => [c.E, c.N]);
    const outlines = nodes.map((n) => innerHalfPlanes(frameOutline(n))), reaches = nodes.map(nodeReach);
    const regions = all.map((i) => photoRegion(nodes[i]!, PHOTO_W, PHOTO_H, 1, grid, outrankedAmong(i, all, nadirs, outlines, reaches, FEATHER_CUTOFF_M)));
    const fromWhole = shared(grid.W * grid.H * stride), fromParts = shared(grid.W * grid.H * stride);
    drawRows(src, grid, all, imgs, fromWhole, 0, grid.H, 0);
    drawRows(src, grid, all, all.map((i) => cutPart(imgs[i]!, regions[i]!)), fromParts, 0, grid.H, 0);
    expect(Buffer.compare(Buffer.from(fromWhole.buffer), Buffer.from(fromParts.buffer))).toBe(0);
    // The photos overlap by three quarters along their lines: much of each is outranked, so cut.
    const held = regions.reduce((sum, r) => sum + r.w * r.h, 0);
    const inWindow = all.reduce((sum, i) => { const r = photoRegion(nodes[i]!, PHOTO_W, PHOTO_H, 1, grid); return sum + r.w * r.h; }, 0);
    expect(held).toBeLessThan(0.75 * inWindow);
  });
});

/**
 * The window drawn whole rows at a time against each column drawn alone (projected exactly at every
 * pixel): pixels drawn whole, pixels drawn both ways, pixels drawn one way only (at frames' edges),
 * and over the pixels drawn both ways the worst band's difference and the bands differing by more than one.
 */
function wholeAgainstColumns(src: RowSources, grid: GridWindow, imgs: DecodedPart[]) {
  const all = src.placed.map((_, i) => i), stride = NB + 1;
  const whole = shared(grid.W * grid.H * stride), column = shared(grid.H * stride);
  drawRows(src, grid, all, imgs, whole, 0, grid.H, 0);
  let drawn = 0, drawnInBoth = 0, edges = 0, worst = 0, off = 0;
  for (let col = 0; col < grid.W; col++) {
    drawRows(src, { ...grid, x0: grid.x0 + col * grid.gsd, W: 1 }, all, imgs, column, 0, grid.H, 0);
    for (let row = 0; row < grid.H; row++) {
      const o = (row * grid.W + col) * stride, c = row * stride;
      if (whole[o + NB]) drawn++;
      if (whole[o + NB] !== column[c + NB]) edges++;
      else if (whole[o + NB]) {
        drawnInBoth++;
        for (let k = 0; k < NB; k++) {
          const d = Math.abs(whole[o + k]! - column[c + k]!);
          worst = Math.max(worst, d);
          if (d > 1) off++;
        }
      }
    }
  }
  return { whole, drawn, drawnInBoth, edges, worst, off };
}

/** Region `r` of a whole decoded photo, as the cache would hold it. */
function cutPart(part: DecodedPart, r: PixelRegion): DecodedPart {
  const px = new Uint8Array(new SharedArrayBuffer(r.w * r.h * NB));
  for (let v = 0; v < r.h; v++) px.set(part.px.subarray(((r.v0 + v) * PHOTO_W + r.u0) * NB, ((r.v0 + v) * PHOTO_W + r.u0 + r.w) * NB), v * r.w * NB);
  return { px, region: r };
}
