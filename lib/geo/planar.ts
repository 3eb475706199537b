// Rings in plane coordinates (metres of a projected frame such as UTM): signed area, the overlap of two
// convex rings and the convex hull; and the distance between two points. The geodesic area of lon/lat rings is area.ts's.
/** Area of the intersection of two convex rings (Sutherland–Hodgman), m². */
export function convexOverlap(a: [number, number][], b: [number, number][]): number {
  let out = a.slice(0, -1);
  const clip = b.slice(0, -1);
  const sign = Math.sign(planarRingArea(b));
  for (let k = 0; k < clip.length && out.length; k++) {
    const [p, q] = [clip[k]!, clip[(k + 1) % clip.length]!];
    const inside = (v: [number, number]) => sign * ((q[0] - p[0]) * (v[1] - p[1]) - (q[1] - p[1]) * (v[0] - p[0])) >= 0;
    const input = out;
    out = [];
    for (let i = 0; i < input.length; i++) {
      const cur = input[i]!, prev = input[(i + input.length - 1) % input.length]!;
      const cross = (): [number, number] => {
        const d1 = [cur[0] - prev[0], cur[1] - prev[1]], d2 = [q[0] - p[0], q[1] - p[1]];
        const t = ((p[0] - prev[0]) * d2[1]! - (p[1] - prev[1]) * d2[0]!) / (d1[0]! * d2[1]! - d1[1]! * d2[0]!);
        return [prev[0] + t * d1[0]!, prev[1] + t * d1[1]!];
      };
      if (inside(cur)) {
        if (!inside(prev)) out.push(cross());
        out.push(cur);
      } else if (inside(prev)) out.push(cross());
    }
  }
  return out.length < 3 ? 0 : Math.abs(planarRingArea([...out, out[0]!]));
}

/**
 * Signed area of a closed ring in plane coordinates (shoelace): positive anticlockwise with y up
 * (so negative for a clockwise ring, and for an anticlockwise one in row-down pixel coordinates).
 * The one ring area of the code: lon/lat rings scaled to metres (geometry.ts) and pixel rings
 * (raster/polygonize.ts) use it too.
 */
export function planarRingArea(r: readonly (readonly number[])[]): number {
  const [x0 = 0, y0 = 0] = r[0] ?? [];
  let s = 0;
  // Relative to the first vertex, so that no precision is lost to large coordinates.
  for (let i = 0; i + 1 < r.length; i++) s += (r[i]![0]! - x0) * (r[i + 1]![1]! - y0) - (r[i + 1]![0]! - x0) * (r[i]![1]! - y0);
  return s / 2;
}

/** Convex hull of points (monotone chain), as a closed anticlockwise ring. */
export function convexHull(points: [number, number][]): [number, number][] {
  const p = points.slice().sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const cross = (o: [number, number], a: [number, number], b: [number, number]) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const lower: [number, number][] = [];
  for (const q of p) { while (lower.length >= 2 && cross(lower.at(-2)!, lower.at(-1)!, q) <= 0) lower.pop(); lower.push(q); }
  const upper: [number, number][] = [];
  for (const q of p.reverse()) { while (upper.length >= 2 && cross(upper.at(-2)!, upper.at(-1)!, q) <= 0) upper.pop(); upper.push(q); }
  const hull = [...lower.slice(0, -1), ...upper.slice(0, -1)];
  return [...hull, hull[0]!];
}

/**
 * Distance between (x, y) and (px, py): a square root, not Math.hypot, whose guard against overflow
 * is slow where it runs for every pixel or grid node against every photo (drone seams and parts).
 */
export function planarDistance(x: number, y: number, px: number, py: number): number {
  const dx = x - px, dy = y - py;
  return Math.sqrt(dx * dx + dy * dy);
}
