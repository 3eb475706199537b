// Compositing: each output pixel is drawn from the photo nearest nadir there, with feathered seams
// and per-photo exposure gains, through each photo's camera (camera.ts) from the output pixel's spot
// on the relief (inverse mapping: from the output pixel back into the photo). Rows are made a band at a time from a bounded cache of
// decoded photos, so a mosaic of any size is never held whole in memory.
import sharp from 'sharp';
import type { Camera } from './camera';
import { rotation } from './camera';
import { levelled, levelledBytes } from './radiometry';
import { decodingPhoto } from './photo-decode';
import type { Placed } from './placed';
import type { ReliefGrid } from './relief';
import { heightsAlongRow } from './relief';
import type { GridWindow } from './seams';
import { StitchError } from './stitch-error';

/** Seam feathering: weight falls by e per this many metres of extra distance from nadir. */
export const FEATHER_M = 0.6;
/** Photo edges fade over this many pixels so a neighbour can take over smoothly. */
const EDGE_FEATHER_PX = 60;
const BLOCK_ROWS = 128;

const EMPTY = new Uint8Array(0);

/**
 * The coarsest decoding of the photos (JPEG decoders shrink by 2, 4 and 8 almost for free) whose
 * pixels are still no more than about 10 % coarser than the output grid's.
 */
export function decodeScale(nativeGsd: number, outputGsd: number): number {
  let scale = 1;
  while (scale > 1 / 8 && scale / 2 >= (0.9 * nativeGsd) / outputGsd) scale /= 2;
  return scale;
}

/** Decoded pixels of captures, least recently used dropped beyond the byte budget. */
export class PhotoCache {
  private readonly items = new Map<number, Uint8Array>();
  private readonly decoding = new Map<number, Promise<Uint8Array>>();
  private bytes = 0;
  constructor(
    private readonly placed: Placed[], private readonly bands: string[], private readonly budget: number,
    /** Decoding scale (1, 1/2, 1/4 or 1/8, see decodeScale): a coarser output grid does not need every source pixel. */
    readonly scale: number,
    /** Common 8-bit factor of calibrated bands and 16-bit photos (radiometry.ts). */
    private readonly radiometricScale: number,
  ) {}

  get(i: number): Promise<Uint8Array> {
    const hit = this.items.get(i);
    if (hit) {
      this.items.delete(i);
      this.items.set(i, hit);
      return Promise.resolve(hit);
    }
    let decoding = this.decoding.get(i);
    if (!decoding) {
      decoding = this.decode(this.placed[i]!).then((px) => this.keep(i, px)).finally(() => this.decoding.delete(i));
      this.decoding.set(i, decoding);
    }
    return decoding;
  }

  /** Starts decoding photos not held yet (a failure surfaces when they are asked for). */
  prefetch(ids: number[]): void {
    for (const i of ids) if (!this.items.has(i)) this.get(i).catch(() => undefined);
  }

  private keep(i: number, px: Uint8Array): Uint8Array {
    this.items.set(i, px);
    this.bytes += px.length;
    for (const [k, v] of this.items) {
      if (this.bytes <= this.budget || k === i) break;
      this.items.delete(k);
      this.bytes -= v.length;
    }
    return px;
  }

  /** Forgets a photo that no later part of the mosaic needs. */
  release(i: number): void {
    const px = this.items.get(i);
    if (!px) return;
    this.items.delete(i);
    this.bytes -= px.length;
  }

  /** Pixel-interleaved bands in `this.bands` order. */
  private async decode(p: Placed): Promise<Uint8Array> {
    const nb = this.bands.length;
    const { capture } = p;
    const width = Math.round(p.width * this.scale), height = Math.round(p.height * this.scale);
    if (!capture.main.bandName) {
      const main = levelled(capture.main);
      if (main) return levelledBytes(main, width, height, this.radiometricScale);
      const img = sharp(capture.main.path).removeAlpha().toColourspace('srgb');
      const { data, info } = await decodingPhoto(capture.main.file, () => (this.scale < 1 ? img.resize(width, height, { fit: 'fill' }) : img).raw().toBuffer({ resolveWithObject: true }));
      if (info.width !== width || info.height !== height) throw new StitchError('no_matches', `size of ${capture.main.file}`);
      return new Uint8Array(data.buffer, data.byteOffset, data.length);
    }
    const out = new Uint8Array(width * height * nb);
    for (const photo of capture.photos) {
      const b = this.bands.indexOf((photo.bandName ?? '').toLowerCase().replace(/[^a-z]/g, ''));
      if (b < 0) continue;
      const band = levelled(photo);
      const data = band
        ? await levelledBytes(band, width, height, this.radiometricScale)
        : (await decodingPhoto(photo.file, () => sharp(photo.path).extractChannel(0).resize(width, height, { fit: 'fill' }).raw().toBuffer({ resolveWithObject: true }))).data;
      for (let k = 0, o = b; k < data.length; k++, o += nb) out[o] = data[k]!;
    }
    return out;
  }
}

/** Narrowest strip of columns compositing splits a mosaic into (compositeStrips). */
const MIN_STRIP_COLUMNS = 512;

/**
 * Strips of columns [c0, c1) to composite one after another so that the photos two bands of rows of a
 * strip need (the band drawn and the one decoding ahead) fit in `budget` bytes: a band across a wide
 * survey needs a photo from every flight line, which would hold more photos than the cache may. One
 * strip when they fit; a photo spanning two strips is decoded once for each. No strip is wider than
 * `maxColumns`.
 */
export function compositeStrips(src: Pick<Sources, 'placed' | 'bbox' | 'nb' | 'scale'>, grid: GridWindow, budget: number, maxColumns = Infinity): [number, number][] {
  const { x0, y0, gsd, W, H } = grid;
  const bytes = src.placed.map((p) => Math.round(p.width * src.scale) * Math.round(p.height * src.scale) * src.nb);
  const strips = (k: number) => Array.from({ length: k }, (_, s): [number, number] => [Math.floor((s * W) / k), Math.floor(((s + 1) * W) / k)]);
  const peak = (k: number) => {
    let most = 0;
    for (const [c0, c1] of strips(k)) {
      for (let row0 = 0; row0 < H; row0 += BLOCK_ROWS) {
        const top = y0 - row0 * gsd, bottom = y0 - Math.min(H, row0 + 2 * BLOCK_ROWS) * gsd;
        let sum = 0;
        src.bbox.forEach((b, i) => {
          if (b[3]! >= bottom && b[2]! <= top && b[1]! >= x0 + c0 * gsd && b[0]! <= x0 + c1 * gsd) sum += bytes[i]!;
        });
        most = Math.max(most, sum);
      }
    }
    return most;
  };
  const fewest = Math.ceil(W / maxColumns), most = Math.max(1, Math.floor(W / MIN_STRIP_COLUMNS));
  const peaks: number[] = [];
  for (let k = 1; k <= most; k++) {
    peaks.push(peak(k));
    if (peaks[k - 1]! <= budget) return strips(Math.max(k, fewest));
  }
  // The photos' own overlap holds more than the budget at any width: the fewest strips within half again
  // of the least that narrower strips reach, as each further strip decodes the photos it cuts again.
  const enough = 1.5 * Math.min(...peaks);
  return strips(Math.max(peaks.findIndex((p) => p <= enough) + 1, fewest));
}

/** Takes each band of composited rows [row0, row1) (pixel-interleaved bands + alpha); the buffer is reused after. */
export type BandSink = (rows: Uint8Array, row0: number, row1: number) => Promise<void>;

/** What compositing draws from: the photos' cameras as finally adjusted, and the relief. */
export interface Sources {
  placed: Placed[];
  cameras: Camera[];
  relief: ReliefGrid;
  /** Per-photo exposure gains, per channel. */
  gains: number[][];
  /** Bands (alpha follows in the output). */
  nb: number;
  /** Decoding scale of the photos (decodeScale). */
  scale: number;
  /** Each photo's [minE, maxE, minN, maxN] on the relief. */
  bbox: number[][];
  cache: PhotoCache;
}

/**
 * Pixel-interleaved bands + alpha of a window of the mosaic, each pixel from the photo nearest nadir
 * there with feathered seams, drawn from `only` these photos (null: all of them).
 */
export async function composite(src: Sources, grid: GridWindow, only: number[] | null, sink?: BandSink): Promise<Uint8Array> {
  const { placed, cameras, relief, gains, nb, scale, bbox, cache } = src;
  const { x0, y0, gsd, W, H } = grid;
  const stride = nb + 1;
  // With a sink, one band of rows at a time (handed over and reused); without, the whole window.
  const out = new Uint8Array(W * (sink ? Math.min(H, BLOCK_ROWS) : H) * stride);
  const rot = cameras.map((c) => rotation(c.yaw, c.pitch, c.roll));
  const distorted = Uint8Array.from(cameras, (c) => (c.k1 || c.k2 ? 1 : 0));
  const cutoff = 6 * FEATHER_M;
  const acc = new Float64Array(nb);
  const nCap = placed.length;
  // Per-row state of each candidate photo: the camera-frame coordinates of the row's ground points at
  // column 0 on the camera's own height, their steps per column (x, y, z), and the z column of R.
  const px0 = new Float64Array(nCap), py0 = new Float64Array(nCap), pz0 = new Float64Array(nCap);
  const pxs = new Float64Array(nCap), pys = new Float64Array(nCap), pzs = new Float64Array(nCap);
  const cu = new Float64Array(nCap), cvv = new Float64Array(nCap), cd = new Float64Array(nCap), cd2 = new Float64Array(nCap), ce = new Float64Array(nCap);
  const cand = new Int32Array(nCap);
  const rowHeights = new Float64Array(W);
  const imgs: Uint8Array[] = new Array<Uint8Array>(nCap).fill(EMPTY);
  const widths = Int32Array.from(placed.map((p) => Math.round(p.width * scale))), heights = Int32Array.from(placed.map((p) => Math.round(p.height * scale)));
  const photosBetween = (row0: number, row1: number) => (only ?? placed.map((_, i) => i)).filter((i) =>
    bbox[i]![3]! >= y0 - row1 * gsd && bbox[i]![2]! <= y0 - row0 * gsd && bbox[i]![1]! >= x0 && bbox[i]![0]! <= x0 + W * gsd);
  for (let row0 = 0; row0 < H; row0 += BLOCK_ROWS) {
    const row1 = Math.min(H, row0 + BLOCK_ROWS);
    const nBottom = y0 - row1 * gsd;
    const inBlock = photosBetween(row0, row1);
    const px = await Promise.all(inBlock.map((i) => cache.get(i)));
    // The next band's new photos decode on sharp's threads while this band is composited here.
    if (row1 < H) cache.prefetch(photosBetween(row1, Math.min(H, row1 + BLOCK_ROWS)));
    // Only this block's photos stay referenced here, so that the cache's evictions free memory.
    imgs.fill(EMPTY);
    inBlock.forEach((i, k) => (imgs[i] = px[k]!));
    for (let row = row0; row < row1; row++) {
      const n = y0 - (row + 0.5) * gsd;
      const rowCands = inBlock.filter((i) => bbox[i]![3]! >= n && bbox[i]![2]! <= n);
      heightsAlongRow(relief, n, x0 + 0.5 * gsd, gsd, rowHeights);
      for (const i of rowCands) {
        const c = cameras[i]!, R = rot[i]!;
        const dx = x0 + 0.5 * gsd - c.E, dy = n - c.N;
        px0[i] = R[0]! * dx + R[1]! * dy; py0[i] = R[3]! * dx + R[4]! * dy; pz0[i] = R[6]! * dx + R[7]! * dy;
        pxs[i] = R[0]! * gsd; pys[i] = R[3]! * gsd; pzs[i] = R[6]! * gsd;
      }
      const rowOut = (sink ? row - row0 : row) * W * stride;
      const e0 = x0 + 0.5 * gsd;
      /** Projects the column's ground point into photo i; true (and cu, cvv, ce set) when it falls inside the frame. */
      const inFrame = (i: number, col: number, z: number): boolean => {
        const c = cameras[i]!, R = rot[i]!;
        const dz = z - c.Z;
        const zc = pz0[i]! + pzs[i]! * col + R[8]! * dz;
        if (!(zc > 0)) return false;
        let xn = (px0[i]! + pxs[i]! * col + R[2]! * dz) / zc, yn = (py0[i]! + pys[i]! * col + R[5]! * dz) / zc;
        if (distorted[i]) {
          const r2 = xn * xn + yn * yn, dist = 1 + r2 * (c.k1 + c.k2 * r2);
          xn *= dist; yn *= dist;
        }
        // Decoded-pixel coordinates (pixel centres scale about the corner).
        const u = (c.cx + c.f * xn + 0.5) * scale - 0.5, v = (c.cy + c.f * yn + 0.5) * scale - 0.5;
        const w = widths[i]! - 1, h = heights[i]! - 1;
        if (u < 0 || v < 0 || u >= w || v >= h) return false;
        cu[i] = u; cvv[i] = v;
        const edge = Math.min(u, v, w - u, h - v) + 1;
        ce[i] = edge < EDGE_FEATHER_PX * scale ? edge / (EDGE_FEATHER_PX * scale) : 1;
        return true;
      };
      for (let col = 0; col < W; col++) {
        const z = rowHeights[col]!;
        // The photo nearest nadir first: when it sees the spot, only photos within the feather's cutoff
        // of it can weigh in, and most pixels need one projection instead of one per candidate.
        let nearest = -1, nearestD2 = Infinity;
        for (let k = 0; k < rowCands.length; k++) {
          const i = rowCands[k]!, c = cameras[i]!;
          const ex = e0 + col * gsd - c.E, ey = n - c.N;
          const d2 = ex * ex + ey * ey;
          cd2[i] = d2;
          if (d2 < nearestD2) { nearestD2 = d2; nearest = i; }
        }
        let dmin = Infinity, nc = 0;
        const nearestSees = nearest >= 0 && inFrame(nearest, col, z);
        const reach = nearestSees ? (Math.sqrt(nearestD2) + cutoff) ** 2 : Infinity;
        for (let k = 0; k < rowCands.length; k++) {
          const i = rowCands[k]!;
          if (i === nearest ? !nearestSees : cd2[i]! > reach || !inFrame(i, col, z)) continue;
          const d = Math.sqrt(cd2[i]!);
          cd[i] = d;
          cand[nc++] = i;
          if (d < dmin) dmin = d;
        }
        if (!nc) continue;
        const o = rowOut + col * stride;
        if (nc === 1) {
          // Inside a single photo (most of the mosaic): no blending needed.
          const i = cand[0]!;
          const img = imgs[i]!, w = widths[i]!, g = gains[i]!;
          const u = cu[i]!, v = cvv[i]!;
          const ui = u | 0, vi = v | 0;
          const fu = u - ui, fv = v - vi;
          const o00 = (vi * w + ui) * nb, o01 = o00 + w * nb;
          for (let b = 0; b < nb; b++) {
            const val = (img[o00 + b]! * (1 - fu) + img[o00 + nb + b]! * fu) * (1 - fv) + (img[o01 + b]! * (1 - fu) + img[o01 + nb + b]! * fu) * fv;
            out[o + b] = Math.min(255, Math.round(val * (g[b] ?? g[0]!)));
          }
          out[o + nb] = 255;
          continue;
        }
        acc.fill(0);
        let wsum = 0;
        for (let k = 0; k < nc; k++) {
          const i = cand[k]!;
          const excess = cd[i]! - dmin;
          if (excess > cutoff) continue;
          const wt = (excess === 0 ? 1 : Math.exp(-excess / FEATHER_M)) * ce[i]!;
          const img = imgs[i]!;
          const w = widths[i]!;
          const u = cu[i]!, v = cvv[i]!;
          const ui = u | 0, vi = v | 0;
          const fu = u - ui, fv = v - vi;
          const w00 = (1 - fu) * (1 - fv), w10 = fu * (1 - fv), w01 = (1 - fu) * fv, w11 = fu * fv;
          const o00 = (vi * w + ui) * nb, o01 = o00 + w * nb;
          const g = gains[i]!;
          for (let b = 0; b < nb; b++) {
            const val = img[o00 + b]! * w00 + img[o00 + nb + b]! * w10 + img[o01 + b]! * w01 + img[o01 + nb + b]! * w11;
            acc[b] = acc[b]! + wt * val * (g[b] ?? g[0]!);
          }
          wsum += wt;
        }
        for (let b = 0; b < nb; b++) out[o + b] = Math.min(255, Math.round(acc[b]! / wsum));
        out[o + nb] = 255;
      }
    }
    // Rows go north to south: a photo that ends above this block is done with (on the whole grid).
    if (!only) for (const i of inBlock) if (bbox[i]![2]! > nBottom) cache.release(i);
    if (sink) {
      await sink(out.subarray(0, (row1 - row0) * W * stride), row0, row1);
      out.fill(0);
    }
  }
  return sink ? EMPTY : out;
}

