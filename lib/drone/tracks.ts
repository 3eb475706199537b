// Tracks: pairwise matches chained into multi-photo tracks for the bundle adjustment (bundle.ts).
// A large survey holds millions of matched points, so every step keeps them in typed arrays sized
// from the number of points: the nodes (photo, rounded pixel) in an open-addressing hash table,
// their union-find, then the groups and the tracks as CSR arrays (sets laid out one after another).
import type { PairMatch } from './features';

/** Multi-photo tracks: observations of track t are obs[start[t] .. start[t + 1]). */
export interface Tracks {
  start: Int32Array;
  cam: Int32Array;
  u: Float64Array;
  v: Float64Array;
}

/** Matches whose point lies within this many pixels of another's in the same photo are the same feature. */
const SAME_POINT_PX = 1;

/** A matched point's pixel coordinate as features are told apart: points within SAME_POINT_PX are one. */
export const featurePixel = (v: number) => Math.round(v / SAME_POINT_PX);
/**
 * Photos a track keeps (its first). A survey flown with 80 % forward and 70 % side overlap sees a point
 * in some 15-25 photos, one with 90 % and 80 % in some 50 (the keypoints of a few); photos all of one
 * spot would chain a point through every photo, and eliminating a track costs the square of its length.
 */
export const MAX_TRACK_PHOTOS = 40;

/** The matched points' observations as nodes (two a point at most), ids in order of first appearance. */
interface Nodes {
  count: number;
  cam: Int32Array;
  /** Where each node was first seen: 2 × its point's index among all the pairs' points, + 1 on the j side. */
  seenAt: Int32Array;
  /** The smallest id joined with each node (its group's first-created node). */
  root: Int32Array;
}

/** Sets of node ids one after another: set s is ids[start[s] .. start[s + 1]). */
interface Sets {
  start: Int32Array;
  ids: Int32Array;
}

/** Photo indices (0 .. photos - 1 in a survey) as offsets into per-photo arrays. */
interface PhotoSpan {
  first: number;
  size: number;
}

/**
 * Chains pairwise matches into multi-photo tracks (union-find on photo and rounded pixel position).
 * A track seen twice in one photo keeps its first observation there, and its first MAX_TRACK_PHOTOS
 * photos; tracks seen by fewer than two photos are dropped. At most `perPhoto` tracks are kept for
 * each photo (longest first), which bounds the adjustment's work on dense surveys.
 */
export function chainTracks(pairs: PairMatch[], perPhoto = Infinity): Tracks {
  const nodes = joinedNodes(pairs);
  const photos = photoSpan(nodes);
  const tracks = keptTracks(groupsOf(nodes), nodes.cam, photos);
  const chosen = chosenTracks(tracks, longestFirst(tracks), nodes.cam, photos, perPhoto);
  return packedTracks(tracks, chosen, nodes, pairs);
}

/** The node key of an observation: photo and rounded pixel in one number (as a Map key it was). */
function keyOf(c: number, x: number, y: number): number {
  return (c * 65536 + featurePixel(y)) * 65536 + featurePixel(x);
}

/** MurmurHash3's finaliser: the bits of a 32-bit integer mixed into an unsigned 32-bit hash (thinning.ts hashes features with it too). */
export function murmurFinal(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** A key's hash slot: its low and high 32 bits mixed; NaN, ±0 and ±∞ all hash as 0. */
function slotOf(key: number, mask: number): number {
  return murmurFinal((key | 0) ^ Math.imul((key / 4294967296) | 0, 0x9e3779b1)) & mask;
}

/** Keys equal as Map keys are (SameValueZero: NaN equals NaN). */
function sameKey(a: number, b: number): boolean {
  return a === b || (a !== a && b !== b);
}

/**
 * Every matched point as two nodes (photo, pixel), at most two per point, joined with union-find
 * whose root is always the smaller id, so that a group's root is its first-created node.
 */
function joinedNodes(pairs: PairMatch[]): Nodes {
  const points = pointBases(pairs).at(-1)!;
  const nodes: Nodes = { count: 0, cam: new Int32Array(2 * points), seenAt: new Int32Array(2 * points), root: new Int32Array(2 * points) };
  const idOf = nodeIds(nodes);
  const { root } = nodes;
  const find = (a: number): number => {
    while (root[a] !== a) a = root[a] = root[root[a]!]!;
    return a;
  };
  let at = 0;
  for (const { i, j, pts } of pairs) {
    for (let q = 0; q < pts.length; q += 4, at += 2) {
      const a = find(idOf(i, pts[q]!, pts[q + 1]!, at)), b = find(idOf(j, pts[q + 2]!, pts[q + 3]!, at + 1));
      if (a !== b) root[Math.max(a, b)] = Math.min(a, b);
    }
  }
  // Roots precede their members, so one pass in id order leaves every node pointing at its root.
  for (let k = 0; k < nodes.count; k++) root[k] = root[root[k]!]!;
  return nodes;
}

/** Where each pair's points start among all the pairs' points, and (last) how many there are. */
function pointBases(pairs: PairMatch[]): Int32Array {
  const base = new Int32Array(pairs.length + 1);
  // Math.ceil: a last partial point is read (as undefined) as the Map-based chaining read it.
  pairs.forEach((p, k) => (base[k + 1] = base[k]! + Math.ceil(p.pts.length / 4)));
  return base;
}

/** The node id of an observation seen at `at`, a new node if its key is new (open addressing, linear probing). */
function nodeIds(nodes: Nodes): (c: number, x: number, y: number, at: number) => number {
  // At most 3 nodes in 4 slots even if every point is new: probes stay short, at 4 bytes a slot.
  const slots = new Int32Array(2 ** Math.ceil(Math.log2(Math.max(4, nodes.cam.length / 0.75))));
  const keys = new Float64Array(nodes.cam.length), mask = slots.length - 1;
  const { cam, seenAt, root } = nodes;
  return (c, x, y, at) => {
    const key = keyOf(c, x, y);
    for (let s = slotOf(key, mask); ; s = (s + 1) & mask) {
      const id = slots[s]! - 1;
      if (id < 0) {
        const k = nodes.count++;
        slots[s] = k + 1; keys[k] = key; cam[k] = c; seenAt[k] = at; root[k] = k;
        return k;
      }
      if (sameKey(keys[id]!, key)) return id;
    }
  };
}

/** The photos the nodes are in, as a range. */
function photoSpan({ count, cam }: Nodes): PhotoSpan {
  let lo = Infinity, hi = -Infinity;
  for (let k = 0; k < count; k++) {
    lo = Math.min(lo, cam[k]!); hi = Math.max(hi, cam[k]!);
  }
  return count ? { first: lo, size: hi - lo + 1 } : { first: 0, size: 0 };
}

/**
 * The nodes grouped by root: set r holds root r's group, members in id order (empty unless r is a
 * root), so that groups come in order of first appearance as the Map of groups listed them.
 */
function groupsOf({ count, root }: Nodes): Sets {
  const start = new Int32Array(count + 1), ids = new Int32Array(count);
  for (let k = 0; k < count; k++) start[root[k]!]!++;
  for (let r = 1; r <= count; r++) start[r]! += start[r - 1]!;
  // start[r] is now where group r ends; filling from the back leaves it where the group starts.
  for (let k = count - 1; k >= 0; k--) ids[--start[root[k]!]!] = k;
  return { start, ids };
}

/**
 * Each group's track: its first observation in each photo, in its first MAX_TRACK_PHOTOS photos;
 * groups seen by fewer than two photos dropped. Tracks keep their groups' order.
 */
function keptTracks(groups: Sets, cam: Int32Array, photos: PhotoSpan): Sets {
  const start = new Int32Array((groups.ids.length >> 1) + 1), ids = new Int32Array(groups.ids.length);
  const seenBy = new Int32Array(photos.size); // 1 + the last group that saw each photo
  let t = 0, o = 0;
  for (let g = 0; g + 1 < groups.start.length; g++) {
    const first = o;
    for (let m = groups.start[g]!; m < groups.start[g + 1]! && o - first < MAX_TRACK_PHOTOS; m++) {
      const p = cam[groups.ids[m]!]! - photos.first;
      if (seenBy[p] === g + 1) continue;
      seenBy[p] = g + 1;
      ids[o++] = groups.ids[m]!;
    }
    if (o - first >= 2) start[t++] = first;
    else o = first;
  }
  start[t] = o;
  return { start: start.subarray(0, t + 1), ids: ids.subarray(0, o) };
}

/**
 * The tracks longest first, ties in track order (by first observation: a counting sort, stable).
 * Lengths run from 2 to MAX_TRACK_PHOTOS.
 */
function longestFirst({ start }: Sets): Int32Array {
  const n = start.length - 1;
  const at = new Int32Array(MAX_TRACK_PHOTOS + 2);
  for (let t = 0; t < n; t++) at[start[t + 1]! - start[t]!]!++;
  for (let len = MAX_TRACK_PHOTOS, pos = 0; len >= 0; len--) {
    const c = at[len]!;
    at[len] = pos; pos += c;
  }
  const order = new Int32Array(n);
  for (let t = 0; t < n; t++) order[at[start[t + 1]! - start[t]!]!++] = t;
  return order;
}

/** The tracks kept, in `order`: each while any of its photos has fewer than `perPhoto`, then counted in all of them. */
function chosenTracks({ start, ids }: Sets, order: Int32Array, cam: Int32Array, photos: PhotoSpan, perPhoto: number): Int32Array {
  const taken = new Int32Array(photos.size), chosen = new Int32Array(order.length);
  let n = 0;
  for (const t of order) {
    let open = false;
    for (let m = start[t]!; m < start[t + 1]! && !open; m++) open = taken[cam[ids[m]!]! - photos.first]! < perPhoto;
    if (!open) continue;
    for (let m = start[t]!; m < start[t + 1]!; m++) taken[cam[ids[m]!]! - photos.first]!++;
    chosen[n++] = t;
  }
  return chosen.subarray(0, n);
}

/** The chosen tracks' observations laid out one track after another (Tracks), pixels read from the pairs. */
function packedTracks({ start, ids }: Sets, chosen: Int32Array, nodes: Nodes, pairs: PairMatch[]): Tracks {
  let total = 0;
  for (const t of chosen) total += start[t + 1]! - start[t]!;
  const out: Tracks = { start: new Int32Array(chosen.length + 1), cam: new Int32Array(total), u: new Float64Array(total), v: new Float64Array(total) };
  const base = pointBases(pairs);
  let o = 0;
  chosen.forEach((t, k) => {
    out.start[k] = o;
    for (let m = start[t]!; m < start[t + 1]!; m++, o++) {
      const id = ids[m]!, at = nodes.seenAt[id]!, p = pairHolding(base, at >> 1);
      const q = 4 * ((at >> 1) - base[p]!) + 2 * (at & 1);
      out.cam[o] = nodes.cam[id]!; out.u[o] = pairs[p]!.pts[q]!; out.v[o] = pairs[p]!.pts[q + 1]!;
    }
  });
  out.start[chosen.length] = o;
  return out;
}

/** The pair holding point `g` of all the pairs' points: the last whose points start at or before it. */
function pairHolding(base: Int32Array, g: number): number {
  let lo = 0, hi = base.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (base[mid]! <= g) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
