// The one linear solver of the drone adjustments (adjust.ts, bundle.ts): their normal equations.
/**
 * Solves S x = b (S symmetric positive definite, row-major m×m) in place, by Cholesky within S's
 * envelope: the factor is zero left of each row's first non-zero, so those terms are skipped. Rows of
 * photos far apart along the flight share nothing, and the work falls from m³/6 to about m·band²/2;
 * the terms skipped are zeros, so the answer is the one a dense Cholesky gives. Throws when S is not
 * positive definite.
 */
export function solveSpd(S: Float64Array, b: Float64Array, m: number): Float64Array {
  const first = new Int32Array(m);
  for (let i = 0; i < m; i++) {
    let k = 0;
    while (k < i && S[i * m + k] === 0) k++;
    first[i] = k;
  }
  for (let j = 0; j < m; j++) {
    const rj = j * m, fj = first[j]!;
    let d = S[rj + j]!;
    for (let k = fj; k < j; k++) d -= S[rj + k]! ** 2;
    if (!(d > 0)) throw new Error('adjustment is singular');
    const ljj = Math.sqrt(d);
    S[rj + j] = ljj;
    for (let i = j + 1; i < m; i++) {
      const fi = first[i]!;
      if (fi > j) continue;
      const ri = i * m;
      let s = S[ri + j]!;
      for (let k = Math.max(fi, fj); k < j; k++) s -= S[ri + k]! * S[rj + k]!;
      S[ri + j] = s / ljj;
    }
  }
  const y = new Float64Array(m);
  for (let i = 0; i < m; i++) {
    let s = b[i]!;
    for (let k = first[i]!; k < i; k++) s -= S[i * m + k]! * y[k]!;
    y[i] = s / S[i * m + i]!;
  }
  const x = new Float64Array(m);
  for (let i = m - 1; i >= 0; i--) {
    let s = y[i]!;
    for (let k = i + 1; k < m; k++) if (first[k]! <= i) s -= S[k * m + i]! * x[k]!;
    x[i] = s / S[i * m + i]!;
  }
  return x;
}
