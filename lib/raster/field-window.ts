// Where a field lies on a raster: its pixel window, and the analysis grid laid over that window
// (one cell per pixel, or per k x k pixels when the window is too big for memory or the pixels finer
// than the zoning asks for), with the field's rings in grid coordinates.
import type { MultiPolygon, Polygon, Position } from 'geojson';
import { geometryAreaHa } from '@/lib/geo/area';
import { unprocessable } from '@/lib/errors';
import { converters } from './crs';
import type { GridRings } from './grid';
import { mapToPixel, pixelToMap, type OpenRaster } from './inspect';

/** A grid vertex (column, row) to WGS84 lon/lat. */
export type GridToWgs84 = (c: number, r: number) => [number, number];

/** The analysis grid over the field's window of the raster. */
export interface FieldWindow {
  /** Raster pixel of the grid's top-left corner (a multiple of k). */
  x0: number;
  y0: number;
  /** Raster pixels per cell side. */
  k: number;
  width: number;
  height: number;
  /** The field's rings (edges densified) in grid coordinates. */
  rings: GridRings;
  gridToWgs84: GridToWgs84;
}

/** The raster pixels [px0, px1) x [py0, py1) around the field, clipped to the raster. */
interface PixelWindow {
  px0: number;
  py0: number;
  px1: number;
  py1: number;
}

// 4 M cells (1.3 m cells on a 500 ha field) are far finer than any sprayer section and keep the
// pipeline within a few hundred MB; bigger windows are averaged in k x k blocks.
const MAX_CELLS = 4_000_000;
// Field edges are straight in lon/lat; densify before projecting so they stay faithful in the raster CRS.
const DENSIFY_DEG = 0.0005;

/** The field's analysis grid on the raster; 422 `raster_no_overlap` when the field misses the raster. */
export function fieldWindow(raster: OpenRaster, field: Polygon | MultiPolygon, minCellM: number | undefined): FieldWindow {
  const { info, transform } = raster;
  const { fromWgs84, toWgs84 } = converters(info.crs);
  const pixelRings = fieldRings(field).map((ring) => ring.map(([lon, lat]) => mapToPixel(transform, ...fromWgs84([lon!, lat!]))));
  const window = pixelWindow(pixelRings, info.width, info.height);
  const { px0, py0, px1, py1 } = window;
  const pixelM = Math.sqrt(cellArea((c, r) => toWgs84(pixelToMap(transform, px0 + c, py0 + r)), px1 - px0, py1 - py0) * 10_000);
  const k = cellFactor(window, pixelM, minCellM);
  const x0 = Math.floor(px0 / k) * k;
  const y0 = Math.floor(py0 / k) * k;
  const rings = pixelRings.map((ring) => ring.map((p): [number, number] => [(p[0] - x0) / k, (p[1] - y0) / k]));
  return {
    x0,
    y0,
    k,
    width: Math.ceil((px1 - x0) / k),
    height: Math.ceil((py1 - y0) / k),
    rings,
    gridToWgs84: (c, r) => toWgs84(pixelToMap(transform, x0 + c * k, y0 + r * k)),
  };
}

/** The pixel window around the rings (pixel coordinates), clipped to the raster; 422 when it is empty. */
function pixelWindow(pixelRings: Array<Array<[number, number]>>, width: number, height: number): PixelWindow {
  const all = pixelRings.flat();
  const px0 = Math.max(0, Math.floor(Math.min(...all.map((p) => p[0]))));
  const py0 = Math.max(0, Math.floor(Math.min(...all.map((p) => p[1]))));
  const px1 = Math.min(width, Math.ceil(Math.max(...all.map((p) => p[0]))));
  const py1 = Math.min(height, Math.ceil(Math.max(...all.map((p) => p[1]))));
  if (!(px1 > px0 && py1 > py0)) throw unprocessable('raster_no_overlap');
  return { px0, py0, px1, py1 };
}

/** Raster pixels per cell side: enough to stay within MAX_CELLS, and to make cells about minCellM. */
function cellFactor({ px0, py0, px1, py1 }: PixelWindow, pixelM: number, minCellM: number | undefined): number {
  return Math.max(1, Math.ceil(Math.sqrt(((px1 - px0) * (py1 - py0)) / MAX_CELLS)), Math.round((minCellM ?? 0) / pixelM));
}

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
export function cellArea(gridToWgs84: GridToWgs84, width: number, height: number): number {
  const c = Math.floor(width / 2);
  const r = Math.floor(height / 2);
  const ring = [gridToWgs84(c, r), gridToWgs84(c + 1, r), gridToWgs84(c + 1, r + 1), gridToWgs84(c, r + 1), gridToWgs84(c, r)];
  return geometryAreaHa({ type: 'Polygon', coordinates: [ring] });
}
