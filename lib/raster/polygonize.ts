// Polygons along pixel edges: every boundary edge of a labelled patch is traced with the patch on
// its left, so each patch gives one outer ring (clockwise in row-down grid coordinates) and its
// holes. Vertices in the middle of straight runs are dropped unless a third patch meets there,
// which keeps neighbouring patches' shared borders vertex-for-vertex identical (no slivers).
import { pointInRing } from '../geo/point-in-ring';
import { planarRingArea } from '../geo/planar';

export type GridPolygon = Array<Array<[number, number]>>;

// Directions: 0 east (+x), 1 south (+y), 2 west (-x), 3 north (-y).
const DX = [1, 0, -1, 0];
const DY = [0, 1, 0, -1];

/** The label of cell (c, r); 0 off the grid. */
type CellLabel = (c: number, r: number) => number;

/** A closed ring of grid vertices (the first repeated at the end). */
type Ring = Array<[number, number]>;

/** Polygons (rings of grid vertex coordinates) per label id 1..count. */
export function polygonizeLabels(labels: Int32Array, width: number, height: number, count: number): Map<number, GridPolygon[]> {
  const at: CellLabel = (c, r) => (c < 0 || r < 0 || c >= width || r >= height ? 0 : labels[r * width + c]!);
  const rings = traceRings(boundaryEdges(labels, width, height, at), width + 1, at);
  const polygons = new Map<number, GridPolygon[]>();
  for (const [label, list] of rings) {
    const polys = nestHoles(list);
    if (label >= 1 && label <= count) polygons.set(label, polys);
  }
  return polygons;
}

/**
 * Per grid vertex (row-major, width + 1 across), a bit for each direction in which a boundary
 * edge leaves it with a labelled cell on its left.
 */
function boundaryEdges(labels: Int32Array, width: number, height: number, at: CellLabel): Uint8Array {
  const vw = width + 1;
  const out = new Uint8Array(vw * (height + 1));
  for (let r = 0; r < height; r++) {
    for (let c = 0; c < width; c++) {
      const l = labels[r * width + c]!;
      if (l === 0) continue;
      if (at(c, r - 1) !== l) out[r * vw + c + 1]! |= 1 << 2;
      if (at(c, r + 1) !== l) out[(r + 1) * vw + c]! |= 1 << 0;
      if (at(c - 1, r) !== l) out[r * vw + c]! |= 1 << 1;
      if (at(c + 1, r) !== l) out[(r + 1) * vw + c + 1]! |= 1 << 3;
    }
  }
  return out;
}

/** Every ring the boundary edges make (clearing them), per label, in the order they start. */
function traceRings(edges: Uint8Array, vw: number, at: CellLabel): Map<number, Ring[]> {
  const rings = new Map<number, Ring[]>();
  for (let v = 0; v < edges.length; v++) {
    while (edges[v] !== 0) {
      const { label, ring } = traceRing(edges, vw, v, at);
      const list = rings.get(label) ?? [];
      list.push(ring);
      rings.set(label, list);
    }
  }
  return rings;
}

/** The ring that starts at vertex v along its lowest-numbered edge, and the label on its left. */
function traceRing(edges: Uint8Array, vw: number, v: number, at: CellLabel): { label: number; ring: Ring } {
  const x0 = v % vw;
  const y0 = (v / vw) | 0;
  let d = 31 - Math.clz32(edges[v]! & -edges[v]!);
  const label = leftOf(at, x0, y0, d);
  const ring: Ring = [[x0, y0]];
  let x = x0;
  let y = y0;
  for (;;) {
    edges[y * vw + x]! &= ~(1 << d);
    x += DX[d]!;
    y += DY[d]!;
    if (x === x0 && y === y0) break;
    const next = nextDirection(edges[y * vw + x]!, at, x, y, d, label);
    if (next < 0) throw new Error(`polygonize: open ring at ${x},${y}`);
    if (next !== d || !plainStraight(at, x, y, d)) ring.push([x, y]);
    d = next;
  }
  ring.push([x0, y0]);
  return { label, ring };
}

/**
 * The edge of the label's boundary to leave vertex (x, y) by after arriving in direction d; -1
 * when there is none. Turning left is preferred so a patch touching itself at a corner gives
 * separate rings.
 */
function nextDirection(bits: number, at: CellLabel, x: number, y: number, d: number, label: number): number {
  for (const turn of [3, 0, 1]) {
    const nd = (d + turn) % 4;
    if (bits & (1 << nd) && leftOf(at, x, y, nd) === label) return nd;
  }
  return -1;
}

/** The cell on the left of the edge leaving vertex (x, y) in direction d. */
function leftOf(at: CellLabel, x: number, y: number, d: number): number {
  return d === 0 ? at(x, y - 1) : d === 1 ? at(x, y) : d === 2 ? at(x - 1, y) : at(x - 1, y - 1);
}

/** One label's rings as polygons: each outer ring with the holes inside it. */
function nestHoles(list: Ring[]): GridPolygon[] {
  // Shoelace area in row-down coordinates: negative for outer rings as traced here.
  const outers = list.filter((r) => planarRingArea(r) < 0);
  const holes = list.filter((r) => planarRingArea(r) > 0);
  const polys: GridPolygon[] = outers.map((o) => [o]);
  for (const hole of holes) {
    const probe = holeProbe(hole);
    const host = polys.length === 1 ? polys[0] : polys.find((p) => pointInRing(probe, p[0]!)) ?? polys[0];
    host?.push(hole);
  }
  return polys;
}

/** A straight-through vertex where only the two patches on either side meet. */
function plainStraight(at: CellLabel, x: number, y: number, d: number): boolean {
  return d % 2 === 0
    ? at(x - 1, y - 1) === at(x, y - 1) && at(x - 1, y) === at(x, y)
    : at(x - 1, y - 1) === at(x - 1, y) && at(x, y - 1) === at(x, y);
}

/** A point just inside the hole's first edge (inside the hole, so strictly inside its host). */
function holeProbe(hole: Array<[number, number]>): [number, number] {
  const [a, b] = [hole[0]!, hole[1]!];
  const mx = (a[0] + b[0]) / 2;
  const my = (a[1] + b[1]) / 2;
  // Holes are traced with the surrounding patch on the left; the hole lies on the right.
  const dx = Math.sign(b[0] - a[0]);
  const dy = Math.sign(b[1] - a[1]);
  return [mx - dy * 0.25, my + dx * 0.25];
}
