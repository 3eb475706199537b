// Area on the WGS84 ellipsoid (Karney's algorithm via GeographicLib), in hectares. Holes are
// subtracted; ring orientation does not matter.
import geodesic from 'geographiclib-geodesic';
import type { MultiPolygon, Polygon, Position } from 'geojson';

const { Geodesic } = geodesic as unknown as {
  Geodesic: { WGS84: { Polygon(polyline: boolean): GeoPolygon } };
};
interface GeoPolygon {
  AddPoint(lat: number, lon: number): void;
  Compute(reverse: boolean, sign: boolean): { number: number; perimeter: number; area: number };
}

/** Area of one ring in square metres (absolute). */
export function ringAreaM2(ring: Position[]): number {
  const poly = Geodesic.WGS84.Polygon(false);
  const n = ring.length > 1 && ring[0]![0] === ring.at(-1)![0] && ring[0]![1] === ring.at(-1)![1] ? ring.length - 1 : ring.length;
  for (let i = 0; i < n; i++) poly.AddPoint(ring[i]![1]!, ring[i]![0]!);
  return Math.abs(poly.Compute(false, true).area);
}

export function polygonAreaM2(rings: Position[][]): number {
  const [outer, ...holes] = rings;
  if (!outer) return 0;
  return Math.max(0, ringAreaM2(outer) - holes.reduce((sum, h) => sum + ringAreaM2(h), 0));
}

export function geometryAreaM2(geometry: Polygon | MultiPolygon): number {
  return geometry.type === 'Polygon'
    ? polygonAreaM2(geometry.coordinates)
    : geometry.coordinates.reduce((sum, p) => sum + polygonAreaM2(p), 0);
}

export const geometryAreaHa = (geometry: Polygon | MultiPolygon) => geometryAreaM2(geometry) / 10_000;
