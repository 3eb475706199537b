// The adjustments' one linear solver: Cholesky within the envelope, the dense answer to the bit.
import { describe, expect, it } from 'vitest';
import { adjustPlacements } from '@/lib/drone/adjust';
import { withinEnvelope } from '@/lib/drone/ortho';
import { EnvelopeTooLarge, MAX_ENVELOPE_ENTRIES, addLower, blockSkyline, emptySkyline, solveSkyline } from '@/lib/drone/cholesky';

/** Cholesky over every term, zeros included: the definition the envelope's solve must keep to the bit. */
function denseSolve(N: Float64Array, r: Float64Array, m: number): Float64Array {
  const L = Float64Array.from(N);
  for (let j = 0; j < m; j++) {
    let d = L[j * m + j]!;
    for (let k = 0; k < j; k++) d -= L[j * m + k]! ** 2;
    L[j * m + j] = Math.sqrt(d);
    for (let i = j + 1; i < m; i++) {
      let s = L[i * m + j]!;
      for (let k = 0; k < j; k++) s -= L[i * m + k]! * L[j * m + k]!;
      L[i * m + j] = s / L[j * m + j]!;
    }
  }
  const y = new Float64Array(m), x = new Float64Array(m);
  for (let i = 0; i < m; i++) {
    let s = r[i]!;
    for (let k = 0; k < i; k++) s -= L[i * m + k]! * y[k]!;
    y[i] = s / L[i * m + i]!;
  }
  for (let i = m - 1; i >= 0; i--) {
    let s = y[i]!;
    for (let k = i + 1; k < m; k++) s -= L[k * m + i]! * x[k]!;
    x[i] = s / L[i * m + i]!;
  }
  return x;
}

/** A positive definite system: Bᵀ B with B banded, plus a coupling of every 6th unknown with all the others'. */
function bandedSystem(m: number, band: number) {
  let seed = 5;
  const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32) - 0.5;
  const N = new Float64Array(m * m), r = new Float64Array(m);
  for (let k = 0; k < m; k++) {
    const row = new Float64Array(m);
    for (let j = k; j < Math.min(m, k + band); j++) row[j] = rand();
    row[k] = row[k]! + 3;
    for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) N[i * m + j] = N[i * m + j]! + row[i]! * row[j]!;
    r[k] = rand();
  }
  for (let i = 0; i < m; i += 6) for (let j = 0; j < m; j += 6) N[i * m + j] = N[i * m + j]! + 0.5;
  return { N, r };
}

/** N's lower triangle in an envelope starting `slack` columns left of each row's first non-zero. */
function skylineOf(N: Float64Array, m: number, slack: number) {
  const first = new Int32Array(m);
  for (let i = 0; i < m; i++) {
    let k = 0;
    while (k < i && N[i * m + k] === 0) k++;
    first[i] = Math.max(0, k - slack);
  }
  const S = emptySkyline(first);
  for (let i = 0; i < m; i++) for (let j = first[i]!; j <= i; j++) addLower(S, i, j, N[i * m + j]!);
  return S;
}

describe('solveSkyline', () => {
  it('gives what a dense Cholesky gives, to the bit, whether the envelope is tight or holds zeros', () => {
    const m = 120;
    const { N, r } = bandedSystem(m, 9);
    const dense = denseSolve(N, r, m);
    for (const slack of [0, 5, m]) expect(solveSkyline(skylineOf(N, m, slack), r)).toEqual(dense);
    for (let i = 0; i < m; i++) {
      let s = 0;
      for (let j = 0; j < m; j++) s += N[i * m + j]! * dense[j]!;
      expect(s).toBeCloseTo(r[i]!, 9);
    }
  });

  it('keeps a banded system in photos × band entries, not photos²', () => {
    const first = Int32Array.from({ length: 30_000 }, (_, i) => Math.max(0, i - 479));
    expect(emptySkyline(first).values.length).toBe(30_000 * 480 - (479 * 480) / 2);
  });

  // 5,000 photos that all see one another: 7.2 GB dense, allocated outside a thread's heap cap.
  it('refuses an envelope over its bound before allocating it, and entries outside the envelope', () => {
    const dense = (m: number) => new Int32Array(m);
    expect(() => emptySkyline(dense(30_000))).toThrow(EnvelopeTooLarge);
    expect(() => emptySkyline(dense(30_000))).toThrow(`an adjustment of 30000 unknowns needs 450015000 matrix entries, over ${MAX_ENVELOPE_ENTRIES}`);
    expect(emptySkyline(dense(8_000)).values.length).toBe(32_004_000);
    const S = emptySkyline(Int32Array.of(0, 1, 1));
    expect(() => addLower(S, 1, 0, 1)).toThrow(RangeError);
    expect(() => addLower(S, 2, 0, 1)).toThrow(RangeError);
  });

  it('throws on a system that is not positive definite', () => {
    const S = emptySkyline(Int32Array.of(0, 0));
    addLower(S, 0, 0, 1); addLower(S, 1, 0, 2); addLower(S, 1, 1, 1);
    expect(() => solveSkyline(S, Float64Array.of(1, 1))).toThrow('adjustment is singular');
  });
});

describe('the order of the photos', () => {
  const n = 2100;
  const priors = Array.from({ length: n }, (_, k) => ({ a: 0.03, b: 0, tx: k * 0.01, ty: 0 }));
  const centres = priors.map(() => [2000, 1500] as [number, number]);
  const matched = (i: number, j: number) => ({ i, j, pts: Float64Array.of(100, 100, 100, 100), logRatio: [0], gpsDisagreementM: 0, rotation: 0 });
  const opts = { gpsSigmaM: 2, matchSigmaM: 0.05, scaleSigma: 0.02 };

  // In their own order every photo's rows would reach the first column (35 M entries, over the bound):
  // a second pass across the first one's lines, or photos named out of flight order, couple so.
  it('is chosen so that the envelope stays small, and the answer is the same in any numbering', () => {
    const star = Array.from({ length: n - 1 }, (_, k) => matched(0, k + 1));
    expect(adjustPlacements(priors, centres, star, opts).placements).toHaveLength(n);
    const S = blockSkyline(n, 4, star.map((p) => [p.i, p.j]));
    expect(S.values.length).toBeLessThan(20 * 16 * n);
    // A line of photos numbered at random gives the placements the line in its own order gives.
    let seed = 21;
    const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    const few = 300, shuffle = Array.from({ length: few }, (_, k) => k).sort(() => rand() - 0.5);
    const line = Array.from({ length: few - 1 }, (_, k) => ({ ...matched(k, k + 1), pts: Float64Array.of(100 + k, 200, 90, 210 - k) }));
    const inOrder = adjustPlacements(priors.slice(0, few), centres.slice(0, few), line, opts).placements;
    const shuffledPriors = priors.slice(0, few).map((_, k) => priors[shuffle.indexOf(k)]!);
    const shuffled = adjustPlacements(shuffledPriors, centres.slice(0, few), line.map((p) => ({ ...p, i: shuffle[p.i]!, j: shuffle[p.j]! })), opts).placements;
    inOrder.forEach((p, k) => {
      const q = shuffled[shuffle[k]!]!;
      expect(Math.abs(q.tx - p.tx) + Math.abs(q.ty - p.ty)).toBeLessThan(1e-6);
    });
  });

  // 2,100 photos that all see one another: 35 M entries whatever their order.
  it('cannot help photos that all see one another: the survey\'s final error, naming their number, before anything is allocated', () => {
    const all = [Int32Array.from({ length: n }, (_, k) => k)];
    expect(() => blockSkyline(n, 4, all)).toThrow(EnvelopeTooLarge);
    expect(() => withinEnvelope(n, () => blockSkyline(n, 4, all))).toThrow(expect.objectContaining({ name: 'AppError', key: 'drone_photos_overlap_too_much', params: { photos: n } }));
  });
});
