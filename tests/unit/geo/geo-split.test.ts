import type { Polygon } from 'geojson';
import { describe, expect, it } from 'vitest';
import { geometryAreaM2 } from '@/lib/geo/area';
import type { FieldGeometry } from '@/lib/geo/geometry';
import { splitGeometry } from '@/lib/geo/split';
import { AppError } from '@/lib/errors';

const square = (x: number, y: number, d = 0.01): Polygon => ({
  type: 'Polygon',
  coordinates: [[[x, y], [x + d, y], [x + d, y + d], [x, y + d], [x, y]]],
});
const total = (parts: Polygon[]) => parts.reduce((s, p) => s + geometryAreaM2(p), 0);
/**
 * The parts' areas add up to the field's within 0.001 %: a cut that ends on an east-west edge splits
 * it in two geodesics, which bow towards the pole less than the one did (0.7 km at 50°: 4 m²).
 */
const sameArea = (a: number, b: number) => expect(Math.abs(a - b) / b).toBeLessThan(1e-5);
const refusal = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e instanceof AppError ? e.key : String(e);
  }
  return 'no error';
};

describe('splitGeometry', () => {
  it('cuts a square in two along a straight line, the larger part first, areas adding up', () => {
    const field = square(10, 50);
    const parts = splitGeometry(field, [[10.003, 49.99], [10.003, 50.02]]);
    expect(parts).toHaveLength(2);
    expect(geometryAreaM2(parts[0]!) / geometryAreaM2(field)).toBeCloseTo(0.7, 3);
    sameArea(total(parts), geometryAreaM2(field));
    // Whichever way the line is drawn, the same parts.
    const reversed = splitGeometry(field, [[10.003, 50.02], [10.003, 49.99]]);
    expect(reversed.map(geometryAreaM2)).toEqual(parts.map(geometryAreaM2).map((a) => expect.closeTo(a, 3)));
  });

  it('follows a bent line, and a short line is extended across the field', () => {
    const field = square(10, 50);
    // An L: in from the south, then east. Its ends stop inside the field; they are carried on to its edges.
    const parts = splitGeometry(field, [[10.004, 50.001], [10.004, 50.005], [10.009, 50.005]]);
    expect(parts).toHaveLength(2);
    sameArea(total(parts), geometryAreaM2(field));
    const smaller = geometryAreaM2(parts[1]!) / geometryAreaM2(field);
    expect(smaller).toBeCloseTo(0.3, 2);
  });

  it('gives each separate piece as a part: a U cut across both arms is three', () => {
    const u: FieldGeometry = { type: 'Polygon', coordinates: [[[0, 0], [3, 0], [3, 3], [2, 3], [2, 1], [1, 1], [1, 3], [0, 3], [0, 0]].map(([x, y]) => [10 + x! / 1000, 50 + y! / 1000])] };
    const parts = splitGeometry(u, [[9.999, 50.002], [10.004, 50.002]]);
    expect(parts).toHaveLength(3);
    sameArea(total(parts), geometryAreaM2(u));
  });

  it('refuses a line that misses the field or crosses itself', () => {
    expect(refusal(() => splitGeometry(square(10, 50), [[11, 50], [11, 51]]))).toBe('split_line_misses');
    expect(refusal(() => splitGeometry(square(10, 50), [[10.002, 49.99], [10.002, 50.02], [10.008, 50.005], [9.99, 50.005]]))).toBe('split_line_crosses_itself');
  });
});
