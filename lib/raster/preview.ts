// The PNG preview of the index inside the field, in the ramp's colours (red = low, green = high).
import sharp from 'sharp';
import { rampColor } from './ramp';

const MAX_SIDE = 1024;

/** PNG of the grid's values (NaN = transparent), stretched min..max, at most 1024 px on a side. */
export async function previewPng(values: Float32Array, width: number, height: number, min: number, max: number): Promise<Buffer> {
  const step = Math.max(1, Math.ceil(Math.max(width, height) / MAX_SIDE));
  const w = Math.ceil(width / step);
  const h = Math.ceil(height / step);
  const rgba = Buffer.alloc(w * h * 4);
  const span = max > min ? max - min : 1;
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
