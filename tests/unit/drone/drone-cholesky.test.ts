import { describe, expect, it } from 'vitest';
import { solveSpd } from '@/lib/drone/cholesky';

/** Cholesky over every term, zeros included: the definition solveSpd must keep to the bit. */
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

describe('solveSpd', () => {
  it('gives what a dense Cholesky gives, to the bit, on a banded system with rows coupled all across (as adjustPlacements\'s scale builds)', () => {
    let seed = 5;
    const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32) - 0.5;
    const m = 120, band = 9;
    // A = Bᵀ B with B banded, plus a rank-one coupling of every 6th unknown (rows whose envelope
    // starts at the first column, amid banded ones): positive definite.
    const N = new Float64Array(m * m), r = new Float64Array(m);
    for (let k = 0; k < m; k++) {
      const row = new Float64Array(m);
      for (let j = k; j < Math.min(m, k + band); j++) row[j] = rand();
      row[k] = row[k]! + 3;
      for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) N[i * m + j] = N[i * m + j]! + row[i]! * row[j]!;
      r[k] = rand();
    }
    for (let i = 0; i < m; i += 6) for (let j = 0; j < m; j += 6) N[i * m + j] = N[i * m + j]! + 0.5;
    const x = solveSpd(Float64Array.from(N), r, m);
    expect(x).toEqual(denseSolve(N, r, m));
    for (let i = 0; i < m; i++) {
      let s = 0;
      for (let j = 0; j < m; j++) s += N[i * m + j]! * x[j]!;
      expect(s).toBeCloseTo(r[i]!, 9);
    }
  });

  it('throws on a system that is not positive definite', () => {
    expect(() => solveSpd(Float64Array.of(1, 2, 2, 1), Float64Array.of(1, 1), 2)).toThrow('adjustment is singular');
  });
});
