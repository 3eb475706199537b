// The colours of index values, red = low to green = high (ColorBrewer RdYlGn): zones, previews and
// the map's fields by their latest scan. Pure, so that the browser's map can use it too.

/** The ramp's colours, evenly spaced from its low end (red) to its high end (green). */
export const RAMP_STOPS: ReadonlyArray<readonly [number, number, number]> = [
  [215, 25, 28],
  [253, 174, 97],
  [255, 255, 191],
  [166, 217, 106],
  [26, 150, 65],
];

/** Colour at t in 0..1 along the red-yellow-green ramp. */
export function rampColor(t: number): [number, number, number] {
  const out: [number, number, number] = [0, 0, 0];
  rampColorInto(t, out, 0);
  return out;
}

/**
 * rampColor written into `out` at `at` (R, G, B), allocating nothing: a map tile paints 65,536 pixels
 * this way, with exactly the colours a preview, a legend and the PDF use.
 */
export function rampColorInto(t: number, out: { [i: number]: number }, at: number): void {
  const x = Math.min(1, Math.max(0, t)) * (RAMP_STOPS.length - 1);
  const i = Math.min(RAMP_STOPS.length - 2, Math.floor(x));
  const f = x - i;
  const a = RAMP_STOPS[i]!;
  const b = RAMP_STOPS[i + 1]!;
  out[at] = Math.round(a[0] + (b[0] - a[0]) * f);
  out[at + 1] = Math.round(a[1] + (b[1] - a[1]) * f);
  out[at + 2] = Math.round(a[2] + (b[2] - a[2]) * f);
}

const hexColor = (rgb: readonly number[]) => '#' + rgb.map((v) => v.toString(16).padStart(2, '0')).join('');

/** Hex colour of class 1..classes. */
export function zoneColor(classIndex: number, classes: number): string {
  return hexColor(rampColor(classes > 1 ? (classIndex - 1) / (classes - 1) : 1));
}

/** The index values a preview's colours run between: `min` is painted the ramp's red end, `max` its green end. */
export interface PreviewStretch {
  min: number;
  max: number;
}

/**
 * The stretch of a preview of values from `min` to `max`, the field's own. Values all alike have no
 * span to spread over: they are painted red, the low end of a stretch one unit wide.
 */
export function previewStretch(min: number, max: number): PreviewStretch {
  return { min, max: max > min ? max : min + 1 };
}

/**
 * The fixed range each known index is painted over, the same for every scan, so that two years of a
 * field compare by eye: the low end red, the high end green, values beyond them the end colours.
 * NDVI and GNDVI run from bare soil (about 0.1) to a closed canopy (0.8-0.9); NDRE saturates later and
 * lower (dense canopy 0.4-0.6); VARI, from visible bands only, spans about -0.2 (soil) to 0.4.
 */
export const INDEX_RANGES: Readonly<Record<string, PreviewStretch>> = {
  ndvi: { min: 0, max: 0.9 },
  ndre: { min: 0, max: 0.6 },
  gndvi: { min: 0, max: 0.9 },
  vari: { min: -0.2, max: 0.4 },
};

/** An index and the values its colours run between. */
export interface IndexRamp extends PreviewStretch {
  /** The index as the API names it (`ndvi`). */
  index: string;
  /** The index's own fixed range (INDEX_RANGES); false for an index we know no range for, painted over its scan's own values. */
  fixed: boolean;
}

/**
 * The ramp of an index: its fixed range when it is one of INDEX_RANGES, else (a single-band raster
 * of an index we cannot name) the scan's own lowest to highest value, as before fixed ranges.
 */
export function indexRamp(index: string | null, own?: { min?: number; max?: number } | null): IndexRamp {
  const name = (index ?? 'index').toLowerCase();
  const range = Object.hasOwn(INDEX_RANGES, name) ? INDEX_RANGES[name]! : undefined;
  if (range) return { index: name, ...range, fixed: true };
  const { min = 0, max = 1 } = own ?? {};
  return { index: name, ...previewStretch(min, max), fixed: false };
}

/** Hex colour of an index value on its index's ramp (a field's mean, on the map): the same colour its tiles paint that value. */
export const indexValueColor = (index: string | null, value: number, own?: { min?: number; max?: number } | null): string => {
  const ramp = indexRamp(index, own);
  return hexColor(rampColor((value - ramp.min) / (ramp.max - ramp.min)));
};

/** What a preview's colours mean: index values and the colour each is painted, lowest first. */
export interface PreviewLegend {
  /** The scan's index (`ndvi`), as the API names it. */
  index: string;
  ticks: { value: number; color: string }[];
}

/** Ticks of a legend: the stretch's ends and three between, which fall on the ramp's five stops. */
export const LEGEND_TICKS = 5;

/** The legend of a preview of `index` coloured over `stretch`: ticks evenly spaced from its low end to its high end. */
export function previewLegend(index: string, stretch: PreviewStretch): PreviewLegend {
  const span = stretch.max - stretch.min;
  return {
    index,
    ticks: Array.from({ length: LEGEND_TICKS }, (_, i) => {
      const t = i / (LEGEND_TICKS - 1);
      return { value: stretch.min + t * span, color: hexColor(rampColor(t)) };
    }),
  };
}

/** Decimals that tell a legend's ticks apart: two, as the zones' names start with, up to four for a field of nearly one value. */
export function legendDigits(legend: PreviewLegend): number {
  for (let d = 2; d < 4; d++) if (new Set(legend.ticks.map((t) => t.value.toFixed(d))).size === legend.ticks.length) return d;
  return 4;
}

/** The map's classes of a field's mean index: five of 0.2 from 0 to 1, the range vegetation takes. */
export const INDEX_CLASSES = 5;

/** The class (1..5) of a mean index value; values below 0 or above 1 fall in the end classes. */
export const indexClass = (mean: number) => Math.min(INDEX_CLASSES, Math.max(1, Math.floor(mean * INDEX_CLASSES) + 1));
