// Which photos are matched with which: candidate pairs from the GPS footprints only (cost grows with
// the number of photos, not its square), the 180° heading ambiguity of return lines settled along the
// flight, then every candidate matched; the matched pairs must tie the photos into one block, but for
// a few left apart (mayLeaveApart).
import type { DronePhoto } from './exif';
import type { Features, PairMatch, PairMatcher, PairRejection } from './features';
import { matchHere, median } from './features';
import type { Placement } from './frame';
import { footprint } from './frame';
import type { Placed } from './placed';
import { StitchError } from './stitch-error';
import { ThinnedAsMatched } from './thinning';
import { flightOrder } from './track';
import { convexOverlap, planarRingArea } from '@/lib/geo/planar';

export const GPS_SIGMA_M = 3;
const MIN_OVERLAP = 0.2;

/** The placement turned by 180° about its centre when `flip`. */
const turned = (p: Placement, flip: boolean): Placement => (flip ? { ...p, a: -p.a, b: -p.b } : p);

/** Connected groups of photos through accepted pairs. */
function components(n: number, pairs: { i: number; j: number }[]): number[][] {
  const parent = Array.from({ length: n }, (_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  for (const { i, j } of pairs) parent[find(i)] = find(j);
  const groups = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const root = find(i);
    const group = groups.get(root);
    if (group) group.push(i);
    else groups.set(root, [i]);
  }
  return [...groups.values()];
}

/**
 * Candidates each photo keeps, its most overlapping first. A survey flown with 80 % forward and 70 %
 * side overlap gives a photo some 20-40 overlapping others; photos all of one spot (or without the
 * optics to tell their footprints) would give every pair, and matching them all takes hours.
 */
export const MAX_PAIRS_PER_PHOTO = 40;

/**
 * Pairs whose GPS footprints overlap by at least MIN_OVERLAP of the smaller one, each among the
 * MAX_PAIRS_PER_PHOTO most overlapping of at least one of its photos; in (i, j) order. Footprints
 * whose bounding boxes are apart are not clipped (a survey of 3,000 photos clipped 4.5 M pairs), and
 * each photo holds only its most overlapping so far, so photos all of one spot do not hold every pair.
 */
export function candidatePairs(placed: Placed[]): [number, number][] {
  const rings = placed.map((p) => footprint(p.prior, p.width, p.height));
  const areas = rings.map((r) => Math.abs(planarRingArea(r)));
  const boxes = rings.map(ringBox);
  const most = placed.map(() => new MostOverlapping(MAX_PAIRS_PER_PHOTO));
  for (let i = 0; i < placed.length; i++) {
    for (let j = i + 1; j < placed.length; j++) {
      if (apart(boxes[i]!, boxes[j]!)) continue;
      const share = convexOverlap(rings[i]!, rings[j]!) / Math.min(areas[i]!, areas[j]!);
      if (!(share > MIN_OVERLAP)) continue;
      const pair = { i, j, share };
      most[i]!.offer(pair);
      most[j]!.offer(pair);
    }
  }
  const kept = [...new Set(most.flatMap((m) => m.pairs))].sort((a, b) => a.i - b.i || a.j - b.j);
  if (!kept.length) throw new StitchError('too_little_overlap');
  return kept.map(({ i, j }) => [i, j]);
}

type Box = [minX: number, minY: number, maxX: number, maxY: number];

function ringBox(ring: [number, number][]): Box {
  const xs = ring.map((p) => p[0]), ys = ring.map((p) => p[1]);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

/** Boxes that do not even touch: their rings cannot overlap. */
const apart = (a: Box, b: Box) => a[2] < b[0] || b[2] < a[0] || a[3] < b[1] || b[3] < a[1];

interface Overlap {
  i: number;
  j: number;
  share: number;
}

/** Larger share first; of equal shares the pair found first, in (i, j) order. */
const before = (a: Overlap, b: Overlap) => b.share - a.share || a.i - b.i || a.j - b.j;

/** One photo's `limit` most overlapping pairs among those offered, best first. */
class MostOverlapping {
  readonly pairs: Overlap[] = [];
  constructor(private readonly limit: number) {}

  offer(pair: Overlap): void {
    if (this.pairs.length === this.limit) {
      if (before(pair, this.pairs[this.limit - 1]!) >= 0) return;
      this.pairs.pop();
    }
    let k = this.pairs.length;
    while (k > 0 && before(pair, this.pairs[k - 1]!) < 0) k--;
    this.pairs.splice(k, 0, pair);
  }
}

/** The matched pairs (thinned as they came when they held too many: thinning.ts), and the points matched before any thinning. */
export interface MatchedPairs {
  pairs: PairMatch[];
  matchedPoints: number;
  /** Photos the matches leave apart from the block, up to the number allowed (their pairs are still in `pairs`). */
  apart: number[];
}

/**
 * Captures a survey may leave apart and still be made without them: one (a snapshot at take-off, a
 * frame blurred or over open water), or a tenth of a large survey. More apart is a survey that does
 * not hold together.
 */
export const mayLeaveApart = (captures: number) => Math.max(1, Math.floor(captures / 10));

/**
 * The matched pairs among `candidates`, after turning the priors of photos logged 180° off (`placed`
 * is updated). Throws StitchError when nothing matches, or when the matches leave more than
 * `leaveApart` photos apart from the largest block (or it holds fewer than two). Pairs are
 * handed to `matcher` all at once (a pool of threads takes them as it can); the outcome does not
 * depend on the order they finish in.
 */
export async function matchedPairs(
  placed: Placed[], features: Features[], mains: DronePhoto[], candidates: [number, number][], progress: (percent: number) => void,
  matcher: PairMatcher = matchHere, leaveApart = 0,
): Promise<MatchedPairs> {
  const footprintSize = median(placed.map((p) => p.width * p.gsd));
  const side = (i: number, flip: boolean) => ({ i, features: features[i]!, placement: turned(placed[i]!.prior, flip), centre: placed[i]!.centre });
  const match: MatchOnce = (i, j, flipI, flipJ) => matcher(side(i, flipI), side(j, flipJ), 4 * GPS_SIGMA_M + 0.1 * footprintSize, 4 * GPS_SIGMA_M);
  const order = flightOrder(mains);
  const { votes, tried } = await headingVotes(order, candidates, match, (k) => progress((50 * k) / order.length));
  const flipped = flipsFromVotes(order, votes, placed);
  placed.forEach((p, i) => (p.prior = turned(p.prior, flipped[i]!)));
  let done = 0, gpsRejected = 0;
  const held = new ThinnedAsMatched(placed.length);
  await Promise.all(candidates.map(async ([i, j], k) => {
    const known = tried.get(`${i}:${j}`);
    tried.delete(`${i}:${j}`);
    const r = known && known.flip === flipped[i] && known.flip === flipped[j] ? known.result : await match(i, j, false, false);
    if (typeof r === 'object') held.add(k, r);
    else if (r === 'gps_disagreement') gpsRejected++;
    progress(50 + (50 * ++done) / candidates.length);
  }));
  const pairs = held.pairs();
  if (!pairs.length) throw new StitchError('no_matches', gpsRejected ? `${gpsRejected} pairs contradict GPS` : '');
  const groups = components(placed.length, pairs);
  const largest = groups.reduce((a, b) => (b.length > a.length ? b : a));
  const apart = placed.length - largest.length;
  if (apart > leaveApart || largest.length < 2) {
    const linked = components(placed.length, candidates.map(([i, j]) => ({ i, j })));
    throw new StitchError(linked.length > 1 ? 'too_little_overlap' : 'disconnected', `${groups.length} groups`);
  }
  const inBlock = new Set(largest);
  return { pairs, matchedPoints: held.matched, apart: placed.flatMap((_, i) => (inBlock.has(i) ? [] : [i])) };
}

/** Matches photos i and j, each with its logged heading or turned 180°. */
type MatchOnce = (i: number, j: number, flipI: boolean, flipJ: boolean) => Promise<PairMatch | PairRejection>;

/**
 * Recorded headings can be off by 180° on return lines (some DJI firmware logs the aircraft's turn
 * while the camera keeps facing the same way). Consecutive photos of a line decide, for each photo,
 * which of the two headings makes the image motion agree with the GPS motion: each photo's votes
 * (positive: turned), and each pair tried with the hypothesis that won.
 */
async function headingVotes(order: number[], candidates: [number, number][], match: MatchOnce, lineProgress: (done: number) => void) {
  const inliers = (r: PairMatch | string) => (typeof r === 'object' ? r.pts.length / 4 : 0);
  const isCandidate = new Set(candidates.map(([i, j]) => `${i}:${j}`));
  const votes = new Array<number>(order.length).fill(0);
  const tried = new Map<string, { flip: boolean; result: PairMatch | string }>();
  let lineDone = 0;
  await Promise.all(order.slice(1).map(async (next, k) => {
    const [i, j] = [Math.min(order[k]!, next), Math.max(order[k]!, next)];
    if (!isCandidate.has(`${i}:${j}`)) return void lineProgress(++lineDone);
    const asLogged = await match(i, j, false, false);
    // A clear match as logged settles it; only doubtful pairs pay for the second hypothesis.
    const turnedBoth = inliers(asLogged) >= 60 ? 'no_matches' : await match(i, j, true, true);
    const vote = Math.sign(inliers(turnedBoth) - inliers(asLogged));
    votes[i] = votes[i]! + vote;
    votes[j] = votes[j]! + vote;
    tried.set(`${i}:${j}`, vote > 0 ? { flip: true, result: turnedBoth } : { flip: false, result: asLogged });
    lineProgress(++lineDone);
  }));
  return { votes, tried };
}

/**
 * Which photos are turned 180°: as their votes say; undecided photos (line ends, no overlap with the
 * next shot) follow the nearest decided photo logged with the same heading.
 */
function flipsFromVotes(order: number[], votes: number[], placed: Placed[]): boolean[] {
  const yaw = (i: number) => placed[i]!.headingDeg;
  const sameHeading = (x: number, y: number) => Math.abs((((yaw(x) - yaw(y)) % 360) + 540) % 360 - 180) < 30;
  const flipped = order.map(() => false);
  order.forEach((i, k) => {
    if (votes[i] !== 0) return void (flipped[i] = votes[i]! > 0);
    for (let d = 1; d < order.length; d++) {
      const near = [order[k - d], order[k + d]].find((x) => x !== undefined && votes[x] !== 0 && sameHeading(x, i));
      if (near !== undefined) return void (flipped[i] = votes[near]! > 0);
    }
  });
  return flipped;
}
