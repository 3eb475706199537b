// The part of a photo a window of the mosaic can draw from, so that compositing decodes and holds
// only that part: a strip of columns needs about the strip's width of each photo, not the whole frame.
import type { Camera } from './camera';
import { pixelRayToGround, rotation } from './camera';
import type { ReliefGrid } from './relief';
import type { GridWindow } from './seams';

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

/** Nodes a side of the grid laid over a photo's frame and cast onto the relief. */
const NODES = 17;
/** Slack on a cell's reach on the ground: the map from pixels to ground bends a little within a cell. */
const REACH_SLACK = 1.5;
/** Decoded pixels added around a region: bilinear sampling reads one pixel beyond the spot. */
const MARGIN_PX = 2;

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

/**
 * The decoded pixels (at `scale`) of a photo of `width` x `height` whose ground can fall in `grid`'s
 * window. A spot the photo sees lies in one cell of the node grid, within a cell's diagonal of its
 * corners on the ground: the region holds every node that near the window, and a cell more each side.
 * The whole frame when no node is near (the photo then sees nothing there; the frame is the safe answer).
 */
export function photoRegion(nodes: Float64Array, width: number, height: number, scale: number, grid: GridWindow): PixelRegion {
  const dw = Math.round(width * scale), dh = Math.round(height * scale);
  const ground = (a: number, b: number): [number, number] => [nodes[2 * (b * NODES + a)]!, nodes[2 * (b * NODES + a) + 1]!];
  let reach = 0;
  for (let b = 0; b + 1 < NODES; b++) {
    for (let a = 0; a + 1 < NODES; a++) {
      const [e0, n0] = ground(a, b), [e1, n1] = ground(a + 1, b + 1), [e2, n2] = ground(a + 1, b), [e3, n3] = ground(a, b + 1);
      reach = Math.max(reach, Math.hypot(e1 - e0, n1 - n0), Math.hypot(e3 - e2, n3 - n2));
    }
  }
  reach *= REACH_SLACK;
  const west = grid.x0 - reach, east = grid.x0 + grid.W * grid.gsd + reach;
  const north = grid.y0 + reach, south = grid.y0 - grid.H * grid.gsd - reach;
  let aMin = NODES, aMax = -1, bMin = NODES, bMax = -1;
  for (let b = 0; b < NODES; b++) {
    for (let a = 0; a < NODES; a++) {
      const [e, n] = ground(a, b);
      if (!(e >= west && e <= east && n >= south && n <= north)) continue;
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
