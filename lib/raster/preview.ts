// The PNG preview of the index inside the field, in the ramp's colours (red = low, green = high).
import sharp from 'sharp';
import { type PreviewStretch, rampColor } from './ramp';

const MAX_SIDE = 1024;

/** PNG of the grid's values (NaN = transparent), stretched over the ramp, at most 1024 px on a side. */
export async function previewPng(values: Float32Array, width: number, height: number, { min, max }: PreviewStretch): Promise<Buffer> {
  const step = Math.max(1, Math.ceil(Math.max(width, height) / MAX_SIDE));
  const w = Math.ceil(width / step);
  const h = Math.ceil(height / step);
  const rgba = Buffer.alloc(w * h * 4);
  const span = max - min;
  for (let r = 0; r < h; r++) {
    for (let c = 0; c < w; c++) {
      const v = values[r * step * width + c * step]!;
      if (Number.isNaN(v)) continue;
      const [R, G, B] = rampColor((v - min) / span);
      rgba.set([R, G, B, 255], (r * w + c) * 4);
    }
  }
  return sharp(rgba, { raw: { width: w, height: h, channels: 4 } }).png().toBuffer();
}

/**
 * The grid's values resampled (nearest cell) onto a grid aligned with longitude and latitude over
 * `bounds`, which is how a map lays an image: a raster turned against north (a rotated geotransform,
 * Krovak's 7°, a UTM zone's convergence) was drawn askew of its zones. `corners` are where the
 * grid's top-left, top-right and bottom-left corners lie in lon/lat; within a field's extent the grid
 * is affine in lon/lat to well under a cell.
 */
export function northUpValues(
  values: Float32Array,
  width: number,
  height: number,
  corners: { topLeft: [number, number]; topRight: [number, number]; bottomLeft: [number, number] },
  bounds: { west: number; south: number; east: number; north: number },
): { values: Float32Array; width: number; height: number } {
  const [x0, y0] = corners.topLeft;
  // Columns and rows of the grid per degree, by inverting the two edge vectors.
  const [ax, ay] = [(corners.topRight[0] - x0) / width, (corners.topRight[1] - y0) / width];
  const [bx, by] = [(corners.bottomLeft[0] - x0) / height, (corners.bottomLeft[1] - y0) / height];
  const det = ax * by - ay * bx;
  // As many cells as the grid has, in the bounds' proportions on the ground.
  const lonSpan = bounds.east - bounds.west;
  const latSpan = bounds.north - bounds.south;
  const aspect = (lonSpan * Math.cos((((bounds.north + bounds.south) / 2) * Math.PI) / 180)) / latSpan;
  const outHeight = Math.max(1, Math.round(Math.sqrt((width * height) / aspect)));
  const outWidth = Math.max(1, Math.round(outHeight * aspect));
  const out = new Float32Array(outWidth * outHeight).fill(NaN);
  for (let r = 0; r < outHeight; r++) {
    const lat = bounds.north - ((r + 0.5) * latSpan) / outHeight;
    for (let c = 0; c < outWidth; c++) {
      const [dx, dy] = [bounds.west + ((c + 0.5) * lonSpan) / outWidth - x0, lat - y0];
      const col = Math.floor((dx * by - dy * bx) / det);
      const row = Math.floor((ax * dy - ay * dx) / det);
      if (col >= 0 && col < width && row >= 0 && row < height) out[r * outWidth + c] = values[row * width + col]!;
    }
  }
  return { values: out, width: outWidth, height: outHeight };
}
