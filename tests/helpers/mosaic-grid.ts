// A mosaic seen on a north-up grid of square cells (a point cloud's top view, another mosaic's
// extent): its colours averaged in each cell it covers entirely, for comparing where two images
// show the same ground.
import type { Mosaic } from '@/lib/drone/ortho';

export interface Grid {
  /** West and north edges, and the cell size, in the mosaic's CRS units (metres). */
  x0: number;
  y0: number;
  cell: number;
  width: number;
  height: number;
}

/** RGB per cell, row-major from the north-west; `filled` is 255 where the mosaic covers the whole cell. */
export function mosaicOnGrid(raw: Buffer, mosaic: Mosaic, grid: Grid): { rgb: Uint8Array; filled: Uint8Array } {
  const [gx, gsd, , gy] = mosaic.geoTransform;
  const stride = mosaic.bands.length + 1;
  const cells = grid.width * grid.height;
  const sum = new Float64Array(cells * 3), count = new Uint32Array(cells), clear = new Uint8Array(cells);
  for (let r = 0; r < mosaic.height; r++) {
    const gr = Math.floor((grid.y0 - (gy - (r + 0.5) * gsd)) / grid.cell);
    if (gr < 0 || gr >= grid.height) continue;
    for (let c = 0; c < mosaic.width; c++) {
      const gc = Math.floor((gx + (c + 0.5) * gsd - grid.x0) / grid.cell);
      if (gc < 0 || gc >= grid.width) continue;
      const o = (r * mosaic.width + c) * stride, k = gr * grid.width + gc;
      // A pixel outside the mosaic (alpha 0) makes its cell partial: left out.
      if (raw[o + stride - 1] !== 255) { clear[k] = 1; continue; }
      for (let b = 0; b < 3; b++) sum[3 * k + b] = sum[3 * k + b]! + raw[o + b]!;
      count[k] = count[k]! + 1;
    }
  }
  const rgb = new Uint8Array(cells * 3), filled = new Uint8Array(cells);
  count.forEach((n, k) => {
    if (!n || clear[k]) return;
    for (let b = 0; b < 3; b++) rgb[3 * k + b] = Math.round(sum[3 * k + b]! / n);
    filled[k] = 255;
  });
  return { rgb, filled };
}
