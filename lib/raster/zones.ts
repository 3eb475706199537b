// A vegetation-index GeoTIFF and a field become management zones: read the field's window strip
// by strip into an analysis grid, classify, smooth, merge small patches, polygonize along cell
// edges, reproject and clip to the field. Memory is bounded by the grid (MAX_CELLS in
// field-window.ts), not the file.
import type { MultiPolygon, Polygon } from 'geojson';
import { geometryAreaHa } from '@/lib/geo/area';
import { unprocessable } from '@/lib/errors';
import { bandOrderOf, indexPlan, integerTypeName, waterPlan, type BandOrder, type BandRole, type IndexEncoding, type IndexName, type IndexPlan, type WaterPlan } from './bands';
import { classBreaks, classOf, histogramQuantile, waterCut, waterHistogram, type Histogram, type ZoningMethod } from './classify';
import { cellArea, fieldWindow, type FieldWindow } from './field-window';
import { CENTRE_INSIDE, coverageFractions, majorityFilter, mergeSmallPatches, rasterizeField } from './grid';
import { readIndexGrid } from './index-grid';
import { openRaster, type OpenRaster, type RasterInfo } from './inspect';
import { polygonizeLabels, type GridPolygon } from './polygonize';
import { borderGrid, simplifyBorders } from './simplify-borders';
import { northUpValues, previewPng } from './preview';
import { type IndexRamp, indexRamp, zoneColor } from './ramp';
import { classGeometries, classPatches } from './zone-shapes';

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

const HISTOGRAM_BINS = 64;
const FINE_BINS = 1024;

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

/** An index plan for the raster's own samples, with its alpha band, its input record and its water test. */
export type RasterIndexPlan = IndexPlan & { alpha?: number; input: IndexInputRecord; water?: WaterPlan };

/** Which of the raster's samples make the index, and how; 422 `raster_bands_unknown` when none can. */
export function rasterIndexPlan(raster: OpenRaster, index: IndexName, bandOrder?: BandRole[]): RasterIndexPlan {
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

/** The field's cells on the analysis grid, once read and their water left out. */
interface FieldCells {
  plan: RasterIndexPlan;
  grid: FieldWindow;
  /** The index per cell; NaN where there is no data or water was left out. */
  values: Float32Array;
  /** CENTRE_INSIDE and CROSSED flags per cell. */
  cover: Uint8Array;
  /** The part of each cell inside the field. */
  coverage: Float32Array;
  cellAreaHa: number;
  leftOut: LeftOut;
}

/** The classed cells merged into patches (4-connected, labelled 1..count). */
interface ZonePatches {
  /** Class per cell after smoothing and merging; 0 = unzoned. */
  classes: Uint8Array;
  labels: Int32Array;
  count: number;
  /** The classes the breaks give. */
  classCount: number;
}

/** The cells of the field's water mode (set to NaN in the index), and the test and cut that found them. */
interface WaterCells {
  index: string;
  cut: number;
  cells: Uint8Array;
}

/** Per class, the figures of the values it holds (zoneValueStats). */
interface ClassValueStats {
  min: number;
  max: number;
  mean: number;
  /** The class's cells, each counted by the part of it inside the field. */
  weight: number;
  q1: number;
  q3: number;
}

/** A zone before it is numbered by mean, and its class's interval between the breaks. */
interface MadeZone {
  zone: Zone;
  range: [number, number];
}

/** The zones of an open raster's index inside the field (computeZones' work). */
async function zoneRaster(raster: OpenRaster, field: Polygon | MultiPolygon, opts: ZoningOptions, onProgress: ProgressFn): Promise<ZoningResult> {
  const cells = await readFieldCells(raster, field, opts, onProgress);
  const { plan, grid, values, cover } = cells;
  onProgress(60, 'classifying');
  const { stats, fine, coarse } = indexSummary(values, cover);
  checkIndexScale(raster, plan, stats);
  const breaks = classBreaks(fine, opts.zones, opts.method);
  const patches = zonePatches(cells, breaks, opts.minZoneAreaHa, onProgress);
  const zones = fieldZones(cells, patches, breaks, field, opts.minZoneAreaHa, onProgress);
  const preview = await indexPreview(values, cover, grid, indexRamp(plan.name, { min: stats.min, max: stats.max }));
  onProgress(100, 'done');
  return {
    indexName: plan.name,
    stats,
    histogram: { min: stats.min, max: stats.max, counts: coarse },
    validAreaHa: zones.reduce((sum, z) => sum + z.areaHa, 0),
    zones,
    classesFound: patches.classCount,
    input: plan.input,
    preview,
    cellFactor: grid.k,
    leftOut: cells.leftOut,
  };
}

/** The field's cells: the index read from the raster onto the field's analysis grid, water left out. */
async function readFieldCells(raster: OpenRaster, field: Polygon | MultiPolygon, opts: ZoningOptions, onProgress: ProgressFn): Promise<FieldCells> {
  const plan = rasterIndexPlan(raster, opts.index, opts.bandOrder);
  const grid = fieldWindow(raster, field, opts.minCellM);
  const { width, height } = grid;
  const cover = rasterizeField(grid.rings, width, height);
  if (!cover.some((v) => v !== 0)) throw unprocessable('raster_no_overlap');
  // The water index's bands are read only when water is to be left out.
  const { values, water } = await readIndexGrid(raster, opts.maskWater === false ? { ...plan, water: undefined } : plan, { ...grid, cover }, onProgress);
  const cellAreaHa = cellArea(grid.gridToWgs84, width, height);
  // The part of each cell inside the field: patch sizes count it, so what the clip leaves of a
  // patch meets the minimum, and so do the hectares left out as water or as no data.
  const coverage = coverageFractions(grid.rings, width, height);
  const waterTest = opts.maskWater === false ? undefined : maskWater(values, water, cover, plan.water?.name ?? plan.name);
  const leftOut = leftOutOf(values, waterTest, coverage, cellAreaHa);
  return { plan, grid, values, cover, coverage, cellAreaHa, leftOut };
}

/** The hectares of the field left out as water (the water test's cells) and as no data (the other cells without a value). */
function leftOutOf(values: Float32Array, waterTest: WaterCells | undefined, coverage: Float32Array, cellAreaHa: number): LeftOut {
  const leftOut: LeftOut = { waterHa: 0, noDataHa: 0, ...(waterTest ? { waterTest: { index: waterTest.index, cut: waterTest.cut } } : {}) };
  for (let i = 0; i < values.length; i++) {
    if (values[i] === values[i]) continue;
    if (waterTest?.cells[i]) leftOut.waterHa += coverage[i]! * cellAreaHa;
    else leftOut.noDataHa += coverage[i]! * cellAreaHa;
  }
  return leftOut;
}

/**
 * The index's statistics over cells whose centre is in the field, and its histograms: the fine one
 * the breaks are drawn from, the coarse one the scan records. 422 when no such cell has a value.
 */
function indexSummary(values: Float32Array, cover: Uint8Array): { stats: Required<IndexStats>; fine: Histogram; coarse: number[] } {
  const { n, sum, sum2, min, max } = centreMoments(values, cover);
  if (n === 0) throw unprocessable('raster_no_valid_pixels');
  const { fine, coarse } = indexHistograms(values, cover, min, max);
  const mean = sum / n;
  const stats: Required<IndexStats> = { min, max, mean, std: Math.sqrt(Math.max(0, sum2 / n - mean * mean)), median: histogramQuantile(fine, 0.5) };
  return { stats, fine, coarse };
}

/** Count, sum, sum of squares, minimum and maximum of the values of cells whose centre is in the field. */
function centreMoments(values: Float32Array, cover: Uint8Array): { n: number; sum: number; sum2: number; min: number; max: number } {
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
  return { n, sum, sum2, min, max };
}

/** Histograms over min..max (FINE_BINS and HISTOGRAM_BINS bins) of the values of cells whose centre is in the field. */
function indexHistograms(values: Float32Array, cover: Uint8Array, min: number, max: number): { fine: Histogram; coarse: number[] } {
  const fine: Histogram = { min, max, counts: new Float64Array(FINE_BINS) };
  const coarse = new Array<number>(HISTOGRAM_BINS).fill(0);
  const span = max - min || 1;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (!(cover[i]! & CENTRE_INSIDE) || Number.isNaN(v)) continue;
    fine.counts[Math.min(FINE_BINS - 1, Math.floor(((v - min) / span) * FINE_BINS))]!++;
    coarse[Math.min(HISTOGRAM_BINS - 1, Math.floor(((v - min) / span) * HISTOGRAM_BINS))]!++;
  }
  return { fine, coarse };
}

/**
 * Signed integers without a scale are read as x10000; a field whose every value is then within
 * ±0.01 is in another scale (NDVI x 100 or x 1000), not a field of bare zero index: 422.
 */
function checkIndexScale(raster: OpenRaster, plan: RasterIndexPlan, { min, max }: { min: number; max: number }): void {
  if (plan.input.index_encoding === 'int_x10000' && Math.max(-min, max) <= 0.01) {
    throw unprocessable('raster_index_scale_unknown', { type: integerTypeName(raster.sampleFormat, raster.bitsPerSample) });
  }
}

/** The cells classed by the breaks, smoothed, and merged into patches no smaller than the minimum zone. */
function zonePatches({ values, grid, coverage, cellAreaHa }: FieldCells, breaks: number[], minZoneAreaHa: number, onProgress: ProgressFn): ZonePatches {
  const { width, height } = grid;
  const classCount = breaks.length + 1;
  const classified = classifyCells(values, breaks);
  onProgress(70, 'zoning');
  const classes = majorityFilter(classified, width, height, classCount);
  // Islands below the minimum zone (in nodata, water, at the field's edge) become unzoned.
  const { labels, count } = mergeSmallPatches(classes, width, height, minZoneAreaHa / cellAreaHa, coverage);
  onProgress(75, 'zoning');
  return { classes, labels, count, classCount };
}

/** Each cell's class by the breaks (1 = lowest); 0 where it has no value. */
function classifyCells(values: Float32Array, breaks: number[]): Uint8Array {
  const classes = new Uint8Array(values.length);
  for (let i = 0; i < values.length; i++) if (!Number.isNaN(values[i]!)) classes[i] = classOf(values[i]!, breaks);
  return classes;
}

/** The zones, numbered by mean: each class's patches in WGS84, clipped to the field; 422 when none is left. */
function fieldZones(cells: FieldCells, patches: ZonePatches, breaks: number[], field: Polygon | MultiPolygon, minZoneAreaHa: number, onProgress: ProgressFn): Zone[] {
  const { values, cover, coverage, grid } = cells;
  const { classes, classCount } = patches;
  const polygons = patchPolygons(patches, grid.width, grid.height, cells.cellAreaHa);
  const byClass = classPatches(polygons, patches, classes, cover, classCount, grid.gridToWgs84);
  const classStats = zoneValueStats(values, classes, coverage, classCount);
  onProgress(85, 'zoning');
  const made = madeZones(classGeometries(byClass, field, minZoneAreaHa), classStats, breaks);
  if (made.length === 0) throw unprocessable('raster_no_valid_pixels');
  onProgress(95, 'zoning');
  return namedZones(made);
}

/** The patches' polygons in grid coordinates, with the pixel stairs of their borders smoothed. */
function patchPolygons({ labels, count }: ZonePatches, width: number, height: number, cellAreaHa: number): Map<number, GridPolygon[]> {
  const cellSizeM = Math.sqrt(cellAreaHa * 10_000);
  return simplifyBorders(polygonizeLabels(labels, width, height, count), borderGrid(labels, width, height), borderTolerance(cellSizeM));
}

/** A zone for each class (index = class, from 1) with a geometry of some area and ground of its own. */
function madeZones(geometries: Array<Polygon | MultiPolygon | undefined>, classStats: ClassValueStats[], breaks: number[]): MadeZone[] {
  const made: MadeZone[] = [];
  for (let cls = 1; cls < geometries.length; cls++) {
    const geometry = geometries[cls];
    if (!geometry) continue;
    const s = classStats[cls]!;
    const areaHa = geometryAreaHa(geometry);
    if (!(areaHa > 0) || !(s.weight > 0)) continue;
    // Named by its class's interval between the breaks (the outer classes end at their own extremes),
    // so neighbouring names never overlap; the mean and quartiles stay in the zone's figures.
    const range: [number, number] = [breaks[cls - 2] ?? Math.min(s.min, breaks[0] ?? s.min), breaks[cls - 1] ?? Math.max(s.max, breaks.at(-1) ?? s.max)];
    made.push({ zone: { classIndex: cls, name: '', min: s.min, max: s.max, mean: s.mean, q1: s.q1, q3: s.q3, areaHa, color: '', geometry }, range });
  }
  return made;
}

/** The zones numbered, named and coloured in order of their means. */
function namedZones(made: MadeZone[]): Zone[] {
  // Smoothing and merging can leave a thin class with a mean below its neighbour's: number by mean.
  const byMean = [...made].sort((a, b) => a.zone.mean - b.zone.mean);
  const digits = nameDigits(byMean.map((m) => m.range));
  return byMean.map(({ zone, range: [lo, hi] }, i) => ({
    ...zone,
    classIndex: i + 1,
    name: `${i + 1}: ${lo.toFixed(digits)}–${hi.toFixed(digits)}`,
    color: zoneColor(i + 1, byMean.length),
  }));
}

/** The index of cells whose centre is in the field, north up, as a PNG over the ramp, and its bounds. */
async function indexPreview(values: Float32Array, cover: Uint8Array, { width, height, gridToWgs84 }: FieldWindow, ramp: IndexRamp): Promise<ZoningResult['preview']> {
  const shown = values.map((v, i) => (cover[i]! & CENTRE_INSIDE ? v : NaN));
  const corners = [gridToWgs84(0, 0), gridToWgs84(width, 0), gridToWgs84(0, height), gridToWgs84(width, height)];
  const lons = corners.map((p) => p[0]);
  const lats = corners.map((p) => p[1]);
  const bounds = { west: Math.min(...lons), south: Math.min(...lats), east: Math.max(...lons), north: Math.max(...lats) };
  const northUp = northUpValues(shown, width, height, { topLeft: corners[0]!, topRight: corners[1]!, bottomLeft: corners[2]! }, bounds);
  const png = await previewPng(northUp.values, northUp.width, northUp.height, ramp);
  return { png, boundsWgs84: [[bounds.south, bounds.west], [bounds.north, bounds.east]], ramp };
}

/**
 * Sets the cells of the field's water mode to NaN (waterCut: MNDWI or NDWI where the file has
 * green, else a low mode of the index itself) and says which they were and by what cut; undefined
 * when the field shows no water mode.
 */
function maskWater(values: Float32Array, water: Float32Array | undefined, cover: Uint8Array, testName: string): WaterCells | undefined {
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

const NAME_BINS = 4096;

/**
 * Per class, over the cells it holds after smoothing and merging, each weighted by the part of it
 * inside the field: the lowest and highest value, the mean, and the quartiles (the range half its
 * ground lies in). Smoothing and merging bring patches of other classes into a zone by design, so
 * even quartiles of neighbours overlap (`−0.05–0.12` beside `0.07–0.14`): names use the breaks.
 */
function zoneValueStats(values: Float32Array, classes: Uint8Array, weights: Float32Array, classCount: number): ClassValueStats[] {
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
