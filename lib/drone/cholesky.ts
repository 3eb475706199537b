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
}

/** A zero matrix with row i held from column first[i] (at most i); throws EnvelopeTooLarge past the bound. */
export function emptySkyline(first: Int32Array): Skyline {
  const m = first.length, start = new Int32Array(m + 1);
  let entries = 0;
  for (let i = 0; i < m; i++) {
    if (first[i]! < 0 || first[i]! > i) throw new RangeError(`row ${i} cannot start at column ${first[i]}`);
    entries += i - first[i]! + 1;
    if (entries > MAX_ENVELOPE_ENTRIES) throw new EnvelopeTooLarge(envelopeEntries(first), m);
    start[i + 1] = entries;
  }
  return { m, first, start, values: new Float64Array(entries) };
}

function envelopeEntries(first: Int32Array): number {
  let entries = 0;
  for (let i = 0; i < first.length; i++) entries += i - first[i]! + 1;
  return entries;
}

/** Where entry (i, j), j ≤ i, lies in `values`; a column left of the row's envelope is a caller's error. */
export function at(S: Skyline, i: number, j: number): number {
  const f = S.first[i]!;
  if (j < f || j > i) throw new RangeError(`entry (${i}, ${j}) lies outside the envelope`);
  return S.start[i]! + j - f;
}

/** Adds v to entry (i, j) of the lower triangle (j ≤ i); the upper one mirrors it and is not kept. */
export function addLower(S: Skyline, i: number, j: number, v: number): void {
  const k = at(S, i, j);
  S.values[k] = S.values[k]! + v;
}

/**
 * Each row's first column for unknowns grouped in blocks of `size` (a photo's), where `reach[p]` is
 * the lowest block that block p is coupled with (at most p).
 */
export function blockFirst(reach: Int32Array, size: number, extraRows = 0): Int32Array {
  const first = new Int32Array(reach.length * size + extraRows);
  for (let p = 0; p < reach.length; p++) first.fill(reach[p]! * size, p * size, (p + 1) * size);
  return first;
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

/** x from the factor (factorSkyline) and b: forward, then back substitution. */
export function substituteSkyline(S: Skyline, b: Float64Array): Float64Array {
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

/** For each of n blocks, the lowest block a pair couples it with (itself at most): blockFirst's `reach`. */
export function lowestCoupled(n: number, pairs: readonly { i: number; j: number }[]): Int32Array {
  const reach = Int32Array.from({ length: n }, (_, p) => p);
  for (const { i, j } of pairs) {
    if (j < reach[i]!) reach[i] = j;
    if (i < reach[j]!) reach[j] = i;
  }
  return reach;
}
