import { describe, expect, it } from 'vitest';
import { geometryAreaM2 } from '@/lib/geo/area';
import type { Polygon } from 'geojson';
import type { FieldGeometry } from '@/lib/geo/geometry';
import { geometryUnion } from '@/lib/geo/union';

const square = (x: number, y: number, d = 0.01): Polygon => ({
  type: 'Polygon',
  coordinates: [[[x, y], [x + d, y], [x + d, y + d], [x, y + d], [x, y]]],
});
const ring = (x: number, y: number, d: number) => [[x, y], [x, y + d], [x + d, y + d], [x + d, y], [x, y]];

describe('geometryUnion', () => {
  it('joins squares that share an edge into one ring, with their area', () => {
    const u = geometryUnion([square(10, 50), square(10.01, 50)]);
    expect(u.type).toBe('Polygon');
    expect(u.coordinates).toHaveLength(1);
    expect(geometryAreaM2(u)).toBeCloseTo(geometryAreaM2(square(10, 50)) + geometryAreaM2(square(10.01, 50)), 0);
  });

  it('counts overlapping ground once', () => {
    const u = geometryUnion([square(10, 50), square(10.005, 50)]);
    expect(u.type).toBe('Polygon');
    const covered: FieldGeometry = { type: 'Polygon', coordinates: [[[10, 50], [10.015, 50], [10.015, 50.01], [10, 50.01], [10, 50]]] };
    expect(geometryAreaM2(u)).toBeCloseTo(geometryAreaM2(covered), 0);
  });

  it('keeps parts that do not touch as a MultiPolygon', () => {
    const u = geometryUnion([square(10, 50), square(10.02, 50)]);
    expect(u.type).toBe('MultiPolygon');
    expect(u.coordinates).toHaveLength(2);
  });

  it('keeps a hole no other boundary fills, and drops one that another fills', () => {
    const holed: FieldGeometry = { type: 'Polygon', coordinates: [square(10, 50).coordinates[0]!, ring(10.004, 50.004, 0.002)] };
    const kept = geometryUnion([holed, square(10.01, 50)]);
    expect(kept.type === 'Polygon' && kept.coordinates).toHaveLength(2);
    const filled = geometryUnion([holed, square(10.004, 50.004, 0.002)]);
    expect(filled.type === 'Polygon' && filled.coordinates).toHaveLength(1);
  });
});
