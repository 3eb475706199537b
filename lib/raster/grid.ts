// Operations on the analysis grid (row-major, one cell per raster pixel or block of pixels):
// rasterizing the field, smoothing classes, labelling and merging patches.

/** Rings of the field in grid coordinates (x = column, y = row; cell (c, r) spans [c, c+1) x [r, r+1)). */
export type GridRings = Array<Array<[number, number]>>;

// Cover flags per cell; a cell belongs to the grid's field part when either is set.
/** The centre is inside the field: the cell counts for statistics. */
export const CENTRE_INSIDE = 1;
/** The field's boundary passes through the cell: its geometry needs clipping. */
export const CROSSED = 2;

/** Where the rings cross the line `y`, sorted, into `xs`: pairs of them bound the inside (even-odd). */
function rowCrossings(rings: GridRings, y: number, xs: number[]): void {
  xs.length = 0;
  for (const ring of rings) {
    for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
      const [xi, yi] = ring[i]!;
      const [xj, yj] = ring[j]!;
      if (yi > y !== yj > y) xs.push(xi + ((y - yi) * (xj - xi)) / (yj - yi));
    }
  }
  xs.sort((a, b) => a - b);
}

/** Cells whose centre is inside the field (even-odd over all rings, so holes work) and cells an edge crosses. */
export function rasterizeField(rings: GridRings, width: number, height: number): Uint8Array {
  const cover = new Uint8Array(width * height);
  const xs: number[] = [];
  for (let r = 0; r < height; r++) {
    rowCrossings(rings, r + 0.5, xs);
    for (let k = 0; k + 1 < xs.length; k += 2) {
      const c0 = Math.max(0, Math.ceil(xs[k]! - 0.5));
      const c1 = Math.min(width - 1, Math.floor(xs[k + 1]! - 0.5));
      cover.fill(CENTRE_INSIDE, r * width + c0, c0 <= c1 ? r * width + c1 + 1 : r * width + c0);
    }
  }
  for (const ring of rings) {
    for (let i = 0; i + 1 < ring.length; i++) markSegment(cover, width, height, ring[i]!, ring[i + 1]!);
  }
  return cover;
}

/**
 * The fraction of each cell that lies inside the field (even-odd over all rings), exact along rows
 * and sampled on `sub` lines per row: what a cell adds to the area of a zone clipped to the field.
 */
export function coverageFractions(rings: GridRings, width: number, height: number, sub = 16): Float32Array {
  const fraction = new Float32Array(width * height);
  // Per row: partial cells directly, runs of whole cells through a difference array.
  const diff = new Float64Array(width + 1);
  const xs: number[] = [];
  const w = 1 / sub;
  for (let r = 0; r < height; r++) {
    diff.fill(0);
    const base = r * width;
    for (let s = 0; s < sub; s++) {
      rowCrossings(rings, r + (s + 0.5) * w, xs);
      for (let k = 0; k + 1 < xs.length; k += 2) {
        const a = Math.max(0, xs[k]!);
        const b = Math.min(width, xs[k + 1]!);
        if (!(b > a)) continue;
        const ca = Math.floor(a);
        const cb = Math.min(width - 1, Math.floor(b));
        if (ca === cb) {
          fraction[base + ca]! += (b - a) * w;
          continue;
        }
        fraction[base + ca]! += (ca + 1 - a) * w;
        if (cb < width) fraction[base + cb]! += (b - cb) * w;
        diff[ca + 1]! += w;
        diff[cb]! -= w;
      }
    }
    let run = 0;
    for (let c = 0; c < width; c++) {
      run += diff[c]!;
      const v = fraction[base + c]! + run;
      fraction[base + c] = v > 1 ? 1 : v < 1e-9 ? 0 : v;
    }
  }
  return fraction;
}

/** Marks every cell a segment passes through (grid traversal, Amanatides & Woo). */
function markSegment(cover: Uint8Array, width: number, height: number, a: [number, number], b: [number, number]): void {
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  let cx = Math.floor(a[0]);
  let cy = Math.floor(a[1]);
  const ex = Math.floor(b[0]);
  const ey = Math.floor(b[1]);
  const stepX = Math.sign(dx);
  const stepY = Math.sign(dy);
  const tDx = dx !== 0 ? Math.abs(1 / dx) : Infinity;
  const tDy = dy !== 0 ? Math.abs(1 / dy) : Infinity;
  let tx = dx > 0 ? (cx + 1 - a[0]) * tDx : dx < 0 ? (a[0] - cx) * tDx : Infinity;
  let ty = dy > 0 ? (cy + 1 - a[1]) * tDy : dy < 0 ? (a[1] - cy) * tDy : Infinity;
  const steps = Math.abs(ex - cx) + Math.abs(ey - cy);
  for (let s = 0; s <= steps; s++) {
    if (cx >= 0 && cy >= 0 && cx < width && cy < height) cover[cy * width + cx]! |= CROSSED;
    if (tx < ty) {
      tx += tDx;
      cx += stepX;
    } else {
      ty += tDy;
      cy += stepY;
    }
  }
}

/** One pass of a 3x3 majority filter over classed cells (0 = no class); ties keep the cell's class. */
export function majorityFilter(classes: Uint8Array, width: number, height: number, classCount: number): Uint8Array {
  const out = new Uint8Array(classes);
  const votes = new Int32Array(classCount + 1);
  for (let r = 0; r < height; r++) {
    for (let c = 0; c < width; c++) {
      const own = classes[r * width + c]!;
      if (own === 0) continue;
      votes.fill(0);
      for (let rr = Math.max(0, r - 1); rr <= Math.min(height - 1, r + 1); rr++) {
        for (let cc = Math.max(0, c - 1); cc <= Math.min(width - 1, c + 1); cc++) votes[classes[rr * width + cc]!]!++;
      }
      let best = own;
      for (let k = 1; k <= classCount; k++) if (votes[k]! > votes[best]!) best = k;
      out[r * width + c] = best;
    }
  }
  return out;
}

export interface Components {
  /** Component id per cell, 1-based; 0 where there is no class. */
  labels: Int32Array;
  /** Cell count per component id. */
  sizes: Int32Array;
  count: number;
}

/** 4-connected patches of equal class. */
export function labelComponents(classes: Uint8Array, width: number, height: number, labels?: Int32Array): Components {
  const out = labels ?? new Int32Array(width * height);
  out.fill(0);
  const queue = new Int32Array(width * height);
  const sizes: number[] = [0];
  let count = 0;
  for (let start = 0; start < classes.length; start++) {
    if (classes[start] === 0 || out[start] !== 0) continue;
    const cls = classes[start];
    const id = ++count;
    let head = 0;
    let tail = 0;
    queue[tail++] = start;
    out[start] = id;
    while (head < tail) {
      const i = queue[head++]!;
      const r = (i / width) | 0;
      const c = i - r * width;
      // Inline neighbour checks: this loop runs once per cell of grids up to 16 M cells.
      if (c > 0 && out[i - 1] === 0 && classes[i - 1] === cls) {
        out[i - 1] = id;
        queue[tail++] = i - 1;
      }
      if (c + 1 < width && out[i + 1] === 0 && classes[i + 1] === cls) {
        out[i + 1] = id;
        queue[tail++] = i + 1;
      }
      if (r > 0 && out[i - width] === 0 && classes[i - width] === cls) {
        out[i - width] = id;
        queue[tail++] = i - width;
      }
      if (r + 1 < height && out[i + width] === 0 && classes[i + width] === cls) {
        out[i + width] = id;
        queue[tail++] = i + width;
      }
    }
    sizes.push(tail);
  }
  return { labels: out, sizes: Int32Array.from(sizes), count };
}

/**
 * Region merging (like GDAL's sieve): patches smaller than minCells, smallest first, join their
 * largest neighbouring patch and take its class. A patch's size is the sum of its cells' weights
 * (the part of each inside the field; 1 each without weights), so a patch that is mostly outside
 * the field counts for what is left of it once clipped. What is still smaller than minCells once
 * merging is done has no classed neighbour at all (an island in nodata, water or the field's edge):
 * it becomes unzoned (class 0), unless that would leave no zone at all. Updates `classes` and
 * returns the final labelling.
 */
export function mergeSmallPatches(classes: Uint8Array, width: number, height: number, minCells: number, weights?: Float32Array): Components {
  const first = labelComponents(classes, width, height);
  if (minCells <= 0) return first;
  const { labels, count } = first;
  const size = patchSizes(first, weights);
  const labelClass = new Uint8Array(count + 1);
  for (let i = 0; i < labels.length; i++) labelClass[labels[i]!] = classes[i]!;
  const adjacent = smallPatchNeighbours(labels, width, height, size, minCells);
  const parent = mergePatches(size, adjacent, minCells);
  // Islands still below the minimum are left unzoned, unless every patch is one (a field smaller than the minimum zone).
  let kept = false;
  for (let l = 1; l <= count && !kept; l++) if (rootOf(parent, l) === l && size[l]! >= minCells) kept = true;
  for (let i = 0; i < classes.length; i++) {
    if (labels[i] === 0) continue;
    const root = rootOf(parent, labels[i]!);
    classes[i] = kept && size[root]! < minCells ? 0 : labelClass[root]!;
  }
  return labelComponents(classes, width, height, labels);
}

/** Each patch's size (index = label): the sum of its cells' weights, or its cell count without weights. */
function patchSizes({ labels, sizes, count }: Components, weights?: Float32Array): Float64Array {
  const size = new Float64Array(count + 1);
  if (weights) {
    for (let i = 0; i < labels.length; i++) size[labels[i]!]! += weights[i]!;
  } else size.set(sizes);
  return size;
}

/** Neighbour sets (index = label), only for patches smaller than minCells: those that may need merging. */
function smallPatchNeighbours(labels: Int32Array, width: number, height: number, size: Float64Array, minCells: number): Array<Set<number> | undefined> {
  const adjacent: Array<Set<number> | undefined> = new Array(size.length);
  const link = (a: number, b: number) => {
    if (size[a]! < minCells) (adjacent[a] ??= new Set()).add(b);
    if (size[b]! < minCells) (adjacent[b] ??= new Set()).add(a);
  };
  for (let r = 0; r < height; r++) {
    for (let c = 0; c < width; c++) {
      const i = r * width + c;
      const a = labels[i]!;
      if (a === 0) continue;
      if (c + 1 < width && labels[i + 1] !== 0 && labels[i + 1] !== a) link(a, labels[i + 1]!);
      if (r + 1 < height && labels[i + width] !== 0 && labels[i + width] !== a) link(a, labels[i + width]!);
    }
  }
  return adjacent;
}

/**
 * Merges each patch smaller than minCells, smallest first, into its largest neighbour, updating
 * `size` (for roots) and `adjacent`; returns the union-find parents that say which patch each joined.
 */
function mergePatches(size: Float64Array, adjacent: Array<Set<number> | undefined>, minCells: number): Int32Array {
  const count = size.length - 1;
  const parent = new Int32Array(count + 1).map((_, i) => i);
  const small = Array.from({ length: count }, (_, i) => i + 1).filter((l) => size[l]! < minCells);
  small.sort((a, b) => size[a]! - size[b]!);
  for (const l of small) {
    const root = rootOf(parent, l);
    if (size[root]! >= minCells) continue;
    const best = largestNeighbour(parent, adjacent[root], root, size);
    if (best === 0) continue;
    parent[root] = best;
    size[best]! += size[root]!;
    joinNeighbours(adjacent, root, best, size[best]! < minCells);
  }
  return parent;
}

/** The root of the largest merged patch among the neighbours, other than `root` itself; 0 when there is none. */
function largestNeighbour(parent: Int32Array, neighbours: Set<number> | undefined, root: number, size: Float64Array): number {
  let best = 0;
  for (const n of neighbours ?? []) {
    const rn = rootOf(parent, n);
    if (rn !== root && (best === 0 || size[rn]! > size[best]!)) best = rn;
  }
  return best;
}

/** After `root` joined `best`: best's neighbours are the union of both, kept only while best is still small. */
function joinNeighbours(adjacent: Array<Set<number> | undefined>, root: number, best: number, stillSmall: boolean): void {
  // Keep the bigger set and fold the smaller in.
  const [big, other] = (adjacent[best]?.size ?? 0) >= (adjacent[root]?.size ?? 0) ? [adjacent[best], adjacent[root]] : [adjacent[root], adjacent[best]];
  if (stillSmall) {
    const merged = big ?? new Set<number>();
    for (const n of other ?? []) merged.add(n);
    adjacent[best] = merged;
  }
  adjacent[root] = undefined;
}

/** The root of x in the union-find parents, halving the path on the way. */
function rootOf(parent: Int32Array, x: number): number {
  while (parent[x] !== x) {
    parent[x] = parent[parent[x]!]!;
    x = parent[x]!;
  }
  return x;
}
