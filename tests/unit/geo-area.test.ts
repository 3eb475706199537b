// Field areas against GeographicLib's own Planimeter (Debian geographiclib-tools) as the oracle.
import { execFileSync, spawnSync } from 'node:child_process';
import type { Polygon, Position } from 'geojson';
import { describe, expect, it } from 'vitest';
import { geometryAreaHa } from '@/lib/geo/area';

const hasPlanimeter = spawnSync('Planimeter', ['--version']).status === 0;
if (!hasPlanimeter) console.warn('skipping area oracle tests: Planimeter (apt-get install geographiclib-tools) not found');

function planimeterM2(ring: Position[]): number {
  const input = ring.map(([lon, lat]) => `${lat} ${lon}`).join('\n');
  const out = execFileSync('Planimeter', ['-p', '6'], { input }).toString().trim().split(/\s+/);
  return Math.abs(Number(out[2]));
}

const rect = (lon: number, lat: number, dLon: number, dLat: number): Position[] => [
  [lon, lat],
  [lon + dLon, lat],
  [lon + dLon, lat + dLat],
  [lon, lat + dLat],
  [lon, lat],
];

const cases: { name: string; polygon: Polygon }[] = [
  { name: 'small field (~1 ha) in Slovakia', polygon: { type: 'Polygon', coordinates: [rect(17.1, 48.15, 0.00135, 0.0009)] } },
  { name: 'large block (~100 km²) in the Kuban', polygon: { type: 'Polygon', coordinates: [rect(39.0, 45.0, 0.127, 0.09)] } },
  { name: 'high latitude (78° N)', polygon: { type: 'Polygon', coordinates: [rect(15.0, 78.0, 0.05, 0.01)] } },
  {
    name: 'irregular field with a hole',
    polygon: {
      type: 'Polygon',
      coordinates: [
        [[37.6, 55.7], [37.62, 55.701], [37.625, 55.712], [37.61, 55.72], [37.598, 55.71], [37.6, 55.7]],
        [[37.605, 55.705], [37.605, 55.708], [37.61, 55.708], [37.61, 55.705], [37.605, 55.705]],
      ],
    },
  },
];

describe('geodesic field area', () => {
  for (const c of cases) {
    it.skipIf(!hasPlanimeter)(`${c.name}: within 0.01 % of GeographicLib`, () => {
      const [outer, ...holes] = c.polygon.coordinates;
      const expectedHa = (planimeterM2(outer!) - holes.reduce((s, h) => s + planimeterM2(h), 0)) / 10_000;
      const got = geometryAreaHa(c.polygon);
      expect(Math.abs(got - expectedHa) / expectedHa).toBeLessThan(1e-4);
    });
  }

  it('does not depend on ring orientation and sums multipolygon parts', () => {
    const ring = rect(20, 50, 0.01, 0.01);
    const a = geometryAreaHa({ type: 'Polygon', coordinates: [ring] });
    const b = geometryAreaHa({ type: 'Polygon', coordinates: [[...ring].reverse()] });
    expect(a).toBeCloseTo(b, 9);
    expect(geometryAreaHa({ type: 'MultiPolygon', coordinates: [[ring], [rect(21, 50, 0.01, 0.01)]] })).toBeCloseTo(2 * a, 6);
  });
});
