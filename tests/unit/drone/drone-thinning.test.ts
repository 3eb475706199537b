import { describe, expect, it } from 'vitest';
import type { PairMatch } from '@/lib/drone/features';
import { MAX_TIE_POINTS_PER_PHOTO, ThinnedAsMatched, thinnedPairs } from '@/lib/drone/thinning';

const pair = (i: number, j: number, points: number): PairMatch => ({
  i, j, pts: Float64Array.from({ length: 4 * points }, (_, k) => k), logRatio: [0], gpsDisagreementM: 0, rotation: 0,
});

describe('thinnedPairs', () => {
  it('leaves a survey under its budget untouched', () => {
    const pairs = [pair(0, 1, 483), pair(1, 2, 17)];
    expect(thinnedPairs(pairs, 3)).toBe(pairs);
  });

  // 300 textured photos of one spot: 8,614 pairs of 1,544 points, 13.3 M in all.
  it('thins a survey over its budget to about the budget, a feature kept or dropped in every pair alike, 50 points a pair at least', () => {
    let seed = 3;
    const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    // Photo 1's features at (x, y) are matched with photo 0's and with photo 2's, at other pixels there.
    const features = Array.from({ length: 30_000 }, () => [Math.round(rand() * 4000), Math.round(rand() * 3000)]);
    const matched = (i: number, j: number, at: (f: number[]) => number[]): PairMatch => ({
      i, j, pts: Float64Array.from(features.flatMap(at)), logRatio: [0], gpsDisagreementM: 0, rotation: 0,
    });
    const pairs = [
      matched(0, 1, ([x, y]) => [x! + 7, y! - 3, x!, y!]),
      matched(1, 2, ([x, y]) => [x!, y!, x! - 11, y! + 5]),
      pair(0, 2, 40),
      pair(0, 2, 60),
    ];
    const thinned = thinnedPairs(pairs, 3);
    const kept = thinned.map((p) => p.pts.length / 4);
    // 60,100 points for a budget of 15,000: about a quarter kept of each large pair; the smallest whole.
    expect(kept[0]! + kept[1]!).toBeGreaterThan(0.9 * 3 * MAX_TIE_POINTS_PER_PHOTO * (60_000 / 60_100));
    expect(kept[0]! + kept[1]!).toBeLessThan(1.1 * 3 * MAX_TIE_POINTS_PER_PHOTO);
    expect(thinned[2]).toBe(pairs[2]);
    // A weak pair keeps 50 of its 60 points (a quarter would leave 15): its photos stay tied.
    expect(thinned[3]!.pts.length / 4).toBe(50);
    // Photo 1's features kept in one pair are kept in the other where the other end is kept too.
    const inFirst = new Set<string>(), inSecond = new Set<string>();
    for (let q = 0; q < thinned[0]!.pts.length; q += 4) inFirst.add(`${thinned[0]!.pts[q + 2]} ${thinned[0]!.pts[q + 3]}`);
    for (let q = 0; q < thinned[1]!.pts.length; q += 4) inSecond.add(`${thinned[1]!.pts[q]} ${thinned[1]!.pts[q + 1]}`);
    const shared = [...inFirst].filter((f) => inSecond.has(f)).length;
    // Independent choices would share a quarter of each; features chosen once share half.
    expect(shared / inFirst.size).toBeGreaterThan(0.4);
    expect(thinned[0]).toMatchObject({ i: 0, j: 1, logRatio: [0] });
  });
});

describe('ThinnedAsMatched', () => {
  let seed = 11;
  const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  /**
   * Pairs among `photos` photos of one spot, pair k of `points(k)` matches between random pixels of a
   * 4000 x 3000 frame, every fifth point the one before it again (equal ranks).
   */
  const oneSpot = (photos: number, pairsPerPhoto: number, points: (k: number) => number): PairMatch[] =>
    Array.from({ length: photos * pairsPerPhoto }, (_, k) => {
      const i = k % photos, j = (i + 1 + (k % (photos - 1))) % photos;
      const pts = new Float64Array(4 * points(k));
      for (let q = 0; q < pts.length; q++) pts[q] = q >= 16 && q % 20 >= 16 ? pts[q - 4]! : Math.round(rand() * (q % 2 ? 3000 : 4000) * 4) / 4;
      return { i: Math.min(i, j), j: Math.max(i, j), pts, logRatio: [0], gpsDisagreementM: 0, rotation: 0 };
    });
  const shuffled = <T>(items: T[]) => items.map((item, k) => ({ item, k, key: rand() })).sort((a, b) => a.key - b.key);
  const plain = (ps: PairMatch[]) => ps.map((p) => ({ ...p, pts: Array.from(p.pts) }));

  it('holds a survey within the bound whole, the pairs themselves in the candidates\' order', () => {
    seed = 11;
    const pairs = oneSpot(10, 4, () => 300);
    const held = new ThinnedAsMatched(10);
    for (const { item, k } of shuffled(pairs)) held.add(k, item);
    held.pairs().forEach((p, k) => expect(p).toBe(pairs[k]));
    expect(held.pairs()).toHaveLength(pairs.length);
    expect(held.matched).toBe(40 * 300);
  });

  it('holds about twice the adjustments\' budget of photos all of one spot, and ends with what thinning every match gives, whatever the order pairs came in', () => {
    seed = 12;
    // 20 photos, 40 pairs each, most of 1,000-1,800 points, some of 49-51: 0.96 M matched for a budget of 100,000.
    const photos = 20, pairs = oneSpot(photos, 40, (k) => (k % 7 === 0 ? 49 + (k % 3) : 1000 + (k % 1000)));
    const budget = photos * MAX_TIE_POINTS_PER_PHOTO;
    const largest = Math.max(...pairs.map((p) => p.pts.length / 4));
    const expected = plain(thinnedPairs(pairs, photos));
    for (const order of [shuffled(pairs), shuffled(pairs)]) {
      const held = new ThinnedAsMatched(photos);
      let most = 0;
      for (const { item, k } of order) {
        // What it holds with this pair taken, before it thins.
        most = Math.max(most, held.held + item.pts.length / 4);
        held.add(k, item);
      }
      expect(held.matched).toBe(pairs.reduce((s, p) => s + p.pts.length / 4, 0));
      expect(held.matched).toBeGreaterThan(9 * budget);
      expect(most).toBeLessThanOrEqual(2 * budget + largest);
      // The seam check and the gains get the adjustments' points, the same in either order; thinning them again changes nothing.
      expect(plain(held.pairs())).toEqual(expected);
      expect(plain(thinnedPairs(held.pairs(), photos, held.matched))).toEqual(expected);
    }
    // The pairs of 49-51 points keep all of theirs, or 50 at least (more where ranks tie at the 50th or lie under the threshold).
    thinnedPairs(pairs, photos).forEach((p, k) => {
      if (k % 7 === 0) expect(p.pts.length / 4).toBeGreaterThanOrEqual(Math.min(50, pairs[k]!.pts.length / 4));
    });
  });
});
