// The mosaic's overviews: level 1 halved from its rows as they are composited, each coarser level from
// the one before, all as raw files beside the raw copy. GDAL then copies them into the COG instead of
// computing them, which took it longer than writing the full-resolution image.
import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';

/** Sizes of the levels GDAL's COG driver makes: the image halved (rounding up) until it fits one block. */
export function overviewSizes(W: number, H: number, block = 256): [number, number][] {
  const sizes: [number, number][] = [];
  for (let w = W, h = H; w > block || h > block; ) {
    w = Math.ceil(w / 2);
    h = Math.ceil(h / 2);
    sizes.push([w, h]);
  }
  return sizes;
}

/**
 * `rows` rows of a W-wide image (pixel-interleaved, `stride` bytes a pixel, alpha last) halved each
 * way into `out` (ceil(W/2) a row): each 2×2 block (less at an odd edge) becomes the mean of its
 * covered pixels, covered when any of them is, so that the edges neither darken nor shrink.
 */
export function halvePixels(src: Uint8Array, W: number, rows: number, stride: number, out: Uint8Array): void {
  if (stride === 4 && LITTLE_ENDIAN && src.byteOffset % 4 === 0 && out.byteOffset % 4 === 0) return halveRgba(src, W, rows, out);
  const w = Math.ceil(W / 2), h = Math.ceil(rows / 2), nb = stride - 1;
  const sum = new Uint32Array(nb), taps = new Int32Array(4);
  for (let y = 0; y < h; y++) {
    const r0 = 2 * y * W * stride, r1 = 2 * y + 1 < rows ? r0 + W * stride : r0;
    for (let x = 0; x < w; x++) {
      const q = (y * w + x) * stride, c0 = 2 * x * stride, c1 = 2 * x + 1 < W ? c0 + stride : c0;
      // At an odd edge a pixel is tapped twice: the mean is the same.
      taps[0] = r0 + c0; taps[1] = r0 + c1; taps[2] = r1 + c0; taps[3] = r1 + c1;
      if (src[taps[0] + nb] && src[taps[1] + nb] && src[taps[2] + nb] && src[taps[3] + nb]) {
        // All four covered (most blocks): the same rounded mean, without counting.
        for (let b = 0; b < nb; b++) out[q + b] = (src[taps[0] + b]! + src[taps[1] + b]! + src[taps[2] + b]! + src[taps[3] + b]! + 2) >> 2;
        out[q + nb] = 255;
        continue;
      }
      let n = 0;
      sum.fill(0);
      for (let t = 0; t < 4; t++) {
        const o = taps[t]!;
        if (!src[o + nb]) continue;
        n++;
        for (let b = 0; b < nb; b++) sum[b] = sum[b]! + src[o + b]!;
      }
      for (let b = 0; b < nb; b++) out[q + b] = n ? ((sum[b]! + (n >> 1)) / n) | 0 : 0;
      out[q + nb] = n ? 255 : 0;
    }
  }
}

const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;
const EVEN_BYTES = 0x00ff00ff;

/**
 * halvePixels for three bands and alpha, a pixel a 32-bit word: where all four pixels are covered,
 * their bytes are summed two at a time in 16-bit lanes (four bytes cannot carry out of one), which
 * gives each band the same rounded mean, and alpha 255.
 */
function halveRgba(src8: Uint8Array, W: number, rows: number, out8: Uint8Array): void {
  const src = new Uint32Array(src8.buffer, src8.byteOffset, src8.length >> 2);
  const out = new Uint32Array(out8.buffer, out8.byteOffset, out8.length >> 2);
  const w = Math.ceil(W / 2), h = Math.ceil(rows / 2);
  for (let y = 0; y < h; y++) {
    const r0 = 2 * y * W, r1 = 2 * y + 1 < rows ? r0 + W : r0;
    for (let x = 0, q = y * w; x < w; x++, q++) {
      const c0 = 2 * x, c1 = 2 * x + 1 < W ? c0 + 1 : c0;
      const p0 = src[r0 + c0]!, p1 = src[r0 + c1]!, p2 = src[r1 + c0]!, p3 = src[r1 + c1]!;
      if (p0 >>> 24 && p1 >>> 24 && p2 >>> 24 && p3 >>> 24) {
        const even = (p0 & EVEN_BYTES) + (p1 & EVEN_BYTES) + (p2 & EVEN_BYTES) + (p3 & EVEN_BYTES) + 0x00020002;
        const odd = ((p0 >>> 8) & EVEN_BYTES) + ((p1 >>> 8) & EVEN_BYTES) + ((p2 >>> 8) & EVEN_BYTES) + ((p3 >>> 8) & EVEN_BYTES) + 0x00020002;
        out[q] = ((even >>> 2) & EVEN_BYTES) | (((odd >>> 2) & EVEN_BYTES) << 8);
      } else out[q] = halvePartlyCovered(p0, p1, p2, p3);
    }
  }
}

/** A block of four pixels (32-bit words) with some uncovered: the mean of the covered ones, as halvePixels. */
function halvePartlyCovered(p0: number, p1: number, p2: number, p3: number): number {
  const n = (p0 >>> 24 ? 1 : 0) + (p1 >>> 24 ? 1 : 0) + (p2 >>> 24 ? 1 : 0) + (p3 >>> 24 ? 1 : 0);
  if (!n) return 0;
  const c0 = p0 >>> 24 ? p0 : 0, c1 = p1 >>> 24 ? p1 : 0, c2 = p2 >>> 24 ? p2 : 0, c3 = p3 >>> 24 ? p3 : 0;
  const half = n >> 1;
  const b0 = (((c0 & 0xff) + (c1 & 0xff) + (c2 & 0xff) + (c3 & 0xff) + half) / n) | 0;
  const b1 = ((((c0 >>> 8) & 0xff) + ((c1 >>> 8) & 0xff) + ((c2 >>> 8) & 0xff) + ((c3 >>> 8) & 0xff) + half) / n) | 0;
  const b2 = ((((c0 >>> 16) & 0xff) + ((c1 >>> 16) & 0xff) + ((c2 >>> 16) & 0xff) + ((c3 >>> 16) & 0xff) + half) / n) | 0;
  return (b0 | (b1 << 8) | (b2 << 16) | (255 << 24)) >>> 0;
}

/** Rows of the coarser levels made at a time (finish): even, so that each halves whole. */
const FINISH_ROWS = 512;

/**
 * The overview files of a W×H mosaic: `take` writes bands of its rows, halved, into level 1 (of any
 * strip of columns that starts at an even column, bands starting at even rows); `close` ends level 1,
 * and `finish` then makes the coarser levels from it.
 */
export class OverviewFiles {
  private constructor(readonly sizes: [number, number][], readonly paths: string[], private readonly level1: FileHandle | null, private readonly stride: number) {}

  static async create(paths: (level: number) => string, W: number, H: number, stride: number): Promise<OverviewFiles> {
    const sizes = overviewSizes(W, H), all = sizes.map((_, k) => paths(k + 1));
    return new OverviewFiles(sizes, all, all.length ? await open(all[0]!, 'w') : null, stride);
  }

  /** Rows [row0, row1) of the strip of columns from `col0`, `Ws` wide, as halved (halvePixels) into level 1. */
  async take(half: Uint8Array, row0: number, row1: number, col0: number, Ws: number): Promise<void> {
    if (!this.level1) return;
    const { stride } = this, [w1] = this.sizes[0]!, ws = Math.ceil(Ws / 2), hs = Math.ceil((row1 - row0) / 2);
    if (ws === w1) await this.level1.write(half, 0, ws * hs * stride, (row0 / 2) * w1 * stride);
    else for (let y = 0; y < hs; y++) await this.level1.write(half, y * ws * stride, ws * stride, ((row0 / 2 + y) * w1 + col0 / 2) * stride);
  }

  /** Ends level 1 (again: nothing). */
  async close(): Promise<void> {
    await this.level1?.close();
  }

  /** Each coarser level halved from the one before, once level 1 is closed. */
  async finish(): Promise<void> {
    const { stride } = this;
    for (let k = 1; k < this.sizes.length; k++) {
      const [w, h] = this.sizes[k - 1]!;
      const from = await open(this.paths[k - 1]!, 'r'), to = await open(this.paths[k]!, 'w');
      try {
        const rows = new Uint8Array(w * FINISH_ROWS * stride), half = new Uint8Array(Math.ceil(w / 2) * (FINISH_ROWS / 2) * stride);
        for (let r0 = 0; r0 < h; r0 += FINISH_ROWS) {
          const n = Math.min(FINISH_ROWS, h - r0);
          await from.read(rows, 0, w * n * stride, r0 * w * stride);
          halvePixels(rows, w, n, stride, half);
          await to.write(half, 0, Math.ceil(w / 2) * Math.ceil(n / 2) * stride, (r0 / 2) * Math.ceil(w / 2) * stride);
        }
      } finally {
        await from.close();
        await to.close();
      }
    }
  }
}
