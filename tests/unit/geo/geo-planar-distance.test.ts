import { describe, expect, it } from 'vitest';
import { planarDistance } from '@/lib/geo/planar';

describe('planarDistance', () => {
  it('is the Euclidean distance, symmetric, and Math.hypot\'s to the last bits at UTM magnitudes', () => {
    expect(planarDistance(3, 4, 0, 0)).toBe(5);
    expect(planarDistance(0, 0, 3, 4)).toBe(5);
    expect(planarDistance(7, -2, 7, -2)).toBe(0);
    const [e, n, E, N] = [656578.7898752172, 5329351.191584147, 656535.3377945641, 5329309.83485901];
    expect(planarDistance(e, n, E, N)).toBeCloseTo(Math.hypot(e - E, n - N), 9);
  });
});
