import { describe, expect, it } from 'vitest';
import { geometryAreaHa } from '@/lib/geo/area';
import { metresPerDegree, metresToDegrees, simplifyGeometry, simplifyGeometryText } from '@/lib/geo/simplify';
import type { Polygon, Position } from 'geojson';

/** A ring of `n` corners around (lon, lat), `radius` metres across, its radius wobbling by 1 %. */
function wobblyRing(lon: number, lat: number, radius: number, n: number): Position[] {
  const per = metresPerDegree(lat);
  const ring = Array.from({ length: n }, (_, i) => {
    const a = (2 * Math.PI * i) / n;
    const r = radius * (1 + 0.01 * Math.sin(7 * a));
    return [lon + (r * Math.cos(a)) / per.lon, lat + (r * Math.sin(a)) / per.lat];
  });
  return [...ring, ring[0]!];
}

describe('metresToDegrees', () => {
  it('takes the longer of a degree of latitude and of longitude', () => {
    expect(metresPerDegree(0).lon).toBeCloseTo(111_319.5, 0);
    expect(metresPerDegree(45).lat).toBeCloseTo(111_131.7, 0);
    expect(metresToDegrees(111_319.5, 0)).toBeCloseTo(1, 5);
    // At 60° a degree of longitude is half as long: the latitude's degree decides.
    expect(metresToDegrees(100, 60)).toBeCloseTo(100 / metresPerDegree(60).lat, 12);
  });
});

describe('simplifyGeometry', () => {
  const field: Polygon = { type: 'Polygon', coordinates: [wobblyRing(39, 47, 500, 200)] };

  it('drops corners within the tolerance and keeps the shape', () => {
    const simple = simplifyGeometry(field, 5) as Polygon;
    expect(simple.type).toBe('Polygon');
    expect(simple.coordinates[0]!.length).toBeLessThan(100);
    expect(simple.coordinates[0]!.length).toBeGreaterThanOrEqual(4);
    expect(simple.coordinates[0]!.at(-1)).toEqual(simple.coordinates[0]![0]);
    expect(geometryAreaHa(simple) / geometryAreaHa(field)).toBeGreaterThan(0.97);
    // The stored geometry is not touched.
    expect(field.coordinates[0]).toHaveLength(201);
  });

  it('keeps holes', () => {
    const holed: Polygon = { type: 'Polygon', coordinates: [wobblyRing(39, 47, 500, 200), wobblyRing(39, 47, 100, 100).reverse()] };
    const simple = simplifyGeometry(holed, 2) as Polygon;
    expect(simple.coordinates).toHaveLength(2);
    expect(simple.coordinates[1]!.length).toBeLessThan(100);
  });

  it('simplifies each part of a MultiPolygon', () => {
    const multi = { type: 'MultiPolygon' as const, coordinates: [[wobblyRing(39, 47, 500, 200)], [wobblyRing(39.1, 47, 500, 150)]] };
    const simple = simplifyGeometry(multi, 5);
    expect(simple.type).toBe('MultiPolygon');
    expect(simple.coordinates.map((p) => (p as Position[][])[0]!.length < 100)).toEqual([true, true]);
  });

  it('draws a field smaller than the tolerance with four corners or more, within a finer one', () => {
    const tiny: Polygon = { type: 'Polygon', coordinates: [wobblyRing(39, 47, 3, 60)] };
    const simple = simplifyGeometry(tiny, 50) as Polygon;
    expect(simple.coordinates[0]!.length).toBeGreaterThanOrEqual(5);
    expect(simple.coordinates[0]!.length).toBeLessThan(60);
    // Not the triangle of half its area turf's polygon simplification makes of it.
    expect(geometryAreaHa(simple) / geometryAreaHa(tiny)).toBeGreaterThan(0.6);
  });

  it('answers a field that collapses even at 1/64 of the tolerance as it is', () => {
    const tiny: Polygon = { type: 'Polygon', coordinates: [wobblyRing(39, 47, 3, 60)] };
    expect(simplifyGeometry(tiny, 5000)).toBe(tiny);
    // One part collapsing keeps the whole field as stored (its area is the stored one's).
    const multi = { type: 'MultiPolygon' as const, coordinates: [[wobblyRing(39, 47, 500, 200)], [wobblyRing(39.1, 47, 3, 40)]] };
    expect(simplifyGeometry(multi, 5000)).toBe(multi);
    // A hole collapsing, too.
    const holed: Polygon = { type: 'Polygon', coordinates: [wobblyRing(39, 47, 500, 200), wobblyRing(39, 47, 3, 40).reverse()] };
    expect(simplifyGeometry(holed, 5000)).toBe(holed);
  });

  it('answers a field whose simplified rings would be invalid as it is', () => {
    // A hole running along the outer ring, 1 m inside it: simplified 20 m apart, the two cross.
    const outer = wobblyRing(39, 47, 500, 200);
    const hole = wobblyRing(39, 47, 499, 37).reverse();
    const field2: Polygon = { type: 'Polygon', coordinates: [outer, hole] };
    expect(simplifyGeometry(field2, 20)).toBe(field2);
  });
});

describe('simplifyGeometryText', () => {
  it('answers a field kept as stored with its stored text', () => {
    const text = JSON.stringify({ type: 'Polygon', coordinates: [wobblyRing(39, 47, 3, 60)] });
    expect(simplifyGeometryText(text, 5000)).toBe(text);
    const big = JSON.stringify({ type: 'Polygon', coordinates: [wobblyRing(39, 47, 500, 200)] });
    expect(JSON.parse(simplifyGeometryText(big, 5)).coordinates[0].length).toBeLessThan(100);
  });
});
