import type { Polygon } from 'geojson';
import { describe, expect, it } from 'vitest';
import { geometryAreaHa } from '@/lib/geo/area';
import { separateGeometry } from '@/lib/geo/separate';
import { geometryUnion } from '@/lib/geo/union';

const rect = (x0: number, x1: number, y0 = 50, y1 = 50.01): Polygon => ({ type: 'Polygon', coordinates: [[[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]] });

describe('separateGeometry', () => {
  it('takes a merged parcel back out of the union: the parcel as it was, and the rest', () => {
    const parcels = [rect(10, 10.01), rect(10.01, 10.02), rect(10.02, 10.03)];
    const { part, rest } = separateGeometry(geometryUnion(parcels), parcels[1]!);
    expect(geometryAreaHa(part!)).toBeCloseTo(geometryAreaHa(parcels[1]!), 6);
    // The middle parcel out: the other two, apart, as a MultiPolygon.
    expect(rest!.type).toBe('MultiPolygon');
    expect(geometryAreaHa(rest!)).toBeCloseTo(geometryAreaHa(parcels[0]!) + geometryAreaHa(parcels[2]!), 6);
  });

  it('keeps of the parcel only what lies within the boundary now', () => {
    const { part, rest } = separateGeometry(rect(10, 10.015), rect(10.01, 10.02));
    expect(geometryAreaHa(part!)).toBeCloseTo(geometryAreaHa(rect(10.01, 10.015)), 6);
    expect(part!.type).toBe('Polygon');
    expect(geometryAreaHa(rest!)).toBeCloseTo(geometryAreaHa(rect(10, 10.01)), 6);
  });

  it('answers null for a parcel outside the boundary, or one covering all of it', () => {
    expect(separateGeometry(rect(10, 10.01), rect(10.02, 10.03)).part).toBeNull();
    expect(separateGeometry(rect(10, 10.01), rect(9.99, 10.02)).rest).toBeNull();
  });
});
