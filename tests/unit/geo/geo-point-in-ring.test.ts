// Points in plane rings (point-in-ring.ts): inside, and inside every edge's line by a depth.
import { describe, expect, it } from 'vitest';
import { innerHalfPlanes, insideHalfPlanesBy, pointInRing } from '@/lib/geo/point-in-ring';

// An L-shaped ring, 10 x 10 less its north-east quarter, given without its closing vertex.
const L: [number, number][] = [[0, 0], [10, 0], [10, 5], [5, 5], [5, 10], [0, 10]];

describe('pointInRing', () => {
  it('finds points inside a concave ring and not in its notch', () => {
    expect(pointInRing([2, 8], L)).toBe(true);
    expect(pointInRing([8, 2], L)).toBe(true);
    expect(pointInRing([8, 8], L)).toBe(false);
    expect(pointInRing([-1, 5], L)).toBe(false);
  });
});

describe('insideHalfPlanesBy', () => {
  it('measures the depth inside a convex ring, either way round', () => {
    const square: [number, number][] = [[0, 0], [10, 0], [10, 10], [0, 10]];
    for (const ring of [square, square.slice().reverse()]) {
      const hp = innerHalfPlanes(ring);
      expect(insideHalfPlanesBy(hp, 3, 4, 2.9)).toBe(true);
      expect(insideHalfPlanesBy(hp, 3, 4, 3.1)).toBe(false);
      expect(insideHalfPlanesBy(hp, 11, 5, 0)).toBe(false);
    }
  });

  it('is stricter than the ring where it is not convex, never laxer: only the kernel counts', () => {
    const hp = innerHalfPlanes(L);
    // Inside the ring, 2 m from its edges, but beyond the notch's edge lines.
    expect(pointInRing([8, 2], L)).toBe(true);
    expect(insideHalfPlanesBy(hp, 8, 2, 0)).toBe(false);
    expect(insideHalfPlanesBy(hp, 2.5, 2.5, 2.4)).toBe(true);
    expect(insideHalfPlanesBy(hp, 2.5, 2.5, 2.6)).toBe(false);
    expect(insideHalfPlanesBy(hp, 6.5, 6.5, 0)).toBe(false);
  });
});
