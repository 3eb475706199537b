// Rings that pass through the same vertex twice (a "figure eight", or a loop that pinches off a hole,
// as ESRI tools write them) are invalid under the OGC rules most GIS software follows. They are split
// at the repeated vertex into simple rings: a loop inside another piece becomes a hole of it, a loop
// outside becomes a polygon of its own. One pass over the ring, and pieces compared only with those
// whose boxes meet: a ring pinched into thousands of loops is split in a moment.
import type { Position } from 'geojson';
import type { FieldGeometry } from './geometry';
import { type Ring, boxIndex, described, ringWithin } from './nest-rings';

const key = (p: Position) => `${p[0]},${p[1]}`;
const close = (open: Position[]): Position[] => [...open, open[0]!];

/**
 * A closed ring as simple closed rings (itself when no vertex repeats): what is left of the ring
 * first, then the loops cut off it, the last found first. Loops of fewer than 3 vertices (spikes) go.
 */
export function splitRingAtRepeatedVertices(ring: Position[]): Position[][] {
  const open = ring.slice(0, -1);
  // The vertices walked so far that no loop took, and where each stands among them.
  const kept: Position[] = [];
  const at = new Map<string, number>();
  const loops: Position[][] = [];
  for (const p of open) {
    const k = key(p);
    const i = at.get(k);
    if (i === undefined) {
      at.set(k, kept.length);
      kept.push(p);
      continue;
    }
    // Back at a vertex already walked: the vertices since then are a loop, and the walk goes on from it.
    const loop = kept.splice(i);
    for (const q of loop) at.delete(key(q));
    loops.push(loop);
    at.set(k, kept.length);
    kept.push(p);
  }
  if (!loops.length) return [ring];
  return [kept, ...loops.reverse()].filter((r) => r.length >= 3).map(close);
}

function splitPolygon(rings: Position[][]): Position[][][] {
  const [outer = [], ...holes] = rings;
  const pieces = splitRingAtRepeatedVertices(outer).map(described);
  // Pieces of the outer ring that lie inside another piece are holes it pinched off.
  const nearPieces = boxIndex(pieces, (p) => p.box);
  const isOuter = pieces.map((p, i) => !nearPieces(p.box).some((q) => q.at !== i && ringWithin(p, q.item)));
  const outers = pieces.filter((_, i) => isOuter[i]);
  const allHoles = [...pieces.filter((_, i) => !isOuter[i]), ...holes.flatMap(splitRingAtRepeatedVertices).map(described)];
  const nearOuters = boxIndex(outers, (o) => o.box);
  const holesOf = outers.map((o): Ring[] => [o]);
  for (const h of allHoles) for (const o of nearOuters(h.box)) if (ringWithin(h, o.item)) holesOf[o.at]!.push(h);
  return holesOf.map((polygon) => polygon.map((r) => r.ring));
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
