// Thinning matched points: a survey whose photos all see one another (photos of one spot) matches
// millions of points, more than the adjustments need or the memory should hold. A point is kept when
// both its features are, each kept by a hash of its photo and pixel, so a feature is kept or dropped
// in every pair alike and the tracks through it stay whole.
import type { PairMatch } from './features';
import { featurePixel, murmurFinal } from './tracks';

/**
 * Matched points the adjustments take at most, per photo of the survey. Pairs of a survey flown in
 * lines hold some 20-500 (brighton_beach: 6,306 over 18 photos); 300 textured photos of one spot held
 * 13.3 M, and the adjustments spent minutes and GBs on them.
 */
export const MAX_TIE_POINTS_PER_PHOTO = 5000;
/**
 * Points held while matching, as a multiple of the adjustments' budget: beyond it the pairs held are
 * thinned (ThinnedAsMatched), so that matching holds about this many whatever the survey.
 */
const HELD_BUDGETS = 2;
/** Points a thinned pair keeps at the least (all, when it holds no more): its photos stay tied. */
const MIN_THINNED_POINTS = 50;
/** Every rank is below it: nothing is thinned. */
const KEEP_ALL = 2 ** 32;

const pointsOf = (p: PairMatch) => p.pts.length / 4;
/** The rank below which a point is kept for `budget` of `matched` points: both features kept with this chance, the point with its square. */
const keptBelow = (budget: number, matched: number) => Math.sqrt(budget / matched) * KEEP_ALL;

/**
 * The pairs thinned, when the survey matched more than MAX_TIE_POINTS_PER_PHOTO points a photo
 * (`matched`, before any thinning as they came: ThinnedAsMatched), to about that many. A pair left
 * with fewer than MIN_THINNED_POINTS keeps those of the lowest ranks, which rank features alike in
 * every pair. The same pairs, untouched, otherwise.
 */
export function thinnedPairs(pairs: PairMatch[], photos: number, matched = pairs.reduce((s, p) => s + pointsOf(p), 0)): PairMatch[] {
  const budget = photos * MAX_TIE_POINTS_PER_PHOTO;
  if (matched <= budget) return pairs;
  const below = keptBelow(budget, matched);
  return pairs.map((p) => thinnedPair(p, below));
}

/**
 * Matched pairs held as they arrive, thinned on the way once they hold more than HELD_BUDGETS times
 * the adjustments' budget, each time by the rule thinnedPairs applies at the end and to the points
 * matched so far: a rank kept at the end was kept at every step (the matched points only grow), and a
 * pair's lowest ranks stay, so thinnedPairs then keeps exactly what it would of every match. Surveys
 * within the bound (any flown in lines) are held whole.
 */
export class ThinnedAsMatched {
  /** Points matched, before any thinning. */
  matched = 0;
  /** Points held now. */
  held = 0;
  private below = KEEP_ALL;
  /** Pairs held, by their place among the candidates. */
  private readonly slots = new Map<number, PairMatch>();
  constructor(private readonly photos: number) {}

  /** Holds pair `p`, the `k`-th candidate, thinned as the pairs before it were. */
  add(k: number, p: PairMatch): void {
    this.matched += pointsOf(p);
    const kept = thinnedPair(p, this.below);
    this.slots.set(k, kept);
    this.held += pointsOf(kept);
    const budget = this.photos * MAX_TIE_POINTS_PER_PHOTO;
    if (this.held <= HELD_BUDGETS * budget) return;
    this.below = keptBelow(budget, this.matched);
    this.held = 0;
    for (const [slot, pair] of this.slots) {
      const thinned = thinnedPair(pair, this.below);
      this.slots.set(slot, thinned);
      this.held += pointsOf(thinned);
    }
  }

  /**
   * The pairs held, in the candidates' order; once thinned on the way, all thinned as thinnedPairs
   * thins them for the adjustments, so that what they hold does not depend on the order pairs came in.
   */
  pairs(): PairMatch[] {
    const below = this.below < KEEP_ALL ? keptBelow(this.photos * MAX_TIE_POINTS_PER_PHOTO, this.matched) : KEEP_ALL;
    return [...this.slots].sort((a, b) => a[0] - b[0]).map(([, p]) => thinnedPair(p, below));
  }
}

/** Pair `p`'s points ranked below `below`, or among its MIN_THINNED_POINTS lowest; `p` itself when all are. */
function thinnedPair(p: PairMatch, below: number): PairMatch {
  if (below >= KEEP_ALL) return p;
  const ranks = pointRanks(p);
  const floor = [...ranks].sort((a, b) => a - b)[Math.min(ranks.length, MIN_THINNED_POINTS) - 1] ?? 0;
  const out: number[] = [];
  ranks.forEach((rank, q) => {
    if (rank < below || rank <= floor) out.push(...p.pts.subarray(4 * q, 4 * q + 4));
  });
  return out.length === p.pts.length ? p : { ...p, pts: Float64Array.from(out) };
}

/** Each point's rank for thinning: the larger of its two features' hashes. */
function pointRanks(p: PairMatch): Float64Array {
  const ranks = new Float64Array(pointsOf(p));
  for (let q = 0; q < ranks.length; q++) {
    const [x1, y1, x2, y2] = p.pts.subarray(4 * q, 4 * q + 4);
    ranks[q] = Math.max(featureHash(p.i, featurePixel(x1!), featurePixel(y1!)), featureHash(p.j, featurePixel(x2!), featurePixel(y2!)));
  }
  return ranks;
}

/** A 32-bit hash of a feature (photo, pixel column, pixel row): MurmurHash3's finaliser over the three mixed. */
function featureHash(photo: number, x: number, y: number): number {
  return murmurFinal(Math.imul(photo, 0x9e3779b1) ^ Math.imul(x, 0x85ebca77) ^ Math.imul(y, 0xc2b2ae3d));
}
