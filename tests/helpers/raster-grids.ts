// The pixel grids of the shared rasters the zoning tests draw fields over, written out from gdalinfo's
// figures, and a field polygon through given pixel corners.
import type { Polygon, Position } from 'geojson';
import proj4 from 'proj4';

export interface Grid {
  proj: string;
  origin: [number, number];
  res: [number, number];
}
export const NAIP_GRID: Grid = { proj: '+proj=utm +zone=14 +datum=NAD83 +units=m +no_defs', origin: [485899, 5209246], res: [5, -5] };
export const DRONE_GRID: Grid = {
  proj: '+proj=utm +zone=15 +datum=WGS84 +units=m +no_defs',
  origin: [720196.3417900924, 4302930.771625343],
  res: [0.03560942999999913, -0.0354295700000048],
};
export const LANDSAT_GRID: Grid = { proj: '+proj=longlat +datum=WGS84 +no_defs', origin: [-74.72249415376068, -8.282107593468341], res: [0.0008084837557075694, -0.0008084837557075694] };

/** Pixel (column, row) of a raster grid to lon/lat. */
export function lonLat(g: Grid, col: number, row: number): Position {
  return proj4(g.proj, 'WGS84', [g.origin[0] + col * g.res[0], g.origin[1] + row * g.res[1]]);
}

/** A field whose ring runs through the given pixel corners. */
export function fieldOver(g: Grid, pixels: Array<[number, number]>): Polygon {
  const ring = pixels.map(([c, r]) => lonLat(g, c, r));
  return { type: 'Polygon', coordinates: [[...ring, ring[0]!]] };
}
