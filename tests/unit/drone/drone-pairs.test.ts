import { describe, expect, it } from 'vitest';
import { candidatePairs, MAX_PAIRS_PER_PHOTO } from '@/lib/drone/pairs';
import type { Placed } from '@/lib/drone/placed';

/** A 100 x 75 m photo footprint (1 m a pixel, north up) centred on (e, n). */
const at = (e: number, n: number): Placed => ({
  capture: { id: `${e} ${n}`, photos: [], main: undefined as never }, width: 100, height: 75, centre: [50, 37.5], gsd: 1, heightM: 100, headingDeg: 0,
  prior: { a: 1, b: 0, tx: e, ty: n },
});

const degrees = (n: number, pairs: [number, number][]) => {
  const d = new Array<number>(n).fill(0);
  for (const [i, j] of pairs) { d[i]!++; d[j]!++; }
  return d;
};

describe('candidatePairs', () => {
  it('keeps every overlapping pair of a survey flown as usual, in (i, j) order', () => {
    // Three lines of ten photos, 20 m apart along the line and 30 m across: each overlaps some 20 others.
    const placed = [0, 1, 2].flatMap((line) => Array.from({ length: 10 }, (_, k) => at(k * 20, line * 30)));
    const pairs = candidatePairs(placed);
    const all: [number, number][] = [];
    for (let i = 0; i < placed.length; i++) for (let j = i + 1; j < placed.length; j++) {
      const dx = Math.abs(placed[i]!.prior.tx - placed[j]!.prior.tx), dy = Math.abs(placed[i]!.prior.ty - placed[j]!.prior.ty);
      if ((100 - dx) * (75 - dy) > 0.2 * 7500 && dx < 100 && dy < 75) all.push([i, j]);
    }
    expect(pairs).toEqual(all);
    expect(Math.max(...degrees(placed.length, pairs))).toBeLessThanOrEqual(MAX_PAIRS_PER_PHOTO);
  });

  it('keeps each photo\'s most overlapping neighbours when all photos see one spot, so matching stays linear in the photos', () => {
    // 300 photos over a 100 x 110 m grid of one spot: every pair overlaps (44,850 pairs, hours of matching).
    const placed = Array.from({ length: 300 }, (_, k) => at((k % 15) * 7, Math.floor(k / 15) * 5.5));
    const pairs = candidatePairs(placed);
    const d = degrees(placed.length, pairs);
    expect(pairs.length).toBeLessThanOrEqual(300 * MAX_PAIRS_PER_PHOTO);
    expect(Math.min(...d)).toBeGreaterThanOrEqual(MAX_PAIRS_PER_PHOTO);
    // The nearest neighbours (the largest overlaps) are among them: photo 0's right and upper ones.
    expect(pairs).toContainEqual([0, 1]);
    expect(pairs).toContainEqual([0, 15]);
    expect(pairs.every(([i, j]) => i < j)).toBe(true);
  });
});
