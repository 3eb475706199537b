import { describe, expect, it } from 'vitest';
import { boundingBox, validateFieldGeometry } from '@/lib/geo/geometry';

const square = [[30, 50], [30.01, 50], [30.01, 50.01], [30, 50.01], [30, 50]];
const fails = (g: unknown) => {
  try {
    validateFieldGeometry(g);
  } catch (e) {
    return e as { kind: string; key: string; params: Record<string, unknown> };
  }
  throw new Error('expected the geometry to be refused');
};

describe('field geometry validation', () => {
  it('accepts a polygon, keeps holes, drops a third coordinate', () => {
    const g = validateFieldGeometry({
      type: 'Polygon',
      coordinates: [square.map(([x, y]) => [x, y, 120]), [[30.002, 50.002], [30.004, 50.002], [30.004, 50.004], [30.002, 50.002]]],
    });
    expect(g.type).toBe('Polygon');
    expect(g.coordinates).toHaveLength(2);
    expect((g.coordinates[0] as number[][])[0]).toEqual([30, 50]);
  });

  it('accepts a multipolygon', () => {
    expect(validateFieldGeometry({ type: 'MultiPolygon', coordinates: [[square], [square.map(([x, y]) => [x! + 1, y!])]] }).type).toBe('MultiPolygon');
  });

  it.each([
    ['wrong type', { type: 'LineString', coordinates: square }, 'geometry_wrong_type'],
    ['not an object', 'POLYGON((0 0))', 'geometry_wrong_type'],
    ['unclosed ring', { type: 'Polygon', coordinates: [square.slice(0, 4)] }, 'geometry_ring_not_closed'],
    ['too short ring', { type: 'Polygon', coordinates: [[[30, 50], [30.01, 50], [30, 50]]] }, 'geometry_ring_too_short'],
    ['latitude out of range', { type: 'Polygon', coordinates: [[[30, 95], [31, 95], [31, 96], [30, 95]]] }, 'geometry_out_of_range'],
    ['strings for numbers', { type: 'Polygon', coordinates: [[['30', '50'], [31, 50], [31, 51], ['30', '50']]] }, 'geometry_bad_coordinates'],
    ['zero area', { type: 'Polygon', coordinates: [[[30, 50], [30, 50.01], [30, 50.02], [30, 50]]] }, 'geometry_zero_area'],
  ])('refuses %s', (_name, geometry, key) => {
    expect(fails(geometry)).toMatchObject({ kind: 'unprocessable', key });
  });

  it('refuses rings that do not nest as GeoJSON says, naming them', () => {
    const shifted = (dx: number, dy: number, k = 1) => square.map(([x, y]) => [30 + (x! - 30) * k + dx, 50 + (y! - 50) * k + dy]);
    const inner = shifted(0.002, 0.002, 0.3);
    // A part inside another part: their areas would be added up.
    expect(fails({ type: 'MultiPolygon', coordinates: [[square], [inner]] })).toMatchObject({ key: 'geometry_parts_overlap', params: { part: 2, other: 1 } });
    // A hole outside its polygon.
    expect(fails({ type: 'Polygon', coordinates: [square, shifted(0.02, 0, 0.3)] })).toMatchObject({ key: 'geometry_hole_outside', params: { part: 1, other: 1 } });
    // A hole inside another hole.
    expect(fails({ type: 'Polygon', coordinates: [square, shifted(0.001, 0.001, 0.6), inner] })).toMatchObject({ key: 'geometry_holes_nested' });
    // An island in a hole is a part of its own.
    const island = shifted(0.0025, 0.0025, 0.1);
    expect(validateFieldGeometry({ type: 'MultiPolygon', coordinates: [[square, inner], [island]] }).type).toBe('MultiPolygon');
    // A part or a hole given twice, from another vertex or the other way round: its area counted twice.
    const reversed = [...square].reverse();
    const rotated = [...square.slice(2, 4), ...square.slice(0, 3)];
    for (const copy of [square, reversed, rotated]) expect(fails({ type: 'MultiPolygon', coordinates: [[square], [copy]] })).toMatchObject({ key: 'geometry_parts_overlap' });
    expect(fails({ type: 'Polygon', coordinates: [square, inner, [...inner].reverse()] })).toMatchObject({ key: 'geometry_holes_nested', params: { part: 1, other: 1 } });
  });

  it('reports where a ring crosses itself', () => {
    const bowtie = [[30, 50], [30.01, 50.01], [30.01, 50], [30, 50.01], [30, 50]];
    const err = fails({ type: 'Polygon', coordinates: [bowtie] });
    expect(err.key).toBe('geometry_self_intersection');
    expect(Number(err.params.lon)).toBeCloseTo(30.005, 6);
    expect(Number(err.params.lat)).toBeCloseTo(50.005, 6);
  });

  it('refuses more than 100,000 vertices, a ring’s closing position not counted', () => {
    const circle = (n: number) => {
      const ring = Array.from({ length: n }, (_, i) => [30 + 0.01 * Math.cos((2 * Math.PI * i) / n), 50 + 0.01 * Math.sin((2 * Math.PI * i) / n)]);
      return [...ring, ring[0]!];
    };
    expect(validateFieldGeometry({ type: 'Polygon', coordinates: [circle(100_000)] }).coordinates[0]).toHaveLength(100_001);
    expect(fails({ type: 'Polygon', coordinates: [circle(100_001)] })).toMatchObject({ key: 'geometry_too_many_vertices', params: { count: 100_001 } });
  });

  it('computes the bounding box of the outer rings', () => {
    expect(boundingBox({ type: 'Polygon', coordinates: [square] })).toEqual({ minLon: 30, minLat: 50, maxLon: 30.01, maxLat: 50.01 });
  });
});
