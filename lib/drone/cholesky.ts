// The one linear solver of the drone adjustments (adjust.ts, bundle.ts): their normal equations,
// symmetric positive definite, kept within their envelope (skyline storage): row i holds
// columns first[i]..i of the lower triangle only. The drone adjustments couple a photo with the photos
// it overlaps, so in flight order the envelope is a band, and memory grows with photos × band rather
// than photos²: a dense matrix of 5,000 photos' poses is 7.2 GB, allocated outside the thread's heap cap.

/** The envelope's largest size in entries (256 MB of Float64): far above any survey flown in lines. */
export const MAX_ENVELOPE_ENTRIES = 32 * 1024 ** 2;

/** A system whose envelope would pass MAX_ENVELOPE_ENTRIES: photos that all overlap one another. */
export class EnvelopeTooLarge extends Error {
  constructor(readonly entries: number, readonly unknowns: number) {
    super(`an adjustment of ${unknowns} unknowns needs ${entries} matrix entries, over ${MAX_ENVELOPE_ENTRIES}`);
    this.name = 'EnvelopeTooLarge';
  }
}

export interface Skyline {
  m: number;
  /** Each row's first column held. */
  first: Int32Array;
  /** Where each row's first column lies in `values`. */
  start: Int32Array;
  values: Float64Array;
  /** Each unknown's row: unknowns are renumbered so that the envelope stays small (blockSkyline). */
  row: Int32Array;
}

/**
 * A zero matrix with row i held from column first[i] (at most i), unknown k in row `row[k]` (all in
 * their own order when left out); throws EnvelopeTooLarge past the bound.
 */
export function emptySkyline(first: Int32Array, row?: Int32Array): Skyline {
  const m = first.length, start = new Int32Array(m + 1);
  let entries = 0;
  for (let i = 0; i < m; i++) {
    if (first[i]! < 0 || first[i]! > i) throw new RangeError(`row ${i} cannot start at column ${first[i]}`);
    entries += i - first[i]! + 1;
    start[i + 1] = entries;
  }
  if (entries > MAX_ENVELOPE_ENTRIES) throw new EnvelopeTooLarge(entries, m);
  return { m, first, start, values: new Float64Array(entries), row: row ?? Int32Array.from({ length: m }, (_, k) => k) };
}

/** Where entry (r, c) of the rows, c ≤ r, lies in `values`; a column left of the row's envelope is a caller's error. */
export function at(S: Skyline, r: number, c: number): number {
  const f = S.first[r]!;
  if (c < f || c > r) throw new RangeError(`entry (${r}, ${c}) lies outside the envelope`);
  return S.start[r]! + c - f;
}

/**
 * Adds v to the entry of unknowns i and j, kept once for both (i, j) and (j, i): callers add each
 * pair of unknowns once (j ≤ i, say), as a dense matrix's lower triangle.
 */
export function addLower(S: Skyline, i: number, j: number, v: number): void {
  const a = S.row[i]!, b = S.row[j]!;
  const k = a >= b ? at(S, a, b) : at(S, b, a);
  S.values[k] = S.values[k]! + v;
}

/**
 * A zero system of `blocks` blocks of `size` unknowns (a photo's) and `extra` unknowns after them
 * coupled with every block. `groups` lists blocks whose unknowns share terms (a pair's two photos,
 * a track's photos). The blocks take the order (reverse Cuthill–McKee over the groups) that keeps
 * the envelope smaller than their own; their own when it does not (a survey flown in lines).
 */
export function blockSkyline(blocks: number, size: number, groups: readonly ArrayLike<number>[], extra = 0): Skyline {
  const own = Int32Array.from({ length: blocks }, (_, k) => k);
  const reordered = reverseCuthillMcKee(blocks, groups);
  const ownReach = lowestCoupled(blocks, groups, own), reorderedReach = lowestCoupled(blocks, groups, reordered);
  const [position, reach] = envelopeBlocks(reorderedReach) < envelopeBlocks(ownReach) ? [reordered, reorderedReach] : [own, ownReach];
  const first = new Int32Array(blocks * size + extra), row = new Int32Array(blocks * size + extra);
  for (let p = 0; p < blocks; p++) first.fill(reach[p]! * size, p * size, (p + 1) * size);
  for (let k = 0; k < blocks; k++) for (let a = 0; a < size; a++) row[k * size + a] = position[k]! * size + a;
  for (let e = blocks * size; e < row.length; e++) row[e] = e;
  return emptySkyline(first, row);
}

/** Blocks held left of the diagonal and on it, for `reach` by position. */
const envelopeBlocks = (reach: Int32Array) => reach.reduce((s, r, p) => s + p - r + 1, 0);

/** For each position, the lowest position its block shares a group with (its own at most). */
function lowestCoupled(blocks: number, groups: readonly ArrayLike<number>[], position: Int32Array): Int32Array {
  const reach = Int32Array.from({ length: blocks }, (_, p) => p);
  for (const g of groups) {
    let lowest = blocks;
    for (let k = 0; k < g.length; k++) lowest = Math.min(lowest, position[g[k]!]!);
    for (let k = 0; k < g.length; k++) reach[position[g[k]!]!] = Math.min(reach[position[g[k]!]!]!, lowest);
  }
  return reach;
}

/**
 * Each block's position in the reverse Cuthill–McKee order of the graph whose edges join a group's
 * blocks one after another: breadth first from a block of least degree, neighbours by degree.
 */
function reverseCuthillMcKee(blocks: number, groups: readonly ArrayLike<number>[]): Int32Array {
  const neighbours = Array.from({ length: blocks }, () => [] as number[]);
  for (const g of groups) for (let k = 1; k < g.length; k++) {
    neighbours[g[k - 1]!]!.push(g[k]!);
    neighbours[g[k]!]!.push(g[k - 1]!);
  }
  const byDegree = (a: number, b: number) => neighbours[a]!.length - neighbours[b]!.length || a - b;
  const order: number[] = [], seen = new Uint8Array(blocks);
  for (const start of [...Array(blocks).keys()].sort(byDegree)) {
    if (seen[start]) continue;
    seen[start] = 1;
    for (let q = order.push(start) - 1; q < order.length; q++) {
      const next: number[] = [];
      for (const v of neighbours[order[q]!]!) {
        if (seen[v]) continue;
        seen[v] = 1;
        next.push(v);
      }
      order.push(...next.sort(byDegree));
    }
  }
  const position = new Int32Array(blocks);
  order.forEach((block, k) => (position[block] = blocks - 1 - k));
  return position;
}

/**
 * Solves S x = b by Cholesky within the envelope, S overwritten by its factor. Row by row, each
 * entry with the same sums in the same order as a dense Cholesky's: the terms left of a row's first
 * non-zero are exact zeros there, so the answer is the dense one to the bit. Throws when S is not
 * positive definite.
 */
export function solveSkyline(S: Skyline, b: Float64Array): Float64Array {
  factorSkyline(S);
  return substituteSkyline(S, b);
}

/** S = L Lᵀ in place. */
export function factorSkyline(S: Skyline): void {
  const { m, first, start, values: L } = S;
  for (let i = 0; i < m; i++) {
    const fi = first[i]!, ri = start[i]! - fi;
    for (let j = fi; j < i; j++) {
      const fj = first[j]!, rj = start[j]! - fj;
      let s = L[ri + j]!;
      for (let k = Math.max(fi, fj); k < j; k++) s -= L[ri + k]! * L[rj + k]!;
      L[ri + j] = s / L[rj + j]!;
    }
    let d = L[ri + i]!;
    for (let k = fi; k < i; k++) d -= L[ri + k]! ** 2;
    if (!(d > 0)) throw new Error('adjustment is singular');
    L[ri + i] = Math.sqrt(d);
  }
}

/** x from the factor (factorSkyline) and b, both by unknown. */
export function substituteSkyline(S: Skyline, b: Float64Array): Float64Array {
  const inRows = new Float64Array(S.m);
  S.row.forEach((r, k) => (inRows[r] = b[k]!));
  const x = substituteRows(S, inRows);
  return Float64Array.from(S.row, (r) => x[r]!);
}

/** x from the factor and b, both in the rows' order: forward, then back substitution. */
export function substituteRows(S: Skyline, b: Float64Array): Float64Array {
  const { m, first, start, values: L } = S;
  const y = new Float64Array(m);
  for (let i = 0; i < m; i++) {
    const fi = first[i]!, ri = start[i]! - fi;
    let s = b[i]!;
    for (let k = fi; k < i; k++) s -= L[ri + k]! * y[k]!;
    y[i] = s / L[ri + i]!;
  }
  const x = new Float64Array(m);
  for (let i = m - 1; i >= 0; i--) {
    let s = y[i]!;
    for (let k = i + 1; k < m; k++) if (first[k]! <= i) s -= L[start[k]! - first[k]! + i]! * x[k]!;
    x[i] = s / L[start[i]! - first[i]! + i]!;
  }
  return x;
}
