// Compositing: the mosaic made a band of rows at a time (each drawn by composite-rows.ts on two
// threads) from a bounded cache of decoded photos, in strips of columns when a band's photos outgrow
// the cache, so that a mosaic of any size is never held whole in memory.
import pLimit from 'p-limit';
import sharp from 'sharp';
import type { RowSources } from './composite-rows';
import { FEATHER_CUTOFF_M, SEGMENT_COLUMNS } from './composite-rows';
import type { DecodedPart, Outranked, PixelRegion } from './photo-region';
import { frameOnGround, frameOutline, nodeReach, outrankedAmong, photoRegion, sameRegion, wholeFrame } from './photo-region';
import { levelled, levelledBytes } from './radiometry';
import { decodingPhoto } from './photo-decode';
import type { Placed } from './placed';
import type { GridWindow } from './seams';
import { StitchError } from './stitch-error';
import { innerHalfPlanes } from '@/lib/geo/point-in-ring';
import { drawRowsOnThreads } from './threads';

const BLOCK_ROWS = 128;
/**
 * The share of the cache that photos decoded beyond the next band may fill. A large survey, whose
 * strips fill the cache with the bands' own photos, then decodes only a band ahead: further, its peak
 * memory rose by about 0.2 GB and its compositing was no faster (bench/HISTORY.md).
 */
const AHEAD_SHARE = 0.5;

const EMPTY = new Uint8Array(0);
/**
 * Parts decoding at once: as many as the threads drawing rows (two at most, threads.ts). More only
 * queue for the same cores, each holding its decoded pixels twice (libvips' and the copy handed
 * over) until the cache takes them.
 */
const DECODES_AT_ONCE = 2;

/**
 * The coarsest decoding of the photos (JPEG decoders shrink by 2, 4 and 8 almost for free) whose
 * pixels are still no more than about 10 % coarser than the output grid's.
 */
export function decodeScale(nativeGsd: number, outputGsd: number): number {
  let scale = 1;
  while (scale > 1 / 8 && scale / 2 >= (0.9 * nativeGsd) / outputGsd) scale /= 2;
  return scale;
}

/**
 * Decoded parts of captures (photo-region.ts) in at most `budget` bytes of shared memory (more only
 * when the photos of the band being drawn fill it), so that rows can be drawn on another thread
 * without copying a photo. A newly decoded part takes the buffer of one released, else of the least
 * recently used one outside the band: buffers are reused, not left to two threads' garbage
 * collectors, which let gigabytes of them pile up. Serves one compositing at a time (see startBand).
 */
export class PhotoCache {
  private readonly items = new Map<number, DecodedPart>();
  private readonly decoding = new Map<string, Promise<DecodedPart>>();
  /** Bytes of the parts being decoded. */
  private decodingBytes = 0;
  /** Bytes of shared buffers made so far (held by parts or spare). */
  private allocated = 0;
  /** Photos the band being drawn reads: their buffers are not taken. */
  private inBand = new Set<number>();
  /** Buffers free to take a newly decoded part. */
  private spare: SharedArrayBuffer[] = [];
  private readonly decodeSlot = pLimit(DECODES_AT_ONCE);
  constructor(
    private readonly placed: Placed[], private readonly bands: string[], private readonly budget: number,
    /** Decoding scale (1, 1/2, 1/4 or 1/8, see decodeScale): a coarser output grid does not need every source pixel. */
    readonly scale: number,
    /** Common 8-bit factor of calibrated bands and 16-bit photos (radiometry.ts). */
    private readonly radiometricScale: number,
    /** Whether 8-bit photos are cut to the part asked for as they decode; else held whole, for many small windows of a few photos. */
    private readonly cutToParts = true,
  ) {}

  /** Photo i's part `region` decoded (the whole frame when not given, or when the photo is decoded whole: see decode). */
  get(i: number, region?: PixelRegion): Promise<DecodedPart> {
    const p = this.placed[i]!, frame = wholeFrame(Math.round(p.width * this.scale), Math.round(p.height * this.scale));
    const want = region && this.cutToParts && cutAsDecoded(p) ? region : frame;
    const hit = this.items.get(i);
    if (hit && sameRegion(hit.region, want)) {
      this.items.delete(i);
      this.items.set(i, hit);
      return Promise.resolve(hit);
    }
    const key = `${i} ${want.u0} ${want.v0} ${want.w} ${want.h}`;
    let decoding = this.decoding.get(key);
    if (!decoding) {
      const bytes = this.bytesOf(want);
      this.decodingBytes += bytes;
      decoding = this.decodeSlot(() => this.decode(p, want)).then((part) => this.keep(i, part)).finally(() => {
        this.decoding.delete(key);
        this.decodingBytes -= bytes;
      });
      this.decoding.set(key, decoding);
    }
    return decoding;
  }

  /**
   * Starts decoding parts not held yet, in the order given (a failure surfaces when they are asked
   * for). With `roomShare`, only while each fits in that share of the budget beside the parts held and
   * decoding, and beside the buffers made so far: decoding further ahead must never take the buffer of
   * a part still to be drawn, nor add to a cache that has filled its budget once.
   */
  prefetch(ids: number[], regionOf?: (i: number) => PixelRegion, roomShare = Infinity): void {
    for (const i of ids) {
      const p = this.placed[i]!, region = regionOf?.(i);
      const bytes = this.bytesOf(region ?? wholeFrame(Math.round(p.width * this.scale), Math.round(p.height * this.scale)));
      const used = Math.max(this.heldBytes() + this.decodingBytes, this.allocated);
      if (!this.items.has(i) && used + bytes > roomShare * this.budget) return;
      this.get(i, region).catch(() => undefined);
    }
  }

  private bytesOf(region: PixelRegion): number {
    return region.w * region.h * this.bands.length;
  }

  /** Bytes of the buffers parts hold (spare ones can take a new part). */
  private heldBytes(): number {
    return this.allocated - this.spare.reduce((sum, b) => sum + b.byteLength, 0);
  }

  private keep(i: number, { px: decoded, region }: DecodedPart): DecodedPart {
    const px = new Uint8Array(this.bufferFor(decoded.length), 0, decoded.length);
    px.set(decoded);
    // A part of the same photo an earlier window held goes.
    this.release(i);
    const part = { px, region };
    this.items.set(i, part);
    return part;
  }

  private bufferFor(size: number): SharedArrayBuffer {
    for (;;) {
      // The smallest spare buffer that holds it.
      const fit = this.spare.reduce((best, b, k) => (b.byteLength >= size && (best < 0 || b.byteLength < this.spare[best]!.byteLength) ? k : best), -1);
      if (fit >= 0) return this.spare.splice(fit, 1)[0]!;
      if (this.allocated + size <= this.budget) break;
      const oldest = [...this.items.keys()].find((j) => !this.inBand.has(j));
      if (oldest === undefined) break;
      this.release(oldest);
    }
    // Over the budget with spare buffers too small for this part: they go, so that memory stays bounded.
    if (this.allocated + size > this.budget) {
      for (const b of this.spare) this.allocated -= b.byteLength;
      this.spare = [];
    }
    this.allocated += size;
    return new SharedArrayBuffer(size);
  }

  /** Forgets a photo that no rows still to be drawn need (its buffer then takes another). */
  release(i: number): void {
    const part = this.items.get(i);
    if (!part) return;
    this.items.delete(i);
    this.spare.push(part.px.buffer as SharedArrayBuffer);
  }

  /** Lets go of every decoded photo and buffer, for the garbage collector to take; the cache decodes again if asked. */
  clear(): void {
    this.items.clear();
    this.spare = [];
    this.allocated = 0;
  }

  /** Names the photos the next band reads, before they are asked for; call between bands, when no rows are being drawn. */
  startBand(ids: number[]): void {
    this.inBand = new Set(ids);
  }

  /** Pixel-interleaved bands in `this.bands` order of `region` of the photo. */
  private async decode(p: Placed, region: PixelRegion): Promise<DecodedPart> {
    const { capture } = p;
    const width = Math.round(p.width * this.scale), height = Math.round(p.height * this.scale);
    const whole = sameRegion(region, wholeFrame(width, height));
    if (cutAsDecoded(p)) {
      // libvips cuts the part out as it decodes: the rest of the frame is never held.
      const img = sharp(capture.main.path).removeAlpha().toColourspace('srgb');
      const sized = this.scale < 1 ? img.resize(width, height, { fit: 'fill' }) : img;
      const { u0, v0, w, h } = region;
      const { data, info } = await decodingPhoto(capture.main.file, () => (whole ? sized : sized.extract({ left: u0, top: v0, width: w, height: h })).raw().toBuffer({ resolveWithObject: true }));
      if (info.width !== w || info.height !== h) throw new StitchError('no_matches', `size of ${capture.main.file}`);
      return { px: new Uint8Array(data.buffer, data.byteOffset, data.length), region };
    }
    // Calibrated and multispectral photos are decoded whole (their levelling works on the frame): get asks for the frame.
    return { px: await this.decodeLevelled(p, width, height), region };
  }

  private async decodeLevelled(p: Placed, width: number, height: number): Promise<Uint8Array> {
    const nb = this.bands.length;
    const { capture } = p;
    if (!capture.main.bandName) return levelledBytes(levelled(capture.main)!, width, height, this.radiometricScale);
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

/** Plain 8-bit photos are cut to the part a window needs as they are decoded; calibrated and multispectral ones are decoded whole. */
const cutAsDecoded = (p: Placed) => !p.capture.main.bandName && !levelled(p.capture.main);

/** Narrowest strip of columns compositing splits a mosaic into (compositeStrips). */
const MIN_STRIP_COLUMNS = 512;

/**
 * Strips of columns [c0, c1) to composite one after another so that the photos two bands of rows of a
 * strip need (the band drawn and the one decoding ahead) fit in `budget` bytes: a band across a wide
 * survey needs a photo from every flight line, which would hold more photos than the cache may. One
 * strip when they fit; a photo spanning two strips is decoded once for each. No strip is wider than
 * `maxColumns` (rounded down to whole segments).
 */
export function compositeStrips(src: Pick<Sources, 'placed' | 'bbox' | 'nb' | 'scale'>, grid: GridWindow, budget: number, maxColumns = Infinity): [number, number][] {
  const { x0, y0, gsd, W, H } = grid;
  const bytes = src.placed.map((p) => Math.round(p.width * src.scale) * Math.round(p.height * src.scale) * src.nb);
  // Whole segments of columns each (composite-rows.ts), so that strips draw the whole mosaic's bytes.
  const segments = Math.ceil(W / SEGMENT_COLUMNS);
  const edge = (s: number, k: number) => Math.min(W, SEGMENT_COLUMNS * Math.floor((s * segments) / k));
  const strips = (k: number) => Array.from({ length: k }, (_, s): [number, number] => [edge(s, k), edge(s + 1, k)]);
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
  const fewest = Math.ceil(segments / Math.max(1, Math.floor(maxColumns / SEGMENT_COLUMNS))), most = Math.max(1, Math.floor(W / MIN_STRIP_COLUMNS));
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
export type BandSink = (rows: Uint8Array, row0: number, row1: number, halved: Uint8Array) => Promise<void>;

/** What compositing draws from: the photos as placed, their cameras as finally adjusted, the relief, and the cache of decoded photos. */
export interface Sources extends RowSources {
  placed: Placed[];
  cache: PhotoCache;
}

/**
 * Each photo's node grid on the ground (frameOnGround), kept per set of sources: the seam check draws
 * many small windows from the same photos, and casting a grid costs milliseconds.
 */
const framesOnGround = new WeakMap<Sources, Map<number, Float64Array>>();

/**
 * The part of each photo `drawn` that compositing `grid`'s window from them can read: where its ground
 * falls in the window and it is not outranked by a photo nearer nadir (photo-region.ts), so that the
 * middle of a photo its neighbours' overlap covers is neither decoded nor held.
 */
function partsToDecode(src: Sources, grid: GridWindow, drawn: number[]): (i: number) => PixelRegion {
  const { placed, cameras, relief, scale, bbox } = src;
  const nodes = framesOnGround.get(src) ?? framesOnGround.set(src, new Map()).get(src)!;
  const nodesOf = (i: number) => nodes.get(i) ?? nodes.set(i, frameOnGround(cameras[i]!, placed[i]!.width, placed[i]!.height, relief)).get(i)!;
  const nadirs = cameras.map((c): [number, number] => [c.E, c.N]);
  const outlines: Float64Array[] = [], reaches: number[] = [];
  const regions = new Map<number, PixelRegion>();
  return (i) => {
    let r = regions.get(i);
    if (r) return r;
    // Only a photo whose bounds meet photo i's can see a spot of it.
    const [w, e, s, n] = bbox[i]!;
    const near = drawn.filter((j) => bbox[j]![1]! >= w! && bbox[j]![0]! <= e! && bbox[j]![3]! >= s! && bbox[j]![2]! <= n!);
    // Alone (the seam check's single-photo windows), nothing can outrank it.
    let outranked: Outranked | undefined;
    if (near.length > 1) {
      for (const j of near) {
        outlines[j] ??= innerHalfPlanes(frameOutline(nodesOf(j)));
        reaches[j] ??= nodeReach(nodesOf(j));
      }
      outranked = outrankedAmong(i, near, nadirs, outlines, reaches, FEATHER_CUTOFF_M);
    }
    regions.set(i, (r = photoRegion(nodesOf(i), placed[i]!.width, placed[i]!.height, scale, grid, outranked)));
    return r;
  };
}

/**
 * Pixel-interleaved bands + alpha of a window of the mosaic, each pixel from the photo nearest nadir
 * there with feathered seams, drawn from `only` these photos (null: all of them).
 */
export async function composite(src: Sources, grid: GridWindow, only: number[] | null, sink?: BandSink): Promise<Uint8Array> {
  const { placed, bbox, cache } = src;
  const { x0, y0, gsd, W, H } = grid;
  const stride = src.nb + 1;
  // With a sink, bands of rows in two buffers taken in turn (the sink writes one while the next band
  // is drawn into the other); without, the whole window.
  const bandBuffer = () => new Uint8Array(new SharedArrayBuffer(W * (sink ? Math.min(H, BLOCK_ROWS) : H) * stride));
  const outs = sink ? [bandBuffer(), bandBuffer()] : [bandBuffer()];
  // A sink also gets each band halved each way (the first overview), drawn by the threads that drew it.
  const halvedBuffer = () => new Uint8Array(new SharedArrayBuffer(Math.ceil(W / 2) * Math.ceil(Math.min(H, BLOCK_ROWS) / 2) * stride));
  const halves = sink ? [halvedBuffer(), halvedBuffer()] : [];
  let sinking: Promise<void> = Promise.resolve();
  // What another thread needs (the photos' captures and the cache stay here).
  const rowSrc: RowSources = { placed: placed.map(({ width, height }) => ({ width, height })), cameras: src.cameras, relief: src.relief, gains: src.gains, nb: src.nb, scale: src.scale, bbox };
  const photosBetween = (row0: number, row1: number) => (only ?? placed.map((_, i) => i)).filter((i) =>
    bbox[i]![3]! >= y0 - row1 * gsd && bbox[i]![2]! <= y0 - row0 * gsd && bbox[i]![1]! >= x0 && bbox[i]![0]! <= x0 + W * gsd);
  const regionOf = partsToDecode(src, grid, only ?? placed.map((_, i) => i));
  for (let row0 = 0, band = 0; row0 < H; row0 += BLOCK_ROWS, band++) {
    const row1 = Math.min(H, row0 + BLOCK_ROWS), out = outs[band % outs.length]!;
    const inBlock = photosBetween(row0, row1);
    cache.startBand(inBlock);
    const parts = await Promise.all(inBlock.map((i) => cache.get(i, regionOf(i))));
    // The next band's new photos decode on sharp's threads while this band is composited here, and
    // the later bands' too within AHEAD_SHARE of the cache, first needed first: a band entering the
    // next flight line needs several photos at once, which one band's lead does not decode in time.
    if (row1 < H) {
      cache.prefetch(photosBetween(row1, Math.min(H, row1 + BLOCK_ROWS)), regionOf);
      cache.prefetch(photosBetween(row1 + BLOCK_ROWS, H).sort((i, j) => bbox[j]![3]! - bbox[i]![3]!), regionOf, AHEAD_SHARE);
    }
    const halved = halves[band % 2];
    await drawRowsOnThreads({ src: rowSrc, grid, inBlock, parts, out, row0, row1, outRow0: sink ? 0 : row0, ...(halved ? { halved } : {}) });
    // Rows go north to south: a photo that ends above this block is done with (on the whole grid).
    if (!only) for (const i of inBlock) if (bbox[i]![2]! > y0 - row1 * gsd) cache.release(i);
    if (sink) {
      // The band before has been handed over, so its buffer is free for the next band.
      await sinking;
      sinking = sink(out.subarray(0, (row1 - row0) * W * stride), row0, row1, halved!.subarray(0, Math.ceil(W / 2) * Math.ceil((row1 - row0) / 2) * stride)).then(() => void out.fill(0));
      // Seen as handled now: a failure surfaces at the next await of it, not as an unhandled rejection.
      sinking.catch(() => undefined);
    }
  }
  await sinking;
  // Out of shared memory: callers hand the window to libraries that may not take it there.
  return sink ? EMPTY : new Uint8Array(outs[0]!);
}
