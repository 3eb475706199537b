// The bounds that keep one boundary's checks short (lib/geo): rings compared only with those whose
// boxes meet, edges the crossing check would compare counted before it runs, crossings the repair
// may try, duplicates of large boundaries estimated on a grid. Each case here took the only thread
// of a web process for seconds to minutes before; no timing is asserted (the bench measures speed):
// the answers, and the bounds, are.
import type { Position } from 'geojson';
import { booleanPointInPolygon, feature } from '@turf/turf';
import { describe, expect, it } from 'vitest';
import { type FieldGeometry, MAX_RINGS, MAX_SWEEP_PAIRS, boundingBox, checkComplexity, sweepPairs, validateFieldGeometry } from '@/lib/geo/geometry';
import { misnestedRings, nestRings } from '@/lib/geo/nest-rings';
import { boundaryIndex, sampledIntersectionOverUnion } from '@/lib/geo/overlap';
import { repairGeometry } from '@/lib/geo/repair';
import { splitRingAtRepeatedVertices, splitSelfTouchingRings } from '@/lib/geo/ring-split';

const square = (lon: number, lat: number, size: number): Position[] => [[lon, lat], [lon + size, lat], [lon + size, lat + size], [lon, lat + size], [lon, lat]];
const circle = (lon: number, lat: number, r: number, n: number): Position[] => {
  const ring = Array.from({ length: n }, (_, k) => [lon + r * Math.cos((2 * Math.PI * k) / n), lat + r * Math.sin((2 * Math.PI * k) / n)]);
  return [...ring, ring[0]!];
};
/** `count` squares in rows of 150, as the probe's polygon of 20,000 parts lay. */
const sideBySide = (count: number) => Array.from({ length: count }, (_, i) => square(36 + (i % 150) * 0.0005, 56 + Math.floor(i / 150) * 0.0005, 0.0004));

describe('rings compared only with those whose boxes meet', () => {
  it('nests 20,000 parts side by side, and an island in a hole, as before', () => {
    const parts = sideBySide(20_000);
    const g = nestRings(parts);
    expect(g.type).toBe('MultiPolygon');
    expect(g.coordinates).toHaveLength(20_000);
    expect(misnestedRings(g)).toBeUndefined();
    expect(splitSelfTouchingRings(g)).toBeUndefined();
    // Among them a square with a hole, an island in the hole, and a copy of one part.
    const island = nestRings([...parts.slice(0, 100), square(35, 55, 0.01), square(35.002, 55.002, 0.005), square(35.003, 55.003, 0.001)]);
    expect((island.coordinates as Position[][][]).map((p) => p.length).sort()).toEqual([...Array(101).fill(1), 2]);
    expect(misnestedRings({ type: 'MultiPolygon', coordinates: [...parts.slice(0, 100).map((r) => [r]), [parts[42]!.slice().reverse()]] })).toEqual({ problem: 'parts_overlap', part: 43, other: 101 });
  });

  it('splits a ring pinched into 10,000 loops in one pass, each loop a part', () => {
    // A chain of squares, each touching the next at one corner, walked as one ring: out along the
    // bottoms, back along the tops.
    const n = 10_000;
    const size = 0.0001;
    const ring: Position[] = [];
    for (let i = 0; i < n; i++) ring.push([i * size, i * size], [(i + 1) * size, i * size]);
    ring.push([n * size, n * size]);
    for (let i = n - 1; i >= 0; i--) ring.push([(i + 1) * size, (i + 1) * size], [i * size, (i + 1) * size]);
    ring.push(ring[0]!);
    const pieces = splitRingAtRepeatedVertices(ring);
    expect(pieces).toHaveLength(n);
    expect(pieces.every((p) => p.length === 5)).toBe(true);
    const split = splitSelfTouchingRings({ type: 'Polygon', coordinates: [ring] })!;
    expect(split.type).toBe('MultiPolygon');
    expect(split.coordinates).toHaveLength(n);
  });
});

describe('the cost of a boundary counted before it is checked', () => {
  it('counts the pairs of edges the sweep compares: a plain ring a few per edge, nested rings the square of their number', () => {
    expect(sweepPairs({ type: 'Polygon', coordinates: [circle(30, 50, 0.01, 100_000)] })).toBeLessThan(300_000);
    const nested = { type: 'MultiPolygon', coordinates: Array.from({ length: 1000 }, (_, i) => [circle(37, 55, 0.01 * (1 - i / 1000), 96)]) } as FieldGeometry;
    expect(sweepPairs(nested)).toBeGreaterThan(100_000_000);
    expect(() => checkComplexity(nested)).toThrow(expect.objectContaining({ key: 'geometry_too_complex' }));
    expect(() => validateFieldGeometry(nested)).toThrow(expect.objectContaining({ key: 'geometry_too_complex' }));
  });

  it('refuses more rings than the bound before comparing any, and a ring wound round one vertex 30,000 times as too intricate', () => {
    const many = { type: 'MultiPolygon', coordinates: sideBySide(MAX_RINGS + 1).map((r) => [r]) } as FieldGeometry;
    expect(() => validateFieldGeometry(many)).toThrow(expect.objectContaining({ key: 'geometry_too_many_rings', params: { count: MAX_RINGS + 1, max: MAX_RINGS } }));
    const flower: Position[] = [];
    for (let k = 0; k < 30_000; k++) {
      const [a, b] = [(2 * Math.PI * k) / 30_000, (2 * Math.PI * (k + 0.5)) / 30_000];
      flower.push([38, 54], [38 + 0.01 * Math.cos(a), 54 + 0.01 * Math.sin(a)], [38 + 0.01 * Math.cos(b), 54 + 0.01 * Math.sin(b)]);
    }
    flower.push([38, 54]);
    expect(sweepPairs({ type: 'Polygon', coordinates: [flower] }, MAX_SWEEP_PAIRS)).toBeGreaterThan(MAX_SWEEP_PAIRS);
    expect(() => validateFieldGeometry({ type: 'Polygon', coordinates: [flower] })).toThrow(expect.objectContaining({ key: 'geometry_too_complex' }));
  });

  it('keeps 1,000 parts side by side, the bound, well within the sweep bound', () => {
    const g = { type: 'MultiPolygon', coordinates: sideBySide(MAX_RINGS).map((r) => [r]) } as FieldGeometry;
    expect(sweepPairs(g)).toBeLessThan(MAX_SWEEP_PAIRS / 5);
    expect(validateFieldGeometry(g).coordinates).toHaveLength(MAX_RINGS);
  });

  it('repairs a walk that overshoots its start, and refuses to try a ring crossing itself 90,000 times', () => {
    const walk: FieldGeometry = { type: 'Polygon', coordinates: [[[39.6, 47.26], [39.6, 47.27], [39.61, 47.27], [39.61, 47.26], [39.6001, 47.26], [39.59995, 47.26005], [39.6, 47.26]]] };
    expect(() => validateFieldGeometry(walk)).toThrow(expect.objectContaining({ key: 'geometry_self_intersection' }));
    expect(repairGeometry(walk)).toBeDefined();
    const grid: Position[] = [];
    for (let i = 0; i < 300; i++) grid.push(...(i % 2 ? [[40.03, 52 + i * 1e-4], [40, 52 + i * 1e-4]] : [[40, 52 + i * 1e-4], [40.03, 52 + i * 1e-4]]));
    for (let i = 0; i < 300; i++) grid.push(...(i % 2 ? [[40 + i * 1e-4, 51.999], [40 + i * 1e-4, 52.03]] : [[40 + i * 1e-4, 52.03], [40 + i * 1e-4, 51.999]]));
    grid.push(grid[0]!);
    const tangled: FieldGeometry = { type: 'Polygon', coordinates: [grid] };
    expect(() => validateFieldGeometry(tangled)).toThrow(expect.objectContaining({ key: 'geometry_self_intersection' }));
    expect(repairGeometry(tangled)).toBeUndefined();
  });
});

describe('duplicates of large boundaries', () => {
  it('the sampled overlap counts the same grid points inside as turf does, edge by row instead of point by edge', () => {
    const a: FieldGeometry = { type: 'Polygon', coordinates: [circle(30, 50, 0.01, 5000), circle(30.002, 50.001, 0.003, 300)] };
    // Parts apart, as validation keeps them: the grid counts them by the even-odd rule.
    const b: FieldGeometry = { type: 'MultiPolygon', coordinates: [[circle(30.004, 50, 0.01, 3000)], [square(30.016, 49.995, 0.004)]] };
    // The reference: the old estimate, every grid point tested against every edge.
    const [ba, bb] = [boundingBox(a), boundingBox(b)];
    const [w, s] = [Math.min(ba.minLon, bb.minLon), Math.min(ba.minLat, bb.minLat)];
    const [dx, dy] = [(Math.max(ba.maxLon, bb.maxLon) - w) / 120, (Math.max(ba.maxLat, bb.maxLat) - s) / 120];
    let [both, either] = [0, 0];
    for (let i = 0; i < 120; i++) {
      for (let j = 0; j < 120; j++) {
        const p = [w + (i + 0.5) * dx, s + (j + 0.5) * dy];
        const [inA, inB] = [booleanPointInPolygon(p, feature(a)), booleanPointInPolygon(p, feature(b))];
        both += Number(inA && inB);
        either += Number(inA || inB);
      }
    }
    expect(sampledIntersectionOverUnion(a, b)).toBe(both / either);
  });

  it('finds a boundary of 100,000 vertices imported twice, and not one a tenth of its width away', () => {
    const big: FieldGeometry = { type: 'Polygon', coordinates: [circle(30, 50, 0.01, 100_000)] };
    const index = boundaryIndex([big]);
    const copy = JSON.parse(JSON.stringify(big)) as FieldGeometry;
    expect(index.hasDuplicate(boundingBox(copy), () => copy)).toBe(true);
    const moved: FieldGeometry = { type: 'Polygon', coordinates: [circle(30.002, 50, 0.01, 100_000)] };
    expect(index.hasDuplicate(boundingBox(moved), () => moved)).toBe(false);
    const nudged: FieldGeometry = { type: 'Polygon', coordinates: [circle(30.00001, 50, 0.01, 100_000)] };
    expect(index.hasDuplicate(boundingBox(nudged), () => nudged)).toBe(true);
  });
});
