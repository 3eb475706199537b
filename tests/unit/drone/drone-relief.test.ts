// Relief under a drone survey: heights of tie points from their parallax, the smoothed height grid,
// where a pixel lands on it, and the adjustment that accounts for it. Scenes are built by projecting
// known 3D points into nadir photos, so every expected value is exact.
import { describe, expect, it } from 'vitest';
import { adjustPlacements } from '@/lib/drone/adjust';
import type { PairMatch } from '@/lib/drone/features';
import { median } from '@/lib/drone/features';
import { toGround, toPixel, type Placement } from '@/lib/drone/frame';
import { heightAt, onRelief, reliefFactors, reliefGrid, ringOnRelief, tiePointHeights, type TiePoints } from '@/lib/drone/relief';

const H = 40;
const CENTRE: [number, number] = [2000, 1125];
/** Two nadir photos 15 m apart along a line heading north-east, 2 cm pixels. */
const photos: Placement[] = [
  { a: 0.02 * Math.cos(-Math.PI / 4), b: 0.02 * Math.sin(-Math.PI / 4), tx: 500, ty: 800 },
  { a: 0.02 * Math.cos(-Math.PI / 4), b: 0.02 * Math.sin(-Math.PI / 4), tx: 510.6, ty: 810.6 },
];

/** Pixel where a nadir photo `H` metres up sees the ground point (e, n) raised by z. */
function project(p: Placement, e: number, n: number, z: number): [number, number] {
  const k = H / (H - z);
  return toPixel(p, CENTRE[0], CENTRE[1], p.tx + (e - p.tx) * k, p.ty + (n - p.ty) * k);
}

/** A pair of the two photos matching the given 3D points. */
function pairOf(points: [number, number, number][]): PairMatch {
  const pts = new Float64Array(points.length * 4);
  points.forEach(([e, n, z], k) => pts.set([...project(photos[0]!, e, n, z), ...project(photos[1]!, e, n, z)], 4 * k));
  return { i: 0, j: 1, pts, logRatio: [0, 0, 0], gpsDisagreementM: 0, rotation: 0 };
}

/** Ground points spread over the overlap of the two photos, heights from `height`. */
function scene(height: (e: number, n: number) => number): [number, number, number][] {
  const out: [number, number, number][] = [];
  for (let u = -12; u <= 12; u += 0.5) for (let v = -6; v <= 6; v += 0.5) out.push([505.3 + u, 805.3 + v, height(505.3 + u, 805.3 + v)]);
  return out;
}

describe('tiePointHeights', () => {
  it('recovers the height and ground position of points from their parallax between two photos', () => {
    const points = scene((e, n) => ((e + n) % 3) - 1 + (e > 505 ? 4 : 0));
    const tie = tiePointHeights([pairOf(points)], photos, [CENTRE, CENTRE], [H, H]);
    points.forEach(([e, n, z], k) => {
      expect(tie.z[k]).toBeCloseTo(z, 6);
      expect(tie.e[k]).toBeCloseTo(e, 6);
      expect(tie.n[k]).toBeCloseTo(n, 6);
    });
  });
});

describe('reliefGrid and heightAt', () => {
  const cloud = (height: (e: number, n: number) => number): TiePoints => {
    const e: number[] = [], n: number[] = [], z: number[] = [];
    for (let x = 0; x < 40; x += 0.5) for (let y = 0; y < 20; y += 0.5) { e.push(100 + x); n.push(200 + y); z.push(height(100 + x, 200 + y)); }
    return { e: Float64Array.from(e), n: Float64Array.from(n), z: Float64Array.from(z) };
  };

  it('follows a sloping ground inside the tie points', () => {
    const slope = (e: number, n: number) => 0.05 * (e - 100) - 0.02 * (n - 200);
    const g = reliefGrid(cloud(slope), 2);
    // Within 2 cm: a cell's median sits at its points' middle, a quarter cell off its centre here.
    for (const [e, n] of [[104, 204], [117.3, 211.1], [133, 205.5]] as const) expect(Math.abs(heightAt(g, e, n) - slope(e, n))).toBeLessThan(0.02);
    // Beyond the grid the edge value holds, no extrapolation.
    expect(heightAt(g, 1000, 204)).toBeCloseTo(heightAt(g, 139, 204), 6);
  });

  it('smooths a step over a few metres, so the compositing never tears the image', () => {
    const g = reliefGrid(cloud((e) => (e < 120 ? 0 : 2)), 2);
    expect(heightAt(g, 105, 210)).toBeCloseTo(0, 6);
    expect(heightAt(g, 135, 210)).toBeCloseTo(2, 6);
    for (let e = 110; e < 130; e += 0.25) {
      expect(Math.abs(heightAt(g, e + 0.25, 210) - heightAt(g, e, 210))).toBeLessThan(0.2);
    }
  });

  it('follows a hill where tie points are too sparse for the fine cells, from the coarser grid', () => {
    // One point every 1.5 m: a 2 m cell holds 1-4 (under 5), a 4 m cell 4-9, an 8 m cell 25 or more.
    const hill = (e: number, n: number) => 10 * Math.exp(-((e - 130) ** 2 + (n - 130) ** 2) / (2 * 10 ** 2));
    const e: number[] = [], n: number[] = [], z: number[] = [];
    for (let x = 100; x < 160; x += 1.5) for (let y = 100; y < 160; y += 1.5) { e.push(x); n.push(y); z.push(hill(x, y)); }
    const g = reliefGrid({ e: Float64Array.from(e), n: Float64Array.from(n), z: Float64Array.from(z) }, 2);
    // Within 1.2 m of a 10 m hill (4 m cells and the 3×3 mean take some of its top off); flat at the median before.
    for (const [x, y] of [[130, 130], [124, 137], [118, 130], [145, 150]] as const) expect(Math.abs(heightAt(g, x, y) - hill(x, y))).toBeLessThan(1.2);
  });

  it('keeps the heights of the selected tie points only and puts the rest of the ground at their median', () => {
    const all = cloud((e) => (e < 110 ? 1 : 0.5));
    // Only the west half selected: the grid spans it, and far empty cells stay at the median (1).
    const g = reliefGrid(all, 2, (k) => all.e[k]! < 110);
    expect(heightAt(g, 105, 210)).toBeCloseTo(1, 6);
    expect(heightAt(g, 130, 210)).toBeCloseTo(1, 6);
    const none = reliefGrid(all, 2, () => false);
    expect(heightAt(none, 105, 210)).toBe(0);
  });

  it('stays within a million cells when tie points lie kilometres apart, and leaves out points cast to infinity', () => {
    // A block adjusted out of shape: the cloud, and points 5,000 km off and at infinity.
    const flat = cloud(() => 1.5);
    const e = [...flat.e, 5e6, Infinity, NaN], n = [...flat.n, -5e6, 0, 0], z = [...flat.z, 1.5, 1.5, 1.5];
    const g = reliefGrid({ e: Float64Array.from(e), n: Float64Array.from(n), z: Float64Array.from(z) }, 2);
    expect(g.cols * g.rows).toBeLessThanOrEqual(1_000_000);
    expect(g.cellM).toBeGreaterThan(2);
    expect(heightAt(g, 110, 210)).toBeCloseTo(1.5, 6);
    // The cloud alone keeps its 2 m cells.
    expect(reliefGrid(flat, 2).cellM).toBe(2);
  });
});

describe('onRelief', () => {
  it('puts a pixel where its ground point lies, pulled towards the nadir by (1 - h/H)', () => {
    const points = scene(() => 3);
    const pair = pairOf(points);
    const g = reliefGrid(tiePointHeights([pair], photos, [CENTRE, CENTRE], [H, H]), 2);
    points.forEach(([e, n], k) => {
      const flat = toGround(photos[1]!, CENTRE[0], CENTRE[1], pair.pts[4 * k + 2]!, pair.pts[4 * k + 3]!);
      const [x, y] = onRelief(g, [photos[1]!.tx, photos[1]!.ty], H, ...flat);
      expect(Math.hypot(x - e, y - n)).toBeLessThan(1e-6);
      // Flat ground would have put it h/(H - h) of its distance from the nadir farther out.
      expect(Math.hypot(flat[0] - e, flat[1] - n)).toBeCloseTo((Math.hypot(e - photos[1]!.tx, n - photos[1]!.ty) * 3) / (H - 3), 6);
    });
  });
});

describe('ringOnRelief', () => {
  it('traces a footprint over the relief: out by (H - h) / H from the nadir where the ground lies low', () => {
    const low = reliefGrid({ e: Float64Array.of(0, 100, 0, 100, 50), n: Float64Array.of(0, 0, 100, 100, 50), z: Float64Array.of(-2, -2, -2, -2, -2) }, 200);
    const ring: [number, number][] = [[10, 10], [90, 10], [90, 90], [10, 90], [10, 10]];
    const traced = ringOnRelief(low, ring, [50, 50], H, 4);
    expect(traced).toHaveLength(17);
    expect(traced[0]).toEqual(traced.at(-1));
    expect(traced[0]![0]).toBeCloseTo(50 - 40 * (H + 2) / H, 9);
    expect(traced[2]![0]).toBeCloseTo(50, 9); // middle of the south side
    expect(traced[2]![1]).toBeCloseTo(50 - 40 * (H + 2) / H, 9);
  });
});

describe('adjustPlacements on relief', () => {
  it('aligns tie points on a hill exactly once their heights are known, which flat ground cannot', () => {
    const points = scene((e, n) => 3 * Math.sin((e - 500) / 6) * Math.cos((n - 800) / 5));
    const pairs = [pairOf(points)];
    const opts = { gpsSigmaM: 3, matchSigmaM: 0.05, scaleSigma: 0.3 };
    const flat = adjustPlacements(photos, [CENTRE, CENTRE], pairs, opts);
    const tie = tiePointHeights(pairs, photos, [CENTRE, CENTRE], [H, H]);
    const grid = reliefGrid(tie, 2);
    // Factors straight from each point's own height: the exact relief.
    const exact = [Float64Array.from(points.flatMap(([, , z]) => [1 - z / H, 1 - z / H]))];
    const onRelief = adjustPlacements(photos, [CENTRE, CENTRE], pairs, opts, exact);
    expect(median(flat.residualsM)).toBeGreaterThan(0.1);
    expect(Math.max(...onRelief.residualsM)).toBeLessThan(1e-6);
    onRelief.placements.forEach((p, i) => {
      expect(Math.hypot(p.tx - photos[i]!.tx, p.ty - photos[i]!.ty)).toBeLessThan(1e-3);
      expect(Math.abs(p.a / photos[i]!.a - 1)).toBeLessThan(1e-4);
    });
    // The grid's factors (smoothed heights of the same points) get most of the way.
    const gridded = adjustPlacements(photos, [CENTRE, CENTRE], pairs, opts, reliefFactors(pairs, tie, grid, [H, H]));
    expect(median(gridded.residualsM)).toBeLessThan(median(flat.residualsM) / 3);
  });
});
