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
