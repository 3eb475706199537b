// Laying an adjusted block of photos on its GPS track, and the correlation that measures seams.
import { describe, expect, it } from 'vitest';
import { gpsBlockFit } from '@/lib/drone/adjust';
import type { Placement } from '@/lib/drone/frame';
import { toGround, toPixel } from '@/lib/drone/frame';
import { guidedMatches, type Features } from '@/lib/drone/features';
import { refineOffset } from '@/lib/drone/seams';
import { convexHull, convexOverlap, planarRingArea } from '@/lib/geo/planar';

/** A 6 x 3 flight grid 20 m apart, heading east, 3 cm pixels. */
const gps: [number, number][] = Array.from({ length: 18 }, (_, k) => [500_000 + 20 * (k % 6), 5_000_000 + 20 * Math.floor(k / 6)]);
const prior = { scale: 0.05, headingRad: (3 * Math.PI) / 180 };

/**
 * The block as optics and compass place it when they are off: `s` times too large and turned by `deg`
 * about (cx, cy). The adjustment keeps that size (matches only fix the shape).
 */
function distorted(s: number, deg: number, points = gps): Placement[] {
  const t = (deg * Math.PI) / 180, [cx, cy] = [500_050, 5_000_020];
  return points.map(([e, n]) => ({
    a: 0.03 * s * Math.cos(t), b: 0.03 * s * Math.sin(t),
    tx: cx + s * (Math.cos(t) * (e - cx) - Math.sin(t) * (n - cy)), ty: cy + s * (Math.sin(t) * (e - cx) + Math.cos(t) * (n - cy)),
  }));
}

describe('gpsBlockFit', () => {
  it('takes the size and turn of a long, well-fixed track from the GPS', () => {
    const block = distorted(1.04, 2);
    const fit = gpsBlockFit(block, block, gps, 0.05, prior);
    block.map(fit.apply).forEach((p, i) => {
      expect(Math.hypot(p.tx - gps[i]![0], p.ty - gps[i]![1])).toBeLessThan(0.01);
      expect(Math.hypot(p.a, p.b)).toBeCloseTo(0.03, 5);
      expect(Math.atan2(p.b, p.a)).toBeCloseTo(0, 4);
    });
    // Relative to the optics: 1/1.04 the size, turned back by 2°.
    expect(Math.hypot(...fit.total)).toBeCloseTo(1 / 1.04, 4);
    expect((Math.atan2(fit.total[1], fit.total[0]) * 180) / Math.PI).toBeCloseTo(-2, 2);
  });

  it('weighs noisy fixes against the optics: 3 m GPS over this track takes the size part of the way', () => {
    const block = distorted(1.04, 0);
    const fit = gpsBlockFit(block, block, gps, 3, prior);
    // Weight of the GPS: Σr² / σ² over the block's 18 centres (about their centroid), against 1 / 0.05² = 400 for the optics.
    const wGps = block.reduce((s, p) => s + (p.tx - 500_050) ** 2 + (p.ty - 5_000_020) ** 2, 0) / 9;
    expect(Math.hypot(...fit.total)).toBeCloseTo(1.04 ** (-wGps / (wGps + 400)), 6);
    expect(wGps / (wGps + 400)).toBeGreaterThan(0.5);
  });

  it('barely moves two photos 20 m apart', () => {
    const pair = gps.slice(0, 2), block = distorted(1.04, 3, pair);
    const fit = gpsBlockFit(block, block, pair, 3, prior);
    expect(Math.hypot(...fit.total)).toBeGreaterThan(0.995);
    expect(Math.abs(Math.atan2(fit.total[1], fit.total[0]))).toBeLessThan((0.2 * Math.PI) / 180);
  });
});

/** Smooth random texture (sum of sinusoids), sampled with a sub-pixel shift. */
function texture(W: number, H: number, dx = 0, dy = 0): Uint8Array {
  const waves = Array.from({ length: 12 }, (_, k) => ({ fx: Math.cos(k * 2.4) * (0.08 + 0.02 * k), fy: Math.sin(k * 2.4) * (0.08 + 0.02 * k), ph: k * 1.7 }));
  const img = new Uint8Array(W * H);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const v = waves.reduce((s, w) => s + Math.sin(w.fx * (x - dx) + w.fy * (y - dy) + w.ph), 0);
      img[y * W + x] = Math.max(0, Math.min(255, Math.round(128 + 30 * v)));
    }
  }
  return img;
}

/** The correlation search refineOffset makes, written out plainly: each shift's patches, their means taken out. */
function correlatedByDefinition(a: Uint8Array, b: Uint8Array, W: number, H: number, x: number, y: number, dx: number, dy: number): [number, number] | null {
  const r = 10, s = 6;
  if (x - r < 0 || y - r < 0 || x + r >= W || y + r >= H || x + dx - r - s < 0 || y + dy - r - s < 0 || x + dx + r + s >= W || y + dy + r + s >= H) return null;
  const patchOf = (img: Uint8Array, cx: number, cy: number) => Array.from({ length: (2 * r + 1) ** 2 }, (_, k) => img[(cy - r + Math.floor(k / (2 * r + 1))) * W + cx - r + (k % (2 * r + 1))]!);
  const centred = (p: number[]) => { const m = p.reduce((t, v) => t + v, 0) / p.length; return p.map((v) => v - m); };
  const pa = centred(patchOf(a, x, y));
  const va = pa.reduce((t, v) => t + v * v, 0);
  if (va < pa.length * 25) return null;
  const ncc = (u: number, v: number) => {
    const pb = centred(patchOf(b, x + dx + u, y + dy + v));
    const vb = pb.reduce((t, q) => t + q * q, 0);
    return vb > 0 ? pa.reduce((t, p, k) => t + p * pb[k]!, 0) / Math.sqrt(va * vb) : -1;
  };
  let best = -2, bu = 0, bv = 0;
  for (let v = -s; v <= s; v++) for (let u = -s; u <= s; u++) { const c = ncc(u, v); if (c > best) [best, bu, bv] = [c, u, v]; }
  if (best < 0.8 || Math.abs(bu) === s || Math.abs(bv) === s) return null;
  const sub = (m: number, c: number, p: number) => (m - 2 * c + p < 0 ? (0.5 * (m - p)) / (m - 2 * c + p) : 0);
  return [dx + bu + sub(ncc(bu - 1, bv), best, ncc(bu + 1, bv)), dy + bv + sub(ncc(bu, bv - 1), best, ncc(bu, bv + 1))];
}

describe('refineOffset', () => {
  it('finds a sub-pixel shift between two drawings of the same ground', () => {
    const a = texture(80, 80), b = texture(80, 80, 2.3, -1.6);
    const found = refineOffset(a, b, 80, 80, 40, 40, 2, -2);
    expect(found).not.toBeNull();
    expect(found![0]).toBeCloseTo(2.3, 0);
    expect(found![1]).toBeCloseTo(-1.6, 0);
    expect(Math.hypot(found![0] - 2.3, found![1] + 1.6)).toBeLessThan(0.25);
  });

  it('gives what correlating every shift by its definition gives (means taken out, 21-pixel patch, ±6 px)', () => {
    const a = texture(120, 100), b = texture(120, 100, 2.6, -1.3);
    // Some noise, so that flat spots and poor correlations occur too.
    for (let k = 0; k < b.length; k++) b[k] = Math.min(255, b[k]! + ((k * 7919) % 23));
    let seed = 11;
    const next = (m: number) => (seed = (seed * 16807) % 2147483647) % m;
    let found = 0;
    for (let t = 0; t < 400; t++) {
      const [x, y, dx, dy] = [next(120), next(100), next(9) - 2, next(9) - 5];
      const got = refineOffset(a, b, 120, 100, x, y, dx, dy), want = correlatedByDefinition(a, b, 120, 100, x, y, dx, dy);
      expect(got === null).toBe(want === null);
      if (got && want) { found++; expect(got[0]).toBeCloseTo(want[0], 9); expect(got[1]).toBeCloseTo(want[1], 9); }
    }
    expect(found).toBeGreaterThan(50);
  });

  it('declines flat patches, patches that do not correlate and peaks at the edge of its search', () => {
    const flat = new Uint8Array(80 * 80).fill(120);
    expect(refineOffset(flat, texture(80, 80), 80, 80, 40, 40, 0, 0)).toBeNull();
    const other = texture(80, 80, 37.5, 21.25).reverse();
    expect(refineOffset(texture(80, 80), other, 80, 80, 40, 40, 0, 0)).toBeNull();
    // The true shift (9 px) lies beyond the 6 px the search covers around the guess (0).
    expect(refineOffset(texture(80, 80), texture(80, 80, 9, 0), 80, 80, 40, 40, 0, 0)).toBeNull();
    // Too near the border for the patch.
    expect(refineOffset(texture(80, 80), texture(80, 80), 80, 80, 5, 40, 0, 0)).toBeNull();
  });
});

describe('guidedMatches', () => {
  it('finds nothing, rather than failing, when either side has no features (a seam drawn over blank ground)', () => {
    const none: Features = { points: new Float64Array(0), colours: new Float32Array(0), channels: 3, descriptors: new Uint8Array(0), count: 0 };
    const one: Features = { points: Float64Array.of(10, 10), colours: new Float32Array(3), channels: 3, descriptors: new Uint8Array(32), count: 1 };
    const identity = { a: 1, b: 0, tx: 0, ty: 0 };
    expect(guidedMatches(one, identity, [0, 0], none, identity, [0, 0], 64)).toEqual([]);
    expect(guidedMatches(none, identity, [0, 0], one, identity, [0, 0], 64)).toEqual([]);
    expect(guidedMatches(one, identity, [0, 0], one, identity, [0, 0], 64)).toEqual([[0, 0]]);
  });

  it('finds what comparing every keypoint within the radius finds (ratio test, Hamming under 64)', () => {
    // 3,000 keypoints a photo; half of j's are i's seen again with a few bits flipped, the rest new.
    // Cells wholly inside or outside the radius are taken without a test a keypoint: the planted
    // matches straddle both radii, so a cell taken wrongly shows.
    let seed = 7;
    const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    const pi: Placement = { a: 0.02, b: 0.001, tx: 100, ty: 200 }, pj: Placement = { a: 0.0199, b: -0.0015, tx: 130, ty: 195 };
    const count = 3000, fi = features(count), fj = features(count);
    for (let k = 0; k < count; k++) {
      fi.points.set([rand() * 4000, rand() * 3000], 2 * k);
      for (let w = 0; w < 32; w++) fi.descriptors[32 * k + w] = (rand() * 256) | 0;
      if (k % 2) {
        fj.points.set([rand() * 4000, rand() * 3000], 2 * k);
        for (let w = 0; w < 32; w++) fj.descriptors[32 * k + w] = (rand() * 256) | 0;
      } else {
        // The same ground point from j, 0-4 m or 10-14 m off (either side of each radius below), with 0-40 bits flipped.
        const [e, n] = toGround(pi, 2000, 1500, fi.points[2 * k]!, fi.points[2 * k + 1]!);
        const off = (k % 4 ? 10 : 0) + rand() * 4, turn = rand() * 2 * Math.PI;
        fj.points.set(toPixel(pj, 2000, 1500, e + off * Math.cos(turn), n + off * Math.sin(turn)), 2 * k);
        fj.descriptors.set(fi.descriptors.subarray(32 * k, 32 * k + 32), 32 * k);
        for (let f = (rand() * 40) | 0; f > 0; f--) fj.descriptors[32 * k + ((rand() * 32) | 0)]! ^= 1 << ((rand() * 8) | 0);
      }
    }
    for (const radius of [3, 12]) {
      const found = guidedMatches(fi, pi, [2000, 1500], fj, pj, [2000, 1500], radius);
      expect(found).toEqual(matchesWithin(fi, pi, fj, pj, [2000, 1500], radius));
      expect(found.length).toBeGreaterThan(count / 10);
    }
  });
});

const features = (count: number): Features => ({ points: new Float64Array(2 * count), colours: new Float32Array(3 * count), channels: 3, descriptors: new Uint8Array(32 * count), count });

/** Every keypoint of j within `radius` of each of i's on the ground, compared bit by bit: the definition guidedMatches keeps. */
function matchesWithin(fi: Features, pi: Placement, fj: Features, pj: Placement, c: [number, number], radius: number): [number, number][] {
  const out: [number, number][] = [];
  for (let a = 0; a < fi.count; a++) {
    const [e, n] = toGround(pi, c[0], c[1], fi.points[2 * a]!, fi.points[2 * a + 1]!);
    let best = 257, second = 257, bestIdx = -1;
    for (let b = 0; b < fj.count; b++) {
      const [eb, nb] = toGround(pj, c[0], c[1], fj.points[2 * b]!, fj.points[2 * b + 1]!);
      if ((eb - e) ** 2 + (nb - n) ** 2 > radius * radius) continue;
      let d = 0;
      for (let w = 0; w < 32; w++) for (let x = fi.descriptors[32 * a + w]! ^ fj.descriptors[32 * b + w]!; x; x >>= 1) d += x & 1;
      if (d < best) { second = best; best = d; bestIdx = b; } else if (d < second) second = d;
    }
    if (bestIdx >= 0 && best < 64 && best < 0.8 * second) out.push([a, bestIdx]);
  }
  return out;
}

describe('planar rings (lib/geo/planar.ts)', () => {
  const square = (x: number, y: number, side: number): [number, number][] => [[x, y], [x + side, y], [x + side, y + side], [x, y + side], [x, y]];

  it('signs the area by orientation, intersects convex rings and wraps points in their hull', () => {
    expect(planarRingArea(square(0, 0, 10))).toBe(100);
    expect(planarRingArea(square(0, 0, 10).reverse())).toBe(-100);
    expect(convexOverlap(square(0, 0, 10), square(5, 5, 10))).toBeCloseTo(25, 9);
    expect(convexOverlap(square(0, 0, 10), square(5, 5, 10).reverse())).toBeCloseTo(25, 9);
    expect(convexOverlap(square(0, 0, 10), square(20, 0, 10))).toBe(0);
    const hull = convexHull([[0, 0], [10, 0], [5, 5], [10, 10], [0, 10], [3, 7]]);
    expect(hull).toHaveLength(5);
    expect(planarRingArea(hull)).toBe(100);
  });
});
