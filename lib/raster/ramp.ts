// The colours of index values, red = low to green = high (ColorBrewer RdYlGn): zones, previews and
// the map's fields by their latest scan. Pure, so that the browser's map can use it too.

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

/** The map's classes of a field's mean index: five of 0.2 from 0 to 1, the range vegetation takes. */
export const INDEX_CLASSES = 5;

/** The class (1..5) of a mean index value; values below 0 or above 1 fall in the end classes. */
export const indexClass = (mean: number) => Math.min(INDEX_CLASSES, Math.max(1, Math.floor(mean * INDEX_CLASSES) + 1));
