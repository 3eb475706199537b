// Colours (red = low index, green = high) and the PNG preview of the index inside the field.
import sharp from 'sharp';

// ColorBrewer RdYlGn, 5 stops.
const RAMP: Array<[number, number, number]> = [
  [215, 25, 28],
  [253, 174, 97],
  [255, 255, 191],
  [166, 217, 106],
  [26, 150, 65],
];

/** Colour at t in 0..1 along the red-yellow-green ramp. */
export function rampColor(t: number): [number, number, number] {
  const x = Math.min(1, Math.max(0, t)) * (RAMP.length - 1);
  const i = Math.min(RAMP.length - 2, Math.floor(x));
  const f = x - i;
  const [a, b] = [RAMP[i]!, RAMP[i + 1]!];
  return [0, 1, 2].map((k) => Math.round(a[k]! + (b[k]! - a[k]!) * f)) as [number, number, number];
}

/** Hex colour of class 1..classes. */
export function zoneColor(classIndex: number, classes: number): string {
  const rgb = rampColor(classes > 1 ? (classIndex - 1) / (classes - 1) : 1);
  return '#' + rgb.map((v) => v.toString(16).padStart(2, '0')).join('');
}

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
