// Points in plane rings (point-in-ring.ts): inside, and inside by a depth from every edge.
import { describe, expect, it } from 'vitest';
import { pointDeepInRing, pointInRing } from '@/lib/geo/point-in-ring';

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

describe('pointDeepInRing', () => {
  it('holds only where a disc of the depth around the point lies inside, the notch\'s corner included', () => {
    expect(pointDeepInRing([2.5, 2.5], L, 2.4)).toBe(true);
    expect(pointDeepInRing([2.5, 2.5], L, 2.6)).toBe(false);
    // The nearest boundary is the notch's corner (5, 5), 1.41 m away; the outer edges are 4 m away.
    expect(pointDeepInRing([4, 4], L, 1.4)).toBe(true);
    expect(pointDeepInRing([4, 4], L, 1.5)).toBe(false);
    // 2.12 m from the corner: the notch's edges end there, so their lines (1.5 m off) do not count.
    expect(pointDeepInRing([3.5, 3.5], L, 2.1)).toBe(true);
    expect(pointDeepInRing([6.5, 6.5], L, 0.1)).toBe(false);
  });
});
