// The mosaic's own overviews (overviews.ts): halved from bands of rows of any strip, each level from
// the one before, and copied by GDAL's COG driver instead of computed (its sizes round up, GDAL's own
// round down, so the sizes show whose they are).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mosaicCogOptions, writeCog } from '@/lib/drone/cog';
import { utmFrame } from '@/lib/drone/frame';
import { rawVrt } from '@/lib/drone/mosaic-files';
import { halvePixels, OverviewFiles, overviewSizes } from '@/lib/drone/overviews';

/** A W×H image of noise (bands + alpha), uncovered in its west corner's triangle and in a hole. */
function image(W: number, H: number, nb: number): Uint8Array {
  let seed = 11;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const px = new Uint8Array(W * H * (nb + 1));
  for (let r = 0; r < H; r++) {
    for (let c = 0; c < W; c++) {
      const o = (r * W + c) * (nb + 1);
      const covered = c + r > 60 && Math.hypot(c - W / 2, r - H / 2) > 9;
      for (let b = 0; b < nb; b++) px[o + b] = covered ? Math.floor(256 * rand()) : 0;
      px[o + nb] = covered ? 255 : 0;
    }
  }
  return px;
}

const halved = (px: Uint8Array, W: number, H: number, stride: number) => {
  const out = new Uint8Array(Math.ceil(W / 2) * Math.ceil(H / 2) * stride);
  halvePixels(px, W, H, stride, out);
  return out;
};

describe('overviewSizes', () => {
  it('halves, rounding up, until the image fits one block, as many levels as GDAL makes', () => {
    const sizes = overviewSizes(9227, 9483);
    expect(sizes[0]).toEqual([4614, 4742]);
    expect(sizes).toHaveLength(6);
    expect(sizes.at(-1)).toEqual([145, 149]);
    expect(overviewSizes(256, 200)).toEqual([]);
    expect(overviewSizes(257, 10)).toEqual([[129, 5]]);
  });
});

describe('halvePixels', () => {
  it('averages each 2×2 block over its covered pixels, covered where any is; an odd edge keeps its own', () => {
    // 3×3 pixels, one band and alpha: the first block has one pixel uncovered.
    const px = Uint8Array.from([
      10, 255, 20, 255, 7, 255,
      31, 0, 40, 255, 9, 0,
      50, 255, 0, 0, 100, 255,
    ]);
    const out = halved(px, 3, 3, 2);
    // (10 + 20 + 40) / 3 = 23.3; the edge column's covered pixel alone; the edge row; the corner.
    expect(Array.from(out)).toEqual([23, 255, 7, 255, 50, 255, 100, 255]);
    const none = halved(new Uint8Array(2 * 2 * 4), 2, 2, 4);
    expect(Array.from(none)).toEqual([0, 0, 0, 0]);
    // All four covered: the rounded mean (2 + 3 + 3 + 3) / 4 = 2.75.
    expect(Array.from(halved(Uint8Array.from([2, 255, 3, 255, 3, 255, 3, 255]), 2, 2, 2))).toEqual([3, 255]);
  });

  it('gives three bands and alpha, a 32-bit word a pixel, what it gives a byte at a time', () => {
    // Odd sizes, and blocks uncovered, partly covered and whole. A copy one byte off a word's start
    // cannot be read as words, so it takes the byte-wise way.
    const W = 301, H = 97, stride = 4, px = image(W, H, 3);
    const unaligned = new Uint8Array(px.length + 1).subarray(1);
    unaligned.set(px);
    const out = new Uint8Array(Math.ceil(W / 2) * Math.ceil(H / 2) * stride + 1).subarray(1);
    halvePixels(unaligned, W, H, stride, out);
    const words = halved(px, W, H, stride);
    expect(Buffer.compare(Buffer.from(words), Buffer.from(out))).toBe(0);
    const coverage = new Set(Array.from({ length: words.length / stride }, (_, k) => words[k * stride + 3]));
    expect(coverage).toEqual(new Set([0, 255]));
    // Sums of four bytes near 255 must not carry into the next band.
    const white = new Uint8Array(2 * 2 * stride).fill(255);
    expect(Array.from(halved(white, 2, 2, stride))).toEqual([255, 255, 255, 255]);
  });
});

describe('OverviewFiles', () => {
  it('writes from bands of two strips of columns what halving the whole image gives, each level from the one before', async () => {
    const W = 1000, H = 600, stride = 4, px = image(W, H, 3);
    const dir = mkdtempSync(join(tmpdir(), 'ovr-'));
    const files = await OverviewFiles.create((k) => join(dir, `o${k}.raw`), W, H, stride);
    expect(files.sizes).toEqual([[500, 300], [250, 150]]);
    for (const [c0, c1] of [[0, 448], [448, W]] as const) {
      const Ws = c1 - c0;
      for (let row0 = 0; row0 < H; row0 += 128) {
        const row1 = Math.min(H, row0 + 128), band = new Uint8Array(Ws * (row1 - row0) * stride);
        for (let r = row0; r < row1; r++) band.set(px.subarray((r * W + c0) * stride, (r * W + c1) * stride), (r - row0) * Ws * stride);
        await files.take(halved(band, Ws, row1 - row0, stride), row0, row1, c0, Ws);
      }
    }
    await files.close();
    await files.finish();
    const level1 = halved(px, W, H, stride);
    expect(Buffer.compare(readFileSync(files.paths[0]!), Buffer.from(level1))).toBe(0);
    expect(Buffer.compare(readFileSync(files.paths[1]!), Buffer.from(halved(level1, 500, 300, stride)))).toBe(0);
  });

  it('are what GDAL copies into the COG: for the JPEG mosaic with the alpha as its mask (its overviews ours too), and for lossless bands with the alpha kept', async () => {
    // Odd sizes: GDAL's own overviews of a mask would sample a ratio just under 2 and drift from ours.
    const W = 701, H = 531, frame = utmFrame(17.1, 48.1), gt = [frame.toUtm(17.1, 48.1)[0], 0.02, 0, frame.toUtm(17.1, 48.1)[1], 0, -0.02];
    for (const bands of [['red', 'green', 'blue'], ['green', 'red', 'rededge', 'nir']]) {
      const stride = bands.length + 1, px = image(W, H, bands.length), names = [...bands, 'alpha'];
      const dir = mkdtempSync(join(tmpdir(), 'ovr-cog-'));
      writeFileSync(join(dir, 'm.raw'), px);
      const files = await OverviewFiles.create((k) => join(dir, `m.ovr${k}.raw`), W, H, stride);
      for (let row0 = 0; row0 < H; row0 += 128) {
        const row1 = Math.min(H, row0 + 128);
        await files.take(halved(px.subarray(row0 * W * stride, row1 * W * stride), W, row1 - row0, stride), row0, row1, 0, W);
      }
      await files.close();
      await files.finish();
      const layout = { alphaAsMask: bands.length === 3 };
      files.sizes.forEach(([w, h], k) => writeFileSync(files.paths[k]!.replace(/raw$/, 'vrt'), rawVrt(basename(files.paths[k]!), w, h, names, frame, gt, layout)));
      writeFileSync(join(dir, 'm.vrt'), rawVrt('m.raw', W, H, names, frame, gt, { ...layout, overviews: files.paths.map((p) => basename(p).replace(/raw$/, 'vrt')) }));
      const tif = join(dir, 'm.tif');
      await writeCog(join(dir, 'm.vrt'), tif, mosaicCogOptions(bands));
      const info = JSON.parse(execFileSync('gdalinfo', ['-json', tif]).toString());
      expect(info.metadata.IMAGE_STRUCTURE.LAYOUT).toBe('COG');
      expect(info.bands[0].overviews.map((o: { size: number[] }) => o.size)).toEqual(files.sizes);
      expect(info.bands).toHaveLength(layout.alphaAsMask ? 3 : stride);
      if (layout.alphaAsMask) {
        expect(info.bands[0].mask.flags).toEqual(['PER_DATASET']);
        expect(info.bands[0].mask.overviews.map((o: { size: number[] }) => o.size)).toEqual(files.sizes);
        // The first overview's mask is our halved alpha (covered where any of four pixels is), not one GDAL made again.
        const mask = join(dir, 'mask1.raw');
        execFileSync('gdal_translate', ['-q', '-oo', 'OVERVIEW_LEVEL=0', '-b', 'mask', '-of', 'ENVI', tif, mask]);
        const ours = readFileSync(files.paths[0]!), [w1, h1] = files.sizes[0]!;
        const alpha = Uint8Array.from({ length: w1 * h1 }, (_, k) => (ours[k * stride + stride - 1] ? 255 : 0));
        expect(Buffer.compare(readFileSync(mask), alpha)).toBe(0);
      } else {
        // Lossless: the first overview is ours to the byte.
        const copy = join(dir, 'ovr1.raw');
        execFileSync('gdal_translate', ['-q', '-oo', 'OVERVIEW_LEVEL=0', '-of', 'ENVI', '-co', 'INTERLEAVE=BIP', tif, copy]);
        expect(Buffer.compare(readFileSync(copy), readFileSync(files.paths[0]!))).toBe(0);
      }
    }
  });
});
