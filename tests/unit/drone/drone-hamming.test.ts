import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { descriptorSearch } from '@/lib/drone/hamming';
import { assembleHamming, WASM_PATH } from '@/lib/drone/hamming-cli';

/** Set bits of a ^ b over descriptor ia of `a` and ib of `b`, one bit at a time. */
function hamming(a: Uint8Array, ia: number, b: Uint8Array, ib: number): number {
  let d = 0;
  for (let k = 0; k < 32; k++) for (let x = a[32 * ia + k]! ^ b[32 * ib + k]!; x; x >>= 1) d += x & 1;
  return d;
}

describe('descriptorSearch', () => {
  it('runs the bytes hamming.wat assembles to (npm run -s drone:hamming writes them)', async () => {
    expect(Buffer.from(await assembleHamming()).equals(readFileSync(WASM_PATH))).toBe(true);
  });

  it('finds the nearest two as comparing every bit does, over several runs of candidates and within a radius', () => {
    let seed = 11;
    const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    // 5,000 candidates (more than the kernel's first page of memory); every 7th is a query with a few bits
    // flipped, and every 50th a copy of the one before (ties for the best).
    const queries = 40, count = 5000;
    const search = descriptorSearch(queries, count);
    for (let k = 0; k < 32 * count; k++) search.candidates[k] = (rand() * 256) | 0;
    for (let m = 0; m < count; m++) search.ground.set([rand() * 100, rand() * 100], 2 * m);
    for (let q = 0; q < queries; q++) {
      for (let k = 0; k < 32; k++) search.queries[32 * q + k] = search.candidates[32 * 7 * q + k]! ^ (rand() < 0.05 ? 1 << ((rand() * 8) | 0) : 0);
    }
    for (let m = 50; m < count; m += 50) search.candidates.copyWithin(32 * m, 32 * (m - 1), 32 * m);
    const runs = [[0, 1200], [1200, 1201], [1201, 1201], [1201, 5000]] as const;
    for (const [e, n, r2, whole] of [[50, 50, Infinity, true], [50, 50, 900, false], [10, 90, 400, false]] as const) {
      for (let q = 0; q < queries; q++) {
        search.reset();
        for (const [first, end] of runs) search.search(q, first, end, e, n, r2, whole);
        let best = 257, second = 257, bestIndex = -1;
        for (let m = 0; m < count; m++) {
          if (!whole && (search.ground[2 * m]! - e) ** 2 + (search.ground[2 * m + 1]! - n) ** 2 > r2) continue;
          const d = hamming(search.queries, q, search.candidates, m);
          if (d < best) { second = best; best = d; bestIndex = m; } else if (d < second) second = d;
        }
        expect([search.best, search.second, search.bestIndex]).toEqual([best, second, bestIndex]);
      }
    }
  });

  it('answers no candidate when a run is empty', () => {
    const search = descriptorSearch(1, 1);
    search.reset();
    search.search(0, 0, 0);
    expect([search.best, search.second, search.bestIndex]).toEqual([257, 257, -1]);
  });
});
