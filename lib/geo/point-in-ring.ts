// Whether a point lies inside a ring in plane coordinates (ray casting; the closing vertex may repeat
// or not). For metric grids and pixels, where turf's GeoJSON objects would cost more than the test.
export function pointInRing([px, py]: readonly [number, number], ring: ReadonlyArray<readonly [number, number]>): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i]!;
    const [xj, yj] = ring[j]!;
    if (yi > py !== yj > py && px < xi + ((py - yi) * (xj - xi)) / (yj - yi)) inside = !inside;
  }
  return inside;
}

/** Whether a point lies inside a ring at least `depth` from each of its edges: a disc of that radius around it is inside. */
export function pointDeepInRing(p: readonly [number, number], ring: ReadonlyArray<readonly [number, number]>, depth: number): boolean {
  if (!pointInRing(p, ring)) return false;
  const [px, py] = p;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i]!, [xj, yj] = ring[j]!;
    const dx = xi - xj, dy = yi - yj, len2 = dx * dx + dy * dy;
    const t = len2 ? Math.min(1, Math.max(0, ((px - xj) * dx + (py - yj) * dy) / len2)) : 0;
    if (Math.hypot(px - xj - t * dx, py - yj - t * dy) < depth) return false;
  }
  return true;
}
