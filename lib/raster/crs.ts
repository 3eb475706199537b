// Coordinate systems of GeoTIFFs: EPSG code from the GeoKeys, proj4 definition from epsg-index,
// converters to and from WGS84 longitude/latitude.
import proj4 from 'proj4';
import { epsgDefinition } from '@/lib/geo/prj';
import { unprocessable } from '@/lib/errors';

export interface Crs {
  epsg?: number;
  proj4: string;
}

export type PointConverter = (xy: [number, number]) => [number, number];

const USER_DEFINED = 32767;
const WGS84 = '+proj=longlat +datum=WGS84 +no_defs';

/** The raster's CRS from its GeoKeys; throws 422 when there is none or it is user-defined/unknown. */
export function crsFromGeoKeys(geoKeys: Record<string, unknown> | null): Crs {
  const projected = Number(geoKeys?.ProjectedCSTypeGeoKey);
  const geographic = Number(geoKeys?.GeographicTypeGeoKey);
  const code = projected > 0 ? projected : geographic > 0 ? geographic : undefined;
  if (!geoKeys || code === undefined) throw unprocessable('raster_no_crs');
  if (code === USER_DEFINED) throw unprocessable('raster_crs_unsupported', { crs: 'user-defined' });
  const def = epsgDefinition(code);
  if (!def) throw unprocessable('raster_crs_unsupported', { crs: `EPSG:${code}` });
  return { epsg: code, proj4: def };
}

export function isGeographic(crs: Crs): boolean {
  return /\+proj=longlat\b/.test(crs.proj4);
}

/** Converters between the raster CRS and WGS84 lon/lat. */
export function converters(crs: Crs): { toWgs84: PointConverter; fromWgs84: PointConverter } {
  const conv = proj4(WGS84, crs.proj4);
  return {
    toWgs84: (xy) => conv.inverse(xy) as [number, number],
    fromWgs84: (xy) => conv.forward(xy) as [number, number],
  };
}
