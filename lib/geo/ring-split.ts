// Rings that pass through the same vertex twice (a "figure eight", or a loop that pinches off a hole,
// as ESRI tools write them) are invalid under the OGC rules most GIS software follows. They are split
// at the repeated vertex into simple rings: a loop inside another piece becomes a hole of it, a loop
// outside becomes a polygon of its own.
import type { Position } from 'geojson';
import type { FieldGeometry } from './geometry';
import { ringInside } from './nest-rings';

const key = (p: Position) => `${p[0]},${p[1]}`;
const close = (open: Position[]): Position[] => [...open, open[0]!];

/** A closed ring as simple closed rings (itself when no vertex repeats). */
export function splitRingAtRepeatedVertices(ring: Position[]): Position[][] {
  const open = ring.slice(0, -1);
  const seen = new Map<string, number>();
  for (let j = 0; j < open.length; j++) {
    const i = seen.get(key(open[j]!));
    if (i !== undefined) {
      const loop = open.slice(i, j);
      const rest = [...open.slice(0, i), ...open.slice(j)];
      return [rest, loop].filter((r) => r.length >= 3).flatMap((r) => splitRingAtRepeatedVertices(close(r)));
    }
    seen.set(key(open[j]!), j);
  }
  return [ring];
}

function splitPolygon(rings: Position[][]): Position[][][] {
  const [outer = [], ...holes] = rings;
  const pieces = splitRingAtRepeatedVertices(outer);
  // Pieces of the outer ring that lie inside another piece are holes it pinched off.
  const outers = pieces.filter((p, i) => !pieces.some((q, k) => k !== i && ringInside(p, q)));
  const allHoles = [...pieces.filter((p) => !outers.includes(p)), ...holes.flatMap(splitRingAtRepeatedVertices)];
  return outers.map((o) => [o, ...allHoles.filter((h) => ringInside(h, o))]);
}

/** Whether a closed ring passes through one of its vertices twice (numbers first: most rings do not). */
function repeatsVertex(ring: Position[]): boolean {
  const seen = new Set<number>();
  let maybe = false;
  for (let i = 0; i < ring.length - 1 && !maybe; i++) {
    const h = ring[i]![0]! * 1e3 + ring[i]![1]!;
    if (seen.has(h)) maybe = true;
    seen.add(h);
  }
  return maybe && new Set(ring.slice(0, -1).map(key)).size < ring.length - 1;
}

/** The geometry with self-touching rings split, or undefined when none repeats a vertex. */
export function splitSelfTouchingRings(g: FieldGeometry): FieldGeometry | undefined {
  const polygons = g.type === 'Polygon' ? [g.coordinates] : g.coordinates;
  const touching = polygons.some((p) => p.some(repeatsVertex));
  if (!touching) return undefined;
  const out = polygons.flatMap(splitPolygon);
  return out.length === 1 ? { type: 'Polygon', coordinates: out[0]! } : { type: 'MultiPolygon', coordinates: out };
}
