// Chaining pairwise matches into tracks (lib/drone/tracks.ts) on small hand-made pairs whose tracks
// are known: chaining through pairs, a photo seen twice, the MAX_TRACK_PHOTOS cap, the order
// (longest first, then first seen) and the per-photo selection.
import { describe, expect, it } from 'vitest';
import type { PairMatch } from '@/lib/drone/features';
import type { Tracks } from '@/lib/drone/tracks';
import { chainTracks, MAX_TRACK_PHOTOS } from '@/lib/drone/tracks';

const pair = (i: number, j: number, pts: number[]): PairMatch => ({ i, j, pts: Float64Array.from(pts), logRatio: [0], gpsDisagreementM: 0, rotation: 0 });

/** Tracks as plain arrays, to compare whole. */
const plain = (t: Tracks) => ({ start: Array.from(t.start), cam: Array.from(t.cam), u: Array.from(t.u), v: Array.from(t.v) });

describe('chainTracks', () => {
  it('chains a point seen in 3 photos through 2 pairs into one track of 3, each photo at its first pixel', () => {
    // Photo 1's (20.3, 19.8) rounds to (20, 20): the same feature, kept at the pixel first seen.
    const pairs = [pair(0, 1, [10, 10, 20, 20]), pair(1, 2, [20.3, 19.8, 30, 31])];
    expect(plain(chainTracks(pairs))).toEqual({ start: [0, 3], cam: [0, 1, 2], u: [10, 20, 30], v: [10, 20, 31] });
  });

  it('keeps a track\'s first observation in a photo it was seen in twice, and drops a track in one photo only', () => {
    // (10, 10) and (14, 10) in photo 0 both match (50, 50) in photo 1; (5, 5) and (9, 9) are both in photo 2.
    const pairs = [pair(0, 1, [10, 10, 50, 50]), pair(0, 1, [14, 10, 50, 50]), pair(2, 2, [5, 5, 9, 9])];
    expect(plain(chainTracks(pairs))).toEqual({ start: [0, 2], cam: [0, 1], u: [10, 50], v: [10, 50] });
  });

  it('keeps a track in its first MAX_TRACK_PHOTOS photos', () => {
    // One point along a chain of MAX_TRACK_PHOTOS + 5 photos (0-1, 1-2, ...), at (50 + photo, 60) in each.
    const pairs = Array.from({ length: MAX_TRACK_PHOTOS + 4 }, (_, k) => pair(k, k + 1, [50 + k, 60, 51 + k, 60]));
    const photos = Array.from({ length: MAX_TRACK_PHOTOS }, (_, k) => k);
    expect(MAX_TRACK_PHOTOS).toBe(40);
    expect(plain(chainTracks(pairs))).toEqual({ start: [0, 40], cam: photos, u: photos.map((k) => 50 + k), v: photos.map(() => 60) });
  });

  describe('order and per-photo selection', () => {
    // B in photos 0 1, C in 2 3, then A in 0 1 2 (through two pairs), then D in 0 2.
    const pairs = [
      pair(0, 1, [100, 100, 200, 200]),
      pair(2, 3, [300, 300, 400, 400]),
      pair(0, 1, [500, 500, 600, 600]),
      pair(1, 2, [600, 600, 700, 700]),
      pair(0, 2, [800, 800, 900, 900]),
    ];

    it('lists the tracks longest first, then in the order they were first seen', () => {
      expect(plain(chainTracks(pairs))).toEqual({
        start: [0, 3, 5, 7, 9], cam: [0, 1, 2, 0, 1, 2, 3, 0, 2],
        u: [500, 600, 700, 100, 200, 300, 400, 800, 900], v: [500, 600, 700, 100, 200, 300, 400, 800, 900],
      });
    });

    it('keeps a track while any of its photos has fewer than perPhoto tracks, counting it in all of them', () => {
      // perPhoto 1: A fills photos 0, 1, 2; B (0 1) is dropped; C is kept for photo 3; D (0 2) is dropped.
      expect(plain(chainTracks(pairs, 1))).toEqual({ start: [0, 3, 5], cam: [0, 1, 2, 2, 3], u: [500, 600, 700, 300, 400], v: [500, 600, 700, 300, 400] });
      // perPhoto 2: A, B and C are kept; D's photos 0 and 2 then hold 2 each.
      expect(plain(chainTracks(pairs, 2)).start).toEqual([0, 3, 5, 7]);
      expect(plain(chainTracks(pairs, 0))).toEqual({ start: [0], cam: [], u: [], v: [] });
    });
  });
});
