// A vegetation-index GeoTIFF and a field become management zones: read the field's window strip
// by strip into an analysis grid, classify, smooth, merge small patches, polygonize along cell
// edges, reproject and clip to the field. Memory is bounded by the grid (MAX_CELLS), not the file.
import { feature, featureCollection, intersect } from '@turf/turf';
import type { MultiPolygon, Polygon, Position } from 'geojson';
import { geometryAreaHa } from '@/lib/geo/area';
import { unprocessable } from '@/lib/errors';
import { bandOrderOf, indexPlan, integerTypeName, waterPlan, type BandOrder, type BandRole, type IndexEncoding, type IndexName, type IndexPlan, type WaterPlan } from './bands';
import { classBreaks, classOf, histogramQuantile, waterCut, waterHistogram, type Histogram, type ZoningMethod } from './classify';
import { converters } from './crs';
import { CENTRE_INSIDE, CROSSED, coverageFractions, majorityFilter, mergeSmallPatches, rasterizeField, type GridRings } from './grid';
import { mapToPixel, openRaster, pixelToMap, readBlocks, type OpenRaster, type RasterInfo } from './inspect';
import { polygonizeLabels } from './polygonize';
import { borderGrid, simplifyBorders } from './simplify-borders';
import { splitSelfTouchingRings } from '@/lib/geo/ring-split';
import { northUpValues, previewPng } from './preview';
import { type IndexRamp, indexRamp, zoneColor } from './ramp';

export interface ZoningOptions {
  /** Number of classes, 3-7. */
  zones: number;
  method: ZoningMethod;
  index: IndexName;
  minZoneAreaHa: number;
  /** Band roles in file order, for files whose order is neither described nor usual (e.g. Landsat SWIR1,NIR,R,G). */
  bandOrder?: BandRole[];
  /**
   * Leave water out (default): cells the field's own water mode marks (waterCut), by MNDWI or NDWI
   * where the file has a green band, else by a low mode of the index. False zones every cell with data.
   */
  maskWater?: boolean;
  /** Pixels finer than this (metres) are averaged into cells about this size before zoning. */
  minCellM?: number;
}

export const DEFAULT_ZONING: ZoningOptions = { zones: 5, method: 'jenks', index: 'auto', minZoneAreaHa: 0.1, maskWater: true };

/**
 * A drone survey's index: every value counts (VARI is negative on bare soil, which is part of the
 * field, and no water test is made unless asked for). Its 3-10 cm pixels are averaged into 1 m cells first: zones then follow the crop's density
 * rather than single plants and the soil between rows, and a 1.26 ha survey's zone edges came down
 * from 36,633 points (a burden for ISOBUS terminals) to 949, well inside a spreader's or seeder's section.
 */
export const DRONE_ZONING: ZoningOptions = { zones: 5, method: 'jenks', index: 'auto', minZoneAreaHa: 0.05, maskWater: false, minCellM: 1 };

/** What a scan's details record of how its zones were made (and what remaking them starts from). */
export interface ZoningRecord {
  /** The number of zones asked for (what remaking them asks for again). */
  zones: number;
  method: ZoningMethod;
  min_zone_area_ha: number;
  /** The number of zones made (recorded since zonings record it): fewer than asked when classes vanished. */
  zones_made?: number;
  /**
   * Why fewer were made: `few_values` when the index has too few distinct values for the classes
   * asked, `small_patches` when every patch of a class was smoothed away or merged into its
   * neighbours for being smaller than min_zone_area_ha. Absent when all were made.
   */
  zones_short?: 'few_values' | 'small_patches';
  /** Whether water was left out (recorded since zonings leave water out by its own test; before, below index 0). */
  mask_water?: boolean;
  /** Hectares of the field left out as water, and as no data (nodata, mask, alpha, missing blocks, off the raster). */
  water_ha?: number;
  no_data_ha?: number;
  /** The water test that found water (`ndwi`, `mndwi`, or the index's own name for its low mode) and its cut. */
  water_test?: { index: string; cut: number };
}

export const zoningRecord = (options: Partial<ZoningOptions>, made?: Pick<ZoningResult, 'zones' | 'classesFound' | 'leftOut'>): ZoningRecord => {
  const o = { ...DEFAULT_ZONING, ...options };
  const record: ZoningRecord = { zones: o.zones, method: o.method, min_zone_area_ha: o.minZoneAreaHa, mask_water: o.maskWater ?? true };
  if (!made) return record;
  record.zones_made = made.zones.length;
  if (made.zones.length < o.zones) record.zones_short = made.classesFound < o.zones ? 'few_values' : 'small_patches';
  record.water_ha = roundHa(made.leftOut.waterHa);
  record.no_data_ha = roundHa(made.leftOut.noDataHa);
  if (made.leftOut.waterTest) record.water_test = { index: made.leftOut.waterTest.index, cut: Math.round(made.leftOut.waterTest.cut * 1000) / 1000 };
  return record;
};

const roundHa = (ha: number) => Math.round(ha * 100) / 100;

/** What a scan's details record of how the index was read from the file. */
export interface IndexInputRecord {
  /** A multi-band raster's bands in file order (alpha left out), and whether the order was given, read from the file or assumed. */
  bands?: { order: BandRole[]; source: BandOrder['source'] };
  /** A single-band index: how its numbers became the index (floating point as is, the file's scale, signed integers x 1/10000). */
  index_encoding?: IndexEncoding;
}

/** An index's summary over the field's pixels. A drone survey's index records no minimum or maximum. */
export interface IndexStats {
  min?: number;
  max?: number;
  mean: number;
  std: number;
  median: number;
}

export interface Zone {
  /** 1 = lowest index. */
  classIndex: number;
  /** `class: lo–hi`: the class's interval between the breaks (the lowest from its minimum, the highest to its maximum). */
  name: string;
  /** The lowest and highest index value inside the zone, the mean over its area and the quartiles (widened to hold the mean). */
  min: number;
  max: number;
  mean: number;
  q1: number;
  q3: number;
  areaHa: number;
  color: string;
  geometry: Polygon | MultiPolygon;
}

export interface ZoningResult {
  indexName: string;
  stats: Required<IndexStats>;
  histogram: { min: number; max: number; counts: number[] };
  /** The area the zones cover: the sum of their areas, as clipped to the field (never more than the field). */
  validAreaHa: number;
  zones: Zone[];
  /** The classes the breaks gave (fewer than asked when the index has too few distinct values); zones.length may be fewer still. */
  classesFound: number;
  /** How the index was read (recorded in the scan's details). */
  input: IndexInputRecord;
  /** The index inside the field, painted over its ramp (lib/raster/ramp.ts indexRamp); bounds [[south, west], [north, east]] in WGS84. */
  preview: { png: Buffer; boundsWgs84: [[number, number], [number, number]]; ramp: IndexRamp };
  /** Raster pixels per analysis cell side (1 unless the field window was too big for memory). */
  cellFactor: number;
  /** The field's ground not zoned, by why; `waterTest` when water was found. */
  leftOut: LeftOut;
}

export interface LeftOut {
  waterHa: number;
  noDataHa: number;
  waterTest?: { index: string; cut: number };
}

export type ProgressFn = (percent: number, step: string) => void;

// 4 M cells (1.3 m cells on a 500 ha field) are far finer than any sprayer section and keep the
// pipeline within a few hundred MB; bigger windows are averaged in k x k blocks.
const MAX_CELLS = 4_000_000;
const HISTOGRAM_BINS = 64;
const FINE_BINS = 1024;
// Field edges are straight in lon/lat; densify before projecting so they stay faithful in the raster CRS.
const DENSIFY_DEG = 0.0005;

export async function computeZones(
  path: string,
  fieldGeometryWgs84: Polygon | MultiPolygon,
  options: Partial<ZoningOptions> = {},
  onProgress: ProgressFn = () => {},
): Promise<ZoningResult> {
  const opts = { ...DEFAULT_ZONING, ...options };
  if (!Number.isInteger(opts.zones) || opts.zones < 3 || opts.zones > 7) throw unprocessable('raster_zones_out_of_range', { zones: opts.zones });
  const raster = await openRaster(path);
  try {
    return await zoneRaster(raster, fieldGeometryWgs84, opts, onProgress);
  } finally {
    await raster.tiff.close?.();
  }
}

/**
 * What an upload checks before it becomes a task, from the header alone: the file is a usable
 * GeoTIFF and its bands give the index asked for (422 otherwise).
 */
export async function inspectIndexRaster(path: string, index: IndexName, bandOrder?: BandRole[]): Promise<RasterInfo> {
  const raster = await openRaster(path);
  try {
    rasterIndexPlan(raster, index, bandOrder);
    return raster.info;
  } finally {
    await raster.tiff.close?.();
  }
}

/** Which of the raster's samples make the index, and how; 422 `raster_bands_unknown` when none can. */
export function rasterIndexPlan(raster: OpenRaster, index: IndexName, bandOrder?: BandRole[]): IndexPlan & { alpha?: number; input: IndexInputRecord; water?: WaterPlan } {
  const { info } = raster;
  // An alpha band (GDAL colour interpretation "Alpha") is a mask, not data: the roles cover the others.
  const alpha = raster.bandMeta.findIndex((b) => b.colorInterp === 'alpha');
  const dataBands = Array.from({ length: info.bands }, (_, i) => i).filter((i) => i !== alpha);
  if (bandOrder && bandOrder.length !== dataBands.length) throw unprocessable('raster_band_order_count', { given: bandOrder.length, bands: dataBands.length });
  const order =
    dataBands.length > 1
      ? bandOrderOf(dataBands.length, info.bandNames?.filter((_, i) => i !== alpha), bandOrder, dataBands.map((i) => raster.bandMeta[i]!.colorInterp))
      : undefined;
  const dataPlan = indexPlan(dataBands.length, index, order?.roles, {
    sampleFormat: raster.sampleFormat,
    bitsPerSample: raster.bitsPerSample,
    ...raster.bandMeta[dataBands[0]!],
  }, info.bandNames?.[dataBands[0]!], dataBands.map((i) => raster.bandMeta[i]!), order?.source);
  const input: IndexInputRecord = order ? { bands: { order: order.roles, source: order.source } } : { index_encoding: dataPlan.encoding };
  const water = waterPlan(order?.roles, dataBands.map((i) => raster.bandMeta[i]!));
  return {
    ...dataPlan,
    samples: dataPlan.samples.map((i) => dataBands[i]!),
    alpha: alpha >= 0 ? alpha : undefined,
    input,
    water: water && { ...water, samples: [dataBands[water.samples[0]]!, dataBands[water.samples[1]]!] },
  };
}

/**
 * Polygons without what clipping leaves at the field's edge: a vertex repeated in a row, rings of
 * fewer than three distinct corners (a part of four identical points went into ISOXML as it was).
 */
function validParts(polygons: Position[][][]): Position[][][] {
  const ring = (r: Position[]) => {
    const out = r.filter((p, i) => i === 0 || p[0] !== r[i - 1]![0] || p[1] !== r[i - 1]![1]);
    return out.length >= 4 ? out : undefined;
  };
  return polygons.flatMap((poly) => {
    const [outer, ...holes] = poly.map(ring);
    return outer ? [[outer, ...holes.filter((h): h is Position[] => h !== undefined)]] : [];
  });
}

async function zoneRaster(raster: OpenRaster, field: Polygon | MultiPolygon, opts: ZoningOptions, onProgress: ProgressFn): Promise<ZoningResult> {
  const { info, transform } = raster;
  const plan = rasterIndexPlan(raster, opts.index, opts.bandOrder);
  const { fromWgs84, toWgs84 } = converters(info.crs);

  // The field in raster pixel coordinates, and the pixel window around it.
  const pixelRings = fieldRings(field).map((ring) => ring.map(([lon, lat]) => mapToPixel(transform, ...fromWgs84([lon!, lat!]))));
  const all = pixelRings.flat();
  const px0 = Math.max(0, Math.floor(Math.min(...all.map((p) => p[0]))));
  const py0 = Math.max(0, Math.floor(Math.min(...all.map((p) => p[1]))));
  const px1 = Math.min(info.width, Math.ceil(Math.max(...all.map((p) => p[0]))));
  const py1 = Math.min(info.height, Math.ceil(Math.max(...all.map((p) => p[1]))));
  if (!(px1 > px0 && py1 > py0)) throw unprocessable('raster_no_overlap');
  const pixelM = Math.sqrt(cellArea((c, r) => toWgs84(pixelToMap(transform, px0 + c, py0 + r)), px1 - px0, py1 - py0) * 10_000);
  const k = Math.max(1, Math.ceil(Math.sqrt(((px1 - px0) * (py1 - py0)) / MAX_CELLS)), Math.round((opts.minCellM ?? 0) / pixelM));
  const x0 = Math.floor(px0 / k) * k;
  const y0 = Math.floor(py0 / k) * k;
  const width = Math.ceil((px1 - x0) / k);
  const height = Math.ceil((py1 - y0) / k);
  const toGrid = (p: [number, number]): [number, number] => [(p[0] - x0) / k, (p[1] - y0) / k];
  const gridToWgs84 = (c: number, r: number) => toWgs84(pixelToMap(transform, x0 + c * k, y0 + r * k));

  const cover = rasterizeField(pixelRings.map((ring) => ring.map(toGrid)) as GridRings, width, height);
  if (!cover.some((v) => v !== 0)) throw unprocessable('raster_no_overlap');

  // The water index's bands are read only when water is to be left out.
  const grid = await readIndexGrid(raster, opts.maskWater === false ? { ...plan, water: undefined } : plan, { x0, y0, k, width, height, cover }, onProgress);
  const { values } = grid;
  const cellAreaHa = cellArea(gridToWgs84, width, height);
  // The part of each cell inside the field: patch sizes count it, so what the clip leaves of a
  // patch meets the minimum, and so do the hectares left out as water or as no data.
  const coverage = coverageFractions(pixelRings.map((ring) => ring.map(toGrid)) as GridRings, width, height);
  const waterTest = opts.maskWater === false ? undefined : maskWater(values, grid.water, cover, plan.water?.name ?? plan.name);
  const leftOut: LeftOut = { waterHa: 0, noDataHa: 0, ...(waterTest ? { waterTest: { index: waterTest.index, cut: waterTest.cut } } : {}) };
  for (let i = 0; i < values.length; i++) {
    if (values[i] === values[i]) continue;
    if (waterTest?.cells[i]) leftOut.waterHa += coverage[i]! * cellAreaHa;
    else leftOut.noDataHa += coverage[i]! * cellAreaHa;
  }

  // Statistics over cells whose centre is in the field.
  onProgress(60, 'classifying');
  let n = 0;
  let sum = 0;
  let sum2 = 0;
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (!(cover[i]! & CENTRE_INSIDE) || Number.isNaN(v)) continue;
    n++;
    sum += v;
    sum2 += v * v;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  if (n === 0) throw unprocessable('raster_no_valid_pixels');
  const fine: Histogram = { min, max, counts: new Float64Array(FINE_BINS) };
  const coarse = new Array<number>(HISTOGRAM_BINS).fill(0);
  const span = max - min || 1;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (!(cover[i]! & CENTRE_INSIDE) || Number.isNaN(v)) continue;
    fine.counts[Math.min(FINE_BINS - 1, Math.floor(((v - min) / span) * FINE_BINS))]!++;
    coarse[Math.min(HISTOGRAM_BINS - 1, Math.floor(((v - min) / span) * HISTOGRAM_BINS))]!++;
  }
  const mean = sum / n;
  const stats: Required<IndexStats> = { min, max, mean, std: Math.sqrt(Math.max(0, sum2 / n - mean * mean)), median: histogramQuantile(fine, 0.5) };

  // Signed integers without a scale are read as x10000; a field whose every value is then within
  // ±0.01 is in another scale (NDVI x 100 or x 1000), not a field of bare zero index.
  if (plan.input.index_encoding === 'int_x10000' && Math.max(-min, max) <= 0.01) {
    throw unprocessable('raster_index_scale_unknown', { type: integerTypeName(raster.sampleFormat, raster.bitsPerSample) });
  }
  const breaks = classBreaks(fine, opts.zones, opts.method);
  const classCount = breaks.length + 1;
  let classes: Uint8Array = new Uint8Array(values.length);
  for (let i = 0; i < values.length; i++) if (!Number.isNaN(values[i]!)) classes[i] = classOf(values[i]!, breaks);

  onProgress(70, 'zoning');
  classes = majorityFilter(classes, width, height, classCount);
  // Islands below the minimum zone (in nodata, water, at the field's edge) become unzoned.
  const { labels, count } = mergeSmallPatches(classes, width, height, opts.minZoneAreaHa / cellAreaHa, coverage);
  onProgress(75, 'zoning');

  const cellSizeM = Math.sqrt(cellAreaHa * 10_000);
  const polygons = simplifyBorders(polygonizeLabels(labels, width, height, count), borderGrid(labels, width, height), borderTolerance(cellSizeM));
  // Patches the field boundary crosses are clipped; the others lie inside and are kept as they are
  // (patches of one class never share an edge, so both kinds sit side by side in a MultiPolygon).
  const labelClass = new Uint8Array(count + 1);
  const crossed = new Uint8Array(count + 1);
  for (let i = 0; i < labels.length; i++) {
    labelClass[labels[i]!] = classes[i]!;
    if (cover[i]! & CROSSED) crossed[labels[i]!] = 1;
  }
  const inside = Array.from({ length: classCount + 1 }, () => [] as Position[][][]);
  const toClip = Array.from({ length: classCount + 1 }, () => [] as Position[][][]);
  for (const [label, polys] of polygons) {
    const target = (crossed[label] ? toClip : inside)[labelClass[label]!]!;
    for (const poly of polys) target.push(poly.map((ring) => ring.map(([c, r]) => gridToWgs84(c, r))));
  }
  const classStats = zoneValueStats(values, classes, coverage, classCount);
  onProgress(85, 'zoning');

  // Clipping a patch to a concave or wiggling field boundary can cut it into pieces; those smaller
  // than half the minimum zone are slivers no machine acts on, and are left unzoned.
  const clippedParts = Array.from({ length: classCount + 1 }, (_, cls) => {
    if (!toClip[cls]!.length) return [];
    const clipped = intersect(featureCollection([feature<MultiPolygon>({ type: 'MultiPolygon', coordinates: toClip[cls]! }), feature(field)]))?.geometry;
    return validParts(clipped?.type === 'Polygon' ? [clipped.coordinates] : (clipped?.coordinates ?? [])).map((poly) => ({ poly, ha: geometryAreaHa({ type: 'Polygon', coordinates: poly }) }));
  });
  // ... unless that would leave no zone at all (a field smaller than the minimum zone).
  const anyKept = inside.some((polys) => polys.length > 0) || clippedParts.some((list) => list.some((p) => p.ha >= opts.minZoneAreaHa / 2));
  const sliverHa = anyKept ? opts.minZoneAreaHa / 2 : 0;
  const made: Array<{ zone: Zone; range: [number, number] }> = [];
  for (let cls = 1; cls <= classCount; cls++) {
    const kept = clippedParts[cls]!.filter((p) => p.ha >= sliverHa).map((p) => p.poly);
    const parts = validParts([...inside[cls]!, ...kept]);
    if (parts.length === 0) continue;
    const joined: Polygon | MultiPolygon = parts.length === 1 ? { type: 'Polygon', coordinates: parts[0]! } : { type: 'MultiPolygon', coordinates: parts };
    // Traced pixel edges pass twice through a corner where two holes, or a hole and the outside,
    // meet diagonally: such rings are split there, as GIS and tractor terminals want them simple.
    const geometry = splitSelfTouchingRings(joined) ?? joined;
    const s = classStats[cls]!;
    const areaHa = geometryAreaHa(geometry);
    if (!(areaHa > 0) || !(s.weight > 0)) continue;
    // Named by its class's interval between the breaks (the outer classes end at their own extremes),
    // so neighbouring names never overlap; the mean and quartiles stay in the zone's figures.
    const range: [number, number] = [breaks[cls - 2] ?? Math.min(s.min, breaks[0] ?? s.min), breaks[cls - 1] ?? Math.max(s.max, breaks.at(-1) ?? s.max)];
    made.push({ zone: { classIndex: cls, name: '', min: s.min, max: s.max, mean: s.mean, q1: s.q1, q3: s.q3, areaHa, color: '', geometry }, range });
  }
  if (made.length === 0) throw unprocessable('raster_no_valid_pixels');
  // Smoothing and merging can leave a thin class with a mean below its neighbour's: number by mean.
  onProgress(95, 'zoning');
  made.sort((a, b) => a.zone.mean - b.zone.mean);
  const digits = nameDigits(made.map((m) => m.range));
  const zones = made.map(({ zone, range: [lo, hi] }, i) => ({
    ...zone,
    classIndex: i + 1,
    name: `${i + 1}: ${lo.toFixed(digits)}–${hi.toFixed(digits)}`,
    color: zoneColor(i + 1, made.length),
  }));

  const shown = values.map((v, i) => (cover[i]! & CENTRE_INSIDE ? v : NaN));
  const corners = [gridToWgs84(0, 0), gridToWgs84(width, 0), gridToWgs84(0, height), gridToWgs84(width, height)];
  const lons = corners.map((p) => p[0]);
  const lats = corners.map((p) => p[1]);
  const bounds = { west: Math.min(...lons), south: Math.min(...lats), east: Math.max(...lons), north: Math.max(...lats) };
  const northUp = northUpValues(shown, width, height, { topLeft: corners[0]!, topRight: corners[1]!, bottomLeft: corners[2]! }, bounds);
  const ramp = indexRamp(plan.name, { min, max });
  const png = await previewPng(northUp.values, northUp.width, northUp.height, ramp);
  onProgress(100, 'done');
  return {
    indexName: plan.name,
    stats,
    histogram: { min, max, counts: coarse },
    validAreaHa: zones.reduce((sum, z) => sum + z.areaHa, 0),
    zones,
    classesFound: classCount,
    input: plan.input,
    preview: { png, boundsWgs84: [[bounds.south, bounds.west], [bounds.north, bounds.east]], ramp },
    cellFactor: k,
    leftOut,
  };
}

/**
 * Sets the cells of the field's water mode to NaN (waterCut: MNDWI or NDWI where the file has
 * green, else a low mode of the index itself) and says which they were and by what cut; undefined
 * when the field shows no water mode.
 */
function maskWater(values: Float32Array, water: Float32Array | undefined, cover: Uint8Array, testName: string) {
  // Water's score is high: the water index as it is, or the vegetation index turned over.
  const score = water ? (i: number) => water[i]! : (i: number) => -values[i]!;
  const h = waterHistogram();
  const bins = h.counts.length;
  for (let i = 0; i < values.length; i++) {
    if (!(cover[i]! & CENTRE_INSIDE) || values[i] !== values[i]) continue;
    const s = score(i);
    if (s === s) h.counts[Math.min(bins - 1, Math.max(0, Math.floor(((s + 1) / 2) * bins)))]!++;
  }
  // NDWI and MNDWI are above 0 on open water on any calibration (green over NIR or SWIR); without
  // them, a bare field's index falls below 0 on counts too, so a low mode must lie well below it.
  const cut = waterCut(h, { minPeak: water ? 0 : LOW_MODE_PEAK });
  if (cut === undefined) return undefined;
  const cells = new Uint8Array(values.length);
  for (let i = 0; i < values.length; i++) {
    if (values[i] === values[i] && score(i) >= cut) {
      cells[i] = 1;
      values[i] = NaN;
    }
  }
  return { index: testName, cut: water ? cut : -cut, cells };
}

/** How far below 0 a single index's low mode must peak to be taken for water (minus the index). */
const LOW_MODE_PEAK = 0.2;

/**
 * How far (in grid cells) a zone border may move when its pixel stairs are smoothed: one cell, whose
 * value stands for all of it anyway (a diagonal's stairs need three quarters), or half a metre on
 * fine drone grids, well inside one section of a spreader or seeder.
 */
export const borderTolerance = (cellSizeM: number) => Math.max(1, 0.5 / cellSizeM);

/** Outer rings and holes of the field, each edge densified. */
function fieldRings(field: Polygon | MultiPolygon): Position[][] {
  const polys = field.type === 'Polygon' ? [field.coordinates] : field.coordinates;
  return polys.flat().map((ring) => {
    const out: Position[] = [];
    for (let i = 0; i + 1 < ring.length; i++) {
      const [a, b] = [ring[i]!, ring[i + 1]!];
      const steps = Math.max(1, Math.ceil(Math.hypot(b[0]! - a[0]!, b[1]! - a[1]!) / DENSIFY_DEG));
      for (let s = 0; s < steps; s++) out.push([a[0]! + ((b[0]! - a[0]!) * s) / steps, a[1]! + ((b[1]! - a[1]!) * s) / steps]);
    }
    out.push(ring.at(-1)!);
    return out;
  });
}

/** Geodesic area of the grid's centre cell, in hectares. */
function cellArea(gridToWgs84: (c: number, r: number) => [number, number], width: number, height: number): number {
  const c = Math.floor(width / 2);
  const r = Math.floor(height / 2);
  const ring = [gridToWgs84(c, r), gridToWgs84(c + 1, r), gridToWgs84(c + 1, r + 1), gridToWgs84(c, r + 1), gridToWgs84(c, r)];
  return geometryAreaHa({ type: 'Polygon', coordinates: [ring] });
}

const NAME_BINS = 4096;

/**
 * Per class, over the cells it holds after smoothing and merging, each weighted by the part of it
 * inside the field: the lowest and highest value, the mean, and the quartiles (the range half its
 * ground lies in). Smoothing and merging bring patches of other classes into a zone by design, so
 * even quartiles of neighbours overlap (`−0.05–0.12` beside `0.07–0.14`): names use the breaks.
 */
function zoneValueStats(values: Float32Array, classes: Uint8Array, weights: Float32Array, classCount: number) {
  const acc = Array.from({ length: classCount + 1 }, () => ({ min: Infinity, max: -Infinity, sum: 0, weight: 0 }));
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < values.length; i++) {
    const cls = classes[i]!;
    const w = weights[i]!;
    if (cls === 0 || !(w > 0)) continue;
    const a = acc[cls]!;
    const v = values[i]!;
    if (v < a.min) a.min = v;
    if (v > a.max) a.max = v;
    a.sum += v * w;
    a.weight += w;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  const span = hi - lo || 1;
  const hist = Array.from({ length: classCount + 1 }, () => new Float64Array(NAME_BINS));
  for (let i = 0; i < values.length; i++) {
    const cls = classes[i]!;
    const w = weights[i]!;
    if (cls === 0 || !(w > 0)) continue;
    hist[cls]![Math.min(NAME_BINS - 1, Math.floor(((values[i]! - lo) / span) * NAME_BINS))]! += w;
  }
  return acc.map((a, cls) => {
    const mean = a.weight ? a.sum / a.weight : NaN;
    const h: Histogram = { min: lo, max: lo + span, counts: hist[cls]! };
    const clamp = (v: number) => Math.min(a.max, Math.max(a.min, v));
    // The name's range holds the mean as well, whatever the skew.
    const q1 = a.weight ? Math.min(mean, clamp(histogramQuantile(h, 0.25))) : NaN;
    const q3 = a.weight ? Math.max(mean, clamp(histogramQuantile(h, 0.75))) : NaN;
    return { min: a.min, max: a.max, mean, weight: a.weight, q1, q3 };
  });
}

/**
 * Decimals for zone names: two, or more (up to four) until every name differs from the others and
 * no range whose ends differ reads as a single value (quantile classes of a narrow index).
 */
export function nameDigits(ranges: Array<[number, number]>): number {
  for (let d = 2; d < 4; d++) {
    const names = ranges.map(([a, b]) => `${a.toFixed(d)}–${b.toFixed(d)}`);
    const flat = ranges.some(([a, b]) => a < b && a.toFixed(d) === b.toFixed(d));
    if (!flat && new Set(names).size === names.length) return d;
  }
  return 4;
}

/** How many computed values fell outside -1..1, and their span (rounded for a message). */
class OutsideRange {
  count = 0;
  private lo = Infinity;
  private hi = -Infinity;
  push(v: number) {
    this.count++;
    if (v < this.lo) this.lo = v;
    if (v > this.hi) this.hi = v;
  }
  get min() {
    return Math.round(this.lo * 100) / 100;
  }
  get max() {
    return Math.round(this.hi * 100) / 100;
  }
}

interface GridWindow {
  x0: number;
  y0: number;
  k: number;
  width: number;
  height: number;
  cover: Uint8Array;
}

/**
 * The raster's blocks (tiles or strips) that the file leaves out (GDAL's SPARSE_OK), as a test of a
 * pixel; undefined when there are none or when their fill is the nodata value anyway. geotiff.js fills
 * a missing block with the nodata value, or 0 when that is NaN or unset, and 0 is a valid index.
 */
async function emptyBlocks(raster: OpenRaster): Promise<((x: number, y: number) => boolean) | undefined> {
  const { image, info } = raster;
  const fill = image.getGDALNoData() || 0;
  if (fill === info.nodata) return undefined;
  const directory = image.getFileDirectory();
  const tag = image.isTiled ? 'TileByteCounts' : 'StripByteCounts';
  const counts = (await directory.loadValue(tag)) as ArrayLike<number> | number | undefined;
  const list = typeof counts === 'number' ? [counts] : Array.from(counts ?? []);
  if (!list.some((c) => Number(c) === 0)) return undefined;
  const [tileWidth, tileHeight] = [image.getTileWidth(), image.getTileHeight()];
  const across = Math.ceil(image.getWidth() / tileWidth);
  return (x, y) => Number(list[Math.floor(y / tileHeight) * across + Math.floor(x / tileWidth)]) === 0;
}

/**
 * The index per grid cell (NaN = no data), and the water index's where the plan has one, reading
 * the raster in strips aligned to its tiles or strips so no block is decoded twice. A cell is valid
 * when at least half of its pixels are; its values are their means.
 */
async function readIndexGrid(
  raster: OpenRaster,
  plan: IndexPlan & { alpha?: number; water?: WaterPlan },
  { x0, y0, k, width, height, cover }: GridWindow,
  onProgress: ProgressFn,
): Promise<{ values: Float32Array; water?: Float32Array }> {
  const { image, mask, info } = raster;
  // Comparing with both the tag's value and its float32 rounding catches float32 nodata like -3.4e38.
  const nd = info.nodata ?? NaN;
  const ndf = Math.fround(nd);
  const sums = new Float32Array(width * height);
  const waterSums = plan.water ? new Float32Array(width * height) : undefined;
  const valid = new Uint16Array(width * height);
  const x1 = Math.min(info.width, x0 + width * k);
  const yEnd = Math.min(info.height, y0 + height * k);
  const w = x1 - x0;
  const cellOfColumn = Int32Array.from({ length: w }, (_, x) => (x / k) | 0);
  const missing = await emptyBlocks(raster);
  // Values that are no index (beyond -1..1): when they are most of the field, the file is in
  // another scale (NDVI in percent, or counts without their scale tag) and says so, rather than
  // zoning the few pixels that happen to fall within range.
  let inRange = 0;
  const outside = new OutsideRange();
  const blockRows = image.getTileHeight();
  const stripRows = blockRows * Math.max(1, Math.floor(512 / blockRows));
  for (let ys = y0; ys < yEnd; ys = (Math.floor(ys / stripRows) + 1) * stripRows) {
    const ye = Math.min(yEnd, (Math.floor(ys / stripRows) + 1) * stripRows);
    const window = [x0, ys, x1, ye];
    const samples = [...new Set([...plan.samples, ...(plan.water?.samples ?? []), ...(plan.alpha === undefined ? [] : [plan.alpha])])];
    const read = (await readBlocks(() => image.readRasters({ window, samples, interleave: false }))) as unknown as ArrayLike<number>[];
    const band = (sample: number) => read[samples.indexOf(sample)]!;
    const maskData = mask
      ? ((await readBlocks(() => mask.readRasters({ window, samples: [0], interleave: false }))) as unknown as ArrayLike<number>[])[0]
      : plan.alpha === undefined ? undefined : band(plan.alpha);
    const a = band(plan.samples[0]!);
    const b = band(plan.samples.at(-1)!);
    const [wa, wb] = plan.water ? [band(plan.water.samples[0]), band(plan.water.samples[1])] : [a, b];
    for (let y = ys; y < ye; y++) {
      const rowBase = (((y - y0) / k) | 0) * width;
      const off = (y - ys) * w;
      for (let x = 0; x < w; x++) {
        const cell = rowBase + cellOfColumn[x]!;
        if (cover[cell] === 0) continue;
        const va = a[off + x]!;
        const vb = b[off + x]!;
        if (va !== va || vb !== vb || va === nd || va === ndf || vb === nd || vb === ndf) continue;
        if (maskData && maskData[off + x] === 0) continue;
        if (missing?.(x0 + x, y)) continue;
        const v = plan.compute(va, vb);
        if (!(v >= -1 && v <= 1)) {
          if (v === v) outside.push(v);
          continue;
        }
        // A pixel without a water index (both bands 0) counts as land: it has the index.
        if (waterSums) {
          const w = plan.water!.compute(wa[off + x]!, wb[off + x]!);
          waterSums[cell]! += w === w ? w : -1;
        }
        inRange++;
        sums[cell]! += v;
        valid[cell]!++;
      }
    }
    onProgress(Math.round((60 * (ye - y0)) / (yEnd - y0)), 'reading');
  }
  if (outside.count > inRange) throw unprocessable('raster_index_range', { min: outside.min, max: outside.max });
  // Pixels of each cell that lie on the raster (cells on the last row/column may be cut).
  for (let r = 0; r < height; r++) {
    const rowsIn = Math.min(k, yEnd - (y0 + r * k));
    for (let c = 0; c < width; c++) {
      const i = r * width + c;
      const pixels = rowsIn * Math.min(k, x1 - (x0 + c * k));
      const ok = cover[i] !== 0 && valid[i]! > 0 && valid[i]! * 2 >= pixels;
      sums[i] = ok ? sums[i]! / valid[i]! : NaN;
      if (waterSums) waterSums[i] = ok ? waterSums[i]! / valid[i]! : NaN;
    }
  }
  return { values: sums, water: waterSums };
}
