// The part of a photo a window of the mosaic can draw from, so that compositing decodes and holds
// only that part: a strip of columns needs about the strip's width of each photo, not the whole frame.
import type { Camera } from './camera';
import { pixelRayToGround, rotation } from './camera';
import type { ReliefGrid } from './relief';
import type { GridWindow } from './seams';
import { planarDistance } from '@/lib/geo/planar';
import { insideHalfPlanesBy } from '@/lib/geo/point-in-ring';

/** Columns [u0, u0 + w) and rows [v0, v0 + h) of a photo's decoded pixels. */
export interface PixelRegion {
  u0: number;
  v0: number;
  w: number;
  h: number;
}

/** A photo's decoded pixels (pixel-interleaved bands) of one region of it. */
export interface DecodedPart {
  px: Uint8Array;
  region: PixelRegion;
}

/**
 * Nodes a side of the grid laid over a photo's frame and cast onto the relief: about 1.5 % of a
 * frame's side apart, so that a cell's reach on the ground (photoRegion, outrankedAmong) is a few metres.
 */
const NODES = 65;
/** Slack on a cell's reach on the ground: the map from pixels to ground bends a little within a cell. */
const REACH_SLACK = 1.5;
/** Decoded pixels added around a region: bilinear sampling reads one pixel beyond the spot. */
const MARGIN_PX = 2;
/** Metres added to the cutoff in outrankedAmong, for rounding. */
const OUTRANK_MARGIN_M = 0.01;

export const wholeFrame = (w: number, h: number): PixelRegion => ({ u0: 0, v0: 0, w, h });

export const sameRegion = (a: PixelRegion, b: PixelRegion) => a.u0 === b.u0 && a.v0 === b.v0 && a.w === b.w && a.h === b.h;

/** Ground points (E, N) of a NODES x NODES grid of pixels over a photo's frame of `width` x `height`. */
export function frameOnGround(c: Camera, width: number, height: number, relief: ReliefGrid): Float64Array {
  const R = rotation(c.yaw, c.pitch, c.roll), out = new Float64Array(NODES * NODES * 2);
  for (let b = 0; b < NODES; b++) {
    for (let a = 0; a < NODES; a++) {
      const [e, n] = pixelRayToGround(c, (width * a) / (NODES - 1), (height * b) / (NODES - 1), relief, R);
      out[2 * (b * NODES + a)] = e;
      out[2 * (b * NODES + a) + 1] = n;
    }
  }
  return out;
}

/** Node (a, b)'s ground point in frameOnGround's grid. */
const nodeAt = (nodes: Float64Array, a: number, b: number): [number, number] => [nodes[2 * (b * NODES + a)]!, nodes[2 * (b * NODES + a) + 1]!];

/** A frame's outline on the ground: the edge nodes of its node grid (frameOnGround), in order around. */
export function frameOutline(nodes: Float64Array): [number, number][] {
  const last = NODES - 1, at = (a: number, b: number) => nodeAt(nodes, a, b);
  const ring: [number, number][] = [];
  for (let a = 0; a < last; a++) ring.push(at(a, 0));
  for (let b = 0; b < last; b++) ring.push(at(last, b));
  for (let a = last; a > 0; a--) ring.push(at(a, last));
  for (let b = last; b > 0; b--) ring.push(at(0, b));
  return ring;
}

/** The longest diagonal of a cell of a photo's node grid on the ground, with slack for the bend within a cell. */
export function nodeReach(nodes: Float64Array): number {
  const ground = (a: number, b: number) => nodeAt(nodes, a, b);
  let reach = 0;
  for (let b = 0; b + 1 < NODES; b++) {
    for (let a = 0; a + 1 < NODES; a++) {
      const [e0, n0] = ground(a, b), [e1, n1] = ground(a + 1, b + 1), [e2, n2] = ground(a + 1, b), [e3, n3] = ground(a, b + 1);
      reach = Math.max(reach, Math.hypot(e1 - e0, n1 - n0), Math.hypot(e3 - e2, n3 - n2));
    }
  }
  return reach * REACH_SLACK;
}

/**
 * Whether a photo cannot weigh in anywhere within `reach` of ground point (e, n), and so needs no
 * pixels there (photoRegion's `outranked`).
 */
export type Outranked = (e: number, n: number, reach: number) => boolean;

/**
 * The Outranked test of photo i among the photos drawn: true where another photo j sees a whole disc
 * of `reach` around the point (inside its outline's edges, `innerHalfPlanes`, by that and its own
 * cells' reach for the bend between nodes) and is nearer its nadir by more than `cutoff` plus twice
 * the reach. Distances to a nadir change by at most the distance moved, so j is then nearer by more
 * than the cutoff all over the disc: compositing never blends photo i there, and never draws it alone.
 */
export function outrankedAmong(i: number, drawn: number[], nadirs: [number, number][], outlines: Float64Array[], reaches: number[], cutoff: number): Outranked {
  // The photo that outranked the last point is asked first: points come in order over the frame, and
  // where photos all see one another (photos of one spot) the next one is most often its too.
  let last = -1;
  const nadirDistance = (j: number, e: number, n: number) => planarDistance(e, n, nadirs[j]![0], nadirs[j]![1]);
  return (e, n, reach) => {
    const di = nadirDistance(i, e, n);
    const outranks = (j: number) => j !== i && di - nadirDistance(j, e, n) > cutoff + 2 * reach + OUTRANK_MARGIN_M && insideHalfPlanesBy(outlines[j]!, e, n, reach + reaches[j]!);
    if (last >= 0 && outranks(last)) return true;
    const j = drawn.find((k) => k !== last && outranks(k));
    if (j === undefined) return false;
    last = j;
    return true;
  };
}

/**
 * The decoded pixels (at `scale`) of a photo of `width` x `height` whose ground can fall in `grid`'s
 * window. A spot the photo sees lies in one cell of the node grid, within a cell's diagonal of its
 * corners on the ground: the region holds every node that near the window, and a cell more each side.
 * With `outranked`, nodes near no spot where the photo can weigh in are left out too.
 * The whole frame when no node is near (the photo then sees nothing there; the frame is the safe answer).
 */
export function photoRegion(nodes: Float64Array, width: number, height: number, scale: number, grid: GridWindow, outranked?: Outranked): PixelRegion {
  const dw = Math.round(width * scale), dh = Math.round(height * scale);
  const ground = (a: number, b: number) => nodeAt(nodes, a, b);
  const reach = nodeReach(nodes);
  const west = grid.x0 - reach, east = grid.x0 + grid.W * grid.gsd + reach;
  const north = grid.y0 + reach, south = grid.y0 - grid.H * grid.gsd - reach;
  let aMin = NODES, aMax = -1, bMin = NODES, bMax = -1;
  for (let b = 0; b < NODES; b++) {
    for (let a = 0; a < NODES; a++) {
      const [e, n] = ground(a, b);
      if (!(e >= west && e <= east && n >= south && n <= north) || outranked?.(e, n, reach)) continue;
      aMin = Math.min(aMin, a); aMax = Math.max(aMax, a); bMin = Math.min(bMin, b); bMax = Math.max(bMax, b);
    }
  }
  if (aMax < 0) return wholeFrame(dw, dh);
  // Full-resolution pixel bounds a cell wider each side, then decoded pixels (centres scale about the corner).
  const toDecoded = (p: number) => (p + 0.5) * scale - 0.5;
  const u0 = Math.max(0, Math.floor(toDecoded((width * (aMin - 1)) / (NODES - 1))) - MARGIN_PX);
  const u1 = Math.min(dw, Math.ceil(toDecoded((width * (aMax + 1)) / (NODES - 1))) + MARGIN_PX);
  const v0 = Math.max(0, Math.floor(toDecoded((height * (bMin - 1)) / (NODES - 1))) - MARGIN_PX);
  const v1 = Math.min(dh, Math.ceil(toDecoded((height * (bMax + 1)) / (NODES - 1))) + MARGIN_PX);
  return { u0, v0, w: u1 - u0, h: v1 - v0 };
}
