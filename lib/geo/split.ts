// Splitting a field's boundary along a line drawn across it: one part of a parcel sown differently,
// say. The cut is exact: the parts share the line as an edge and their areas add up to the field's.
import { difference, feature, featureCollection, intersect } from '@turf/turf';
import findIntersections from 'sweepline-intersections';
import type { MultiPolygon, Polygon, Position } from 'geojson';
import { unprocessable } from '../errors';
import { geometryAreaM2 } from './area';
import { type FieldGeometry, boundingBox } from './geometry';

/** Parts smaller than this are the clipper's rounding where the line runs along an edge, not ground. */
const MIN_PART_M2 = 0.01;

type Box = { minX: number; minY: number; maxX: number; maxY: number };

/** Where the ray from `from` through `to` leaves `box` (which holds both). */
function rayExit(from: Position, to: Position, box: Box): Position {
  const [x0, y0] = [from[0]!, from[1]!];
  const [dx, dy] = [to[0]! - x0, to[1]! - y0];
  const ts = [dx > 0 ? (box.maxX - x0) / dx : dx < 0 ? (box.minX - x0) / dx : Infinity, dy > 0 ? (box.maxY - y0) / dy : dy < 0 ? (box.minY - y0) / dy : Infinity];
  const t = Math.min(...ts);
  return [x0 + dx * t, y0 + dy * t];
}

/** A point's place along the box's perimeter, counter-clockwise from the lower left corner, in 0..4. */
function perimeterPlace([x, y]: Position, b: Box): number {
  const [w, h] = [b.maxX - b.minX, b.maxY - b.minY];
  if (y! <= b.minY) return (x! - b.minX) / w;
  if (x! >= b.maxX) return 1 + (y! - b.minY) / h;
  if (y! >= b.maxY) return 2 + (b.maxX - x!) / w;
  return 3 + (b.maxY - y!) / h;
}

/**
 * The region left of the line, extended at both ends to a box well around the field and closed
 * along that box: the field's part inside it is one side of the cut, the rest the other.
 */
function leftOfLine(line: Position[], field: FieldGeometry): Polygon {
  const fb = boundingBox(field);
  const xs = [fb.minLon, fb.maxLon, ...line.map((p) => p[0]!)];
  const ys = [fb.minLat, fb.maxLat, ...line.map((p) => p[1]!)];
  const margin = Math.max(Math.max(...xs) - Math.min(...xs), Math.max(...ys) - Math.min(...ys), 1e-6);
  const box = { minX: Math.min(...xs) - margin, minY: Math.min(...ys) - margin, maxX: Math.max(...xs) + margin, maxY: Math.max(...ys) + margin };
  const start = rayExit(line[1]!, line[0]!, box);
  const end = rayExit(line.at(-2)!, line.at(-1)!, box);
  const corners: Position[] = [
    [box.minX, box.minY],
    [box.maxX, box.minY],
    [box.maxX, box.maxY],
    [box.minX, box.maxY],
  ];
  // Counter-clockwise along the box from where the line leaves it back to where it enters.
  const from = perimeterPlace(end, box);
  let to = perimeterPlace(start, box);
  if (to <= from) to += 4;
  const around = [1, 2, 3, 4, 5, 6, 7].filter((c) => c > from && c < to).map((c) => corners[c % 4]!);
  return { type: 'Polygon', coordinates: [[start, ...line, end, ...around, start]] };
}

const polygonsOf = (g: Polygon | MultiPolygon | undefined): Polygon[] =>
  !g ? [] : g.type === 'Polygon' ? [g] : g.coordinates.map((coordinates) => ({ type: 'Polygon', coordinates }));

/**
 * The parts of `field` on either side of `line` (lon/lat, two or more points), largest first; each
 * connected part is one. 422 when the line crosses itself or does not cut the field in two.
 */
export function splitGeometry(field: FieldGeometry, line: Position[]): Polygon[] {
  const left = leftOfLine(line, field);
  // The extended line must not cross itself, or "left of it" means nothing.
  if (findIntersections(feature(left), false).length > 0) throw unprocessable('split_line_crosses_itself');
  const pair = featureCollection([feature<Polygon | MultiPolygon>(field), feature<Polygon | MultiPolygon>(left)]);
  const parts = [...polygonsOf(intersect(pair)?.geometry), ...polygonsOf(difference(pair)?.geometry)]
    .map((polygon) => ({ polygon, area: geometryAreaM2(polygon) }))
    .filter((p) => p.area >= MIN_PART_M2)
    .sort((a, b) => b.area - a.area);
  if (parts.length < 2) throw unprocessable('split_line_misses');
  return parts.map((p) => p.polygon);
}
