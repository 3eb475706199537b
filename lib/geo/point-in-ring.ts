// Whether a point lies inside a ring in plane coordinates (ray casting; the closing vertex may repeat
// or not). For metric grids and pixels, where turf's GeoJSON objects would cost more than the test.
import { planarRingArea } from './planar';

export function pointInRing([px, py]: readonly [number, number], ring: ReadonlyArray<readonly [number, number]>): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i]!;
    const [xj, yj] = ring[j]!;
    if (yi > py !== yj > py && px < xi + ((py - yi) * (xj - xi)) / (yj - yi)) inside = !inside;
  }
  return inside;
}

/**
 * The inward half-planes of a ring's edges, as unit normal and offset (a, b, c per edge: a·x + b·y + c
 * is the distance inside that edge's line). For insideHalfPlanesBy.
 */
export function innerHalfPlanes(ring: ReadonlyArray<readonly [number, number]>): Float64Array {
  const n = ring.length, hp = new Float64Array(3 * n);
  const turn = planarRingArea([...ring, ring[0]!]) > 0 ? 1 : -1;
  for (let i = 0, j = n - 1; i < n; j = i++) {
    const [xj, yj] = ring[j]!, [xi, yi] = ring[i]!, len = Math.hypot(xi - xj, yi - yj) || 1;
    const a = (-(yi - yj) / len) * turn, b = ((xi - xj) / len) * turn;
    hp[3 * i] = a; hp[3 * i + 1] = b; hp[3 * i + 2] = -(a * xj + b * yj);
  }
  return hp;
}

/**
 * Whether a point lies at least `depth` inside every edge's line: a disc of that radius around it then
 * lies inside the ring (within its kernel, which for a ring that is nearly convex, as a photo's frame
 * on the ground, is nearly all of it). Stricter than needed for a ring that is not convex, never laxer.
 */
export function insideHalfPlanesBy(hp: Float64Array, x: number, y: number, depth: number): boolean {
  for (let k = 0; k < hp.length; k += 3) if (hp[k]! * x + hp[k + 1]! * y + hp[k + 2]! < depth) return false;
  return true;
}
