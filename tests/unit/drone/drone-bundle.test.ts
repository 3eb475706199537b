// The bundle adjustment (lib/drone/bundle.ts) on a generated block: 5×5 photos at 80 m whose gimbal
// tilts up to ±2° without recording it, over a 15 m hill, with noisy GPS and compass. The tie points'
// pixels come from the true cameras (projectToPixel); the adjustment starts from nadir cameras on
// flat ground and must find the tilts and the hill.
import { describe, expect, it } from 'vitest';
import type { Camera } from '@/lib/drone/camera';
import { projectToPixel } from '@/lib/drone/camera';
import type { PosePrior } from '@/lib/drone/bundle';
import { bundleAdjust, triangulateOnRelief } from '@/lib/drone/bundle';
import type { PairMatch } from '@/lib/drone/features';
import type { ReliefGrid } from '@/lib/drone/relief';
import { chainTracks, MAX_TRACK_PHOTOS } from '@/lib/drone/tracks';

const deg = Math.PI / 180;
const W = 4000, H = 3000;

/** Deterministic uniform numbers in [0, 1) (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const gauss = (rnd: () => number) => Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());

const E0 = 400_000, N0 = 5_500_000;
const hillAt = (e: number, n: number) => 15 * Math.exp(-((e - E0 - 60) ** 2 + (n - N0 - 50) ** 2) / (2 * 30 ** 2));

function block(seed: number) {
  const rnd = random(seed);
  const truth: Camera[] = [];
  for (let r = 0; r < 5; r++) {
    for (let c = 0; c < 5; c++) {
      truth.push({
        E: E0 + c * 30, N: N0 + r * 25, Z: 80 + gauss(rnd) * 0.5, yaw: (r % 2 ? 180 : 0) * deg + gauss(rnd) * deg,
        pitch: (rnd() * 4 - 2) * deg, roll: (rnd() * 4 - 2) * deg, f: 3600, cx: W / 2 + 5, cy: H / 2 - 8, k1: -0.05, k2: 0.01,
      });
    }
  }
  // Ground points on a jittered 3 m grid, seen in every photo whose frame holds them, 0.5 px noise.
  const ground: [number, number, number][] = [];
  for (let e = E0 - 40; e < E0 + 160; e += 3) for (let n = N0 - 30; n < N0 + 130; n += 3) {
    const ge = e + rnd() * 2, gn = n + rnd() * 2;
    ground.push([ge, gn, hillAt(ge, gn)]);
  }
  const seen = ground.map(([e, n, h]) => truth.map((c) => {
    const [u, v] = projectToPixel(c, e, n, h);
    return u >= 0 && v >= 0 && u < W && v < H ? [u + 0.5 * gauss(rnd), v + 0.5 * gauss(rnd)] as const : null;
  }));
  // Which ground point each observed pixel is.
  const pointOf = new Map<string, number>();
  seen.forEach((s, k) => s.forEach((o, i) => { if (o) pointOf.set(`${i}:${o[0]}:${o[1]}`, k); }));
  const pairs: PairMatch[] = [];
  for (let i = 0; i < truth.length; i++) {
    for (let j = i + 1; j < truth.length; j++) {
      const pts: number[] = [];
      seen.forEach((s) => {
        const [a, b] = [s[i], s[j]];
        if (a && b) pts.push(a[0], a[1], b[0], b[1]);
      });
      if (pts.length >= 4 * 20) pairs.push({ i, j, pts: Float64Array.from(pts), logRatio: [0], gpsDisagreementM: 0, rotation: 0 });
    }
  }
  // Photos as the adjustment starts from them: GPS with 1 m noise (0.5 m vertical), compass with 2°, nadir.
  const priors: PosePrior[] = truth.map((c) => ({
    E: c.E + gauss(rnd), N: c.N + gauss(rnd), horizontalSigmaM: 1, Z: c.Z + 0.5 * gauss(rnd), verticalSigmaM: 1,
    yaw: c.yaw + 2 * gauss(rnd) * deg, yawSigmaRad: 3 * deg, pitch: 0, roll: 0, tiltSigmaRad: 5 * deg,
  }));
  const start = truth.map((c, k): Camera => ({ ...c, E: priors[k]!.E, N: priors[k]!.N, Z: priors[k]!.Z, yaw: priors[k]!.yaw, pitch: 0, roll: 0 }));
  return { truth, ground, pointOf, pairs, priors, start };
}

const flat: ReliefGrid = { e0: E0, n0: N0, cellM: 1000, cols: 1, rows: 1, z: new Float32Array(1) };

describe('bundle adjustment', () => {
  it('chains pairwise matches into multi-photo tracks', () => {
    const pairs: PairMatch[] = [
      { i: 0, j: 1, pts: Float64Array.from([10, 10, 20, 20, 100, 100, 200, 200]), logRatio: [0], gpsDisagreementM: 0, rotation: 0 },
      { i: 1, j: 2, pts: Float64Array.from([20.2, 19.9, 30, 30]), logRatio: [0], gpsDisagreementM: 0, rotation: 0 },
      { i: 0, j: 2, pts: Float64Array.from([10, 10, 30, 30.1]), logRatio: [0], gpsDisagreementM: 0, rotation: 0 },
    ];
    const t = chainTracks(pairs);
    expect(t.start.length - 1).toBe(2);
    expect(Array.from(t.cam.subarray(t.start[0]!, t.start[1]!)).sort()).toEqual([0, 1, 2]);
    expect(t.start[2]! - t.start[1]!).toBe(2);
  });

  it('keeps a track in its first MAX_TRACK_PHOTOS photos, so that photos all of one spot cannot chain a point through all of them', () => {
    // One point matched along a chain of MAX_TRACK_PHOTOS + 16 photos (0-1, 1-2, ...), and a second point in photos 0 and 1.
    const pairs: PairMatch[] = Array.from({ length: MAX_TRACK_PHOTOS + 15 }, (_, k) => ({
      i: k, j: k + 1, pts: Float64Array.from([50, 50, 50, 50, ...(k === 0 ? [300, 300, 300, 300] : [])]), logRatio: [0], gpsDisagreementM: 0, rotation: 0,
    }));
    const t = chainTracks(pairs);
    expect(t.start.length - 1).toBe(2);
    expect(Array.from(t.cam.subarray(t.start[0]!, t.start[1]!))).toEqual(Array.from({ length: MAX_TRACK_PHOTOS }, (_, k) => k));
    expect(Array.from(t.cam.subarray(t.start[1]!, t.start[2]!))).toEqual([0, 1]);
  });

  it('recovers ±2° of unrecorded tilt to a fraction of a degree and the hill to decimetres', () => {
    const { truth, ground, pointOf, pairs, priors, start } = block(11);
    const tracks = chainTracks(pairs);
    const points = triangulateOnRelief(tracks, start, flat);
    const result = bundleAdjust(start, tracks, points, priors, { obsSigmaPx: 1 });
    const angleErr = result.cameras.flatMap((c, k) => [c.pitch - truth[k]!.pitch, c.roll - truth[k]!.roll].map((d) => Math.abs(d) / deg));
    const yawErr = result.cameras.map((c, k) => Math.abs(c.yaw - truth[k]!.yaw) / deg);
    const posErr = result.cameras.map((c, k) => Math.hypot(c.E - truth[k]!.E, c.N - truth[k]!.N, c.Z - truth[k]!.Z));
    // Every track is one ground point, known by its first observation's pixel.
    const pointErr: number[] = [], heightErr: number[] = [];
    for (let t = 0; t + 1 < tracks.start.length; t++) {
      const o = tracks.start[t]!;
      const g = ground[pointOf.get(`${tracks.cam[o]}:${tracks.u[o]}:${tracks.v[o]}`)!]!;
      pointErr.push(Math.hypot(g[0] - result.points[3 * t]!, g[1] - result.points[3 * t + 1]!));
      heightErr.push(g[2] - result.points[3 * t + 2]!);
    }
    const rms = (a: number[]) => Math.sqrt(a.reduce((s, v) => s + v * v, 0) / a.length);
    console.log(`bundle: ${tracks.start.length - 1} tracks, ${result.iterations} iterations, ${result.rmsPx.toFixed(2)} px; tilt error RMS ${rms(angleErr).toFixed(3)}° (max ${Math.max(...angleErr).toFixed(3)}°), yaw ${rms(yawErr).toFixed(3)}°, centres ${rms(posErr).toFixed(2)} m, points ${rms(pointErr).toFixed(2)} m across, ${rms(heightErr).toFixed(2)} m in height`);
    expect(result.rmsPx).toBeLessThan(1);
    expect(rms(angleErr)).toBeLessThan(0.25);
    expect(Math.max(...angleErr)).toBeLessThan(0.6);
    expect(rms(yawErr)).toBeLessThan(0.25);
    expect(rms(pointErr)).toBeLessThan(0.5);
    expect(rms(heightErr)).toBeLessThan(0.8);
    // Before: nadir cameras on flat ground put the points metres off.
    const flatErr = rms(Array.from({ length: tracks.start.length - 1 }, (_, t) => Math.abs(points[3 * t + 2]! - hillAt(points[3 * t]!, points[3 * t + 1]!))));
    expect(flatErr).toBeGreaterThan(1);
  });

  it('calibrates a focal length started 3 % off and a radial k1 started at 0 (true −0.05), shared by all photos', () => {
    const { truth, pairs, priors, start } = block(23);
    const wrong = start.map((c) => ({ ...c, f: c.f * 1.03, k1: 0 }));
    const tracks = chainTracks(pairs);
    const points = triangulateOnRelief(tracks, wrong, flat);
    const group = wrong.map(() => 0);
    const result = bundleAdjust(wrong, tracks, points, priors, { obsSigmaPx: 1, focal: { group, sigmaShare: 0.05, k1Sigma: 0.1 } });
    const fixed = bundleAdjust(wrong, tracks, points, priors, { obsSigmaPx: 1 });
    const fErr = result.cameras[0]!.f / truth[0]!.f - 1;
    console.log(`bundle focal: started +3 %, ended ${(fErr * 100).toFixed(2)} %; k1 ${result.cameras[0]!.k1.toFixed(4)} (${result.rmsPx.toFixed(2)} px; fixed focal ${fixed.rmsPx.toFixed(2)} px)`);
    expect(new Set(result.cameras.map((c) => c.f)).size).toBe(1);
    expect(Math.abs(fErr)).toBeLessThan(0.005);
    expect(Math.abs(result.cameras[0]!.k1 - truth[0]!.k1)).toBeLessThan(0.01);
    expect(result.rmsPx).toBeLessThan(fixed.rmsPx);
  });
});
