// Zone borders smoothed of their pixel stairs: shared borders stay shared (every point of the grid in
// exactly one zone), rings stay simple, and a diagonal becomes one straight edge.
import { kinks, polygon } from '@turf/turf';
import { describe, expect, it } from 'vitest';
import { pointInRing } from '@/lib/geo/point-in-ring';
import { polygonizeLabels, type GridPolygon } from '@/lib/raster/polygonize';
import { borderGrid, simplifyBorders } from '@/lib/raster/simplify-borders';

type Zones = Map<number, GridPolygon[]>;

const inPolygon = (p: [number, number], poly: GridPolygon) => pointInRing(p, poly[0]!) && !poly.slice(1).some((hole) => pointInRing(p, hole));
const vertexCount = (zones: Zones) => [...zones.values()].flat(2).reduce((n, ring) => n + ring.length - 1, 0);

/** Points where rings cross or touch themselves (traced rings touch at a patch's diagonal corners). */
const kinkPoints = (zones: Zones) => new Set([...zones.values()].flat().flatMap((poly) => kinks(polygon(poly)).features.map((f) => f.geometry.coordinates.join())));

/** How many zones hold each of many points spread over the grid (off its lines, and off any border through two vertices). */
function coverCounts(zones: Zones, width: number, height: number): number[] {
  const counts: number[] = [];
  for (let y = 0.1307; y < height; y += 0.6671) {
    for (let x = 0.0713; x < width; x += 0.7097) {
      counts.push([...zones.values()].flat().filter((poly) => inPolygon([x, y], poly)).length);
    }
  }
  return counts;
}

/** Classes 1..4 of a smooth random surface: patches of each class, with islands and holes. */
function classGrid(width: number, height: number, seed: number): Int32Array {
  let s = seed;
  const random = () => ((s = (s * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
  const waves = Array.from({ length: 6 }, () => ({ fx: random() * 0.5, fy: random() * 0.5, phase: random() * 6.3 }));
  const labels = new Int32Array(width * height);
  for (let r = 0; r < height; r++) {
    for (let c = 0; c < width; c++) {
      const v = waves.reduce((sum, w) => sum + Math.sin(c * w.fx + r * w.fy + w.phase), 0) / waves.length;
      labels[r * width + c] = Math.min(4, Math.max(1, Math.floor((v + 0.5) * 4) + 1));
    }
  }
  return labels;
}

describe('zone border simplification', () => {
  it('turns the stairs of a diagonal border into one straight edge that both zones share', () => {
    const n = 40;
    const labels = new Int32Array(n * n).map((_, i) => (i % n > Math.floor(i / n) ? 1 : 2));
    const traced = polygonizeLabels(labels, n, n, 2);
    const smooth = simplifyBorders(traced, borderGrid(labels, n, n), 1);
    expect(vertexCount(traced)).toBeGreaterThan(150);
    // Each zone is a triangle-like shape: its two grid sides and one diagonal (plus one stair at a corner at most).
    for (const polys of smooth.values()) {
      expect(polys).toHaveLength(1);
      expect(polys[0]![0]!.length - 1).toBeLessThanOrEqual(5);
    }
    const upper = new Set(smooth.get(1)![0]![0]!.map((p) => p.join()));
    const shared = smooth.get(2)![0]![0]!.filter((p) => upper.has(p.join()));
    expect(shared.length).toBeGreaterThanOrEqual(2);
    expect(coverCounts(smooth, n, n).every((c) => c === 1)).toBe(true);
  });

  it.each([1, 7, 42, 2024])('leaves no gap, no overlap and no crossing ring on a patchwork of classes (seed %i)', (seed) => {
    const [width, height] = [70, 50];
    const labels = classGrid(width, height, seed);
    const traced = polygonizeLabels(labels, width, height, 4);
    for (const tolerance of [1, 3]) {
      const smooth = simplifyBorders(traced, borderGrid(labels, width, height), tolerance);
      expect(vertexCount(smooth)).toBeLessThan(vertexCount(traced) * 0.8);
      expect(coverCounts(smooth, width, height).every((c) => c === 1)).toBe(true);
      // No new crossing: at most the diagonal touches the traced rings had (split later, splitSelfTouchingRings).
      expect([...kinkPoints(smooth)].filter((p) => !kinkPoints(traced).has(p))).toEqual([]);
    }
  });

  it('keeps the traced edges of a border that simplifying would make cross its neighbour', () => {
    // A one-cell-wide channel of class 2 between two bands of class 1: with a tolerance of 5 cells the
    // channel's two walls would each collapse onto the other.
    const [width, height] = [30, 9];
    const labels = new Int32Array(width * height).map((_, i) => {
      const [c, r] = [i % width, Math.floor(i / width)];
      const wall = 4 + Math.round(Math.sin(c / 2));
      return r === wall ? 2 : r < wall ? 1 : 3;
    });
    const traced = polygonizeLabels(labels, width, height, 3);
    const smooth = simplifyBorders(traced, borderGrid(labels, width, height), 5);
    expect(coverCounts(smooth, width, height).every((c) => c === 1)).toBe(true);
    expect([...kinkPoints(smooth)].filter((p) => !kinkPoints(traced).has(p))).toEqual([]);
  });

  it('keeps the pixel edges of borders with no zone on one side, which the field boundary clips', () => {
    // A disc of zones (1 inside the diagonal, 2 outside it) in a grid whose corners hold no zone.
    const n = 30;
    const labels = new Int32Array(n * n).map((_, i) => {
      const [c, r] = [i % n, Math.floor(i / n)];
      return (c - 14.5) ** 2 + (r - 14.5) ** 2 > 14 ** 2 ? 0 : c > r ? 1 : 2;
    });
    const traced = polygonizeLabels(labels, n, n, 2);
    const smooth = simplifyBorders(traced, borderGrid(labels, n, n), 1);
    const edgeOf = (zones: Zones) => new Set([...zones.values()].flat(2).flat().map((p) => p.join()).filter((p) => {
      const [x, y] = p.split(',').map(Number) as [number, number];
      return [labels[(y - 1) * n + x - 1], labels[(y - 1) * n + x], labels[y * n + x - 1], labels[y * n + x]].some((l) => !l);
    }));
    expect(edgeOf(smooth)).toEqual(edgeOf(traced));
    expect(vertexCount(smooth)).toBeLessThan(vertexCount(traced));
    const inside = coverCounts(smooth, n, n).length;
    expect(inside).toBeGreaterThan(0);
    expect(coverCounts(smooth, n, n).every((c) => c <= 1)).toBe(true);
  });
});
