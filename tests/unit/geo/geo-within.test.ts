import type { Polygon } from 'geojson';
import { describe, expect, it } from 'vitest';
import { geometryAreaHa } from '@/lib/geo/area';
import { zonesWithin } from '@/lib/geo/within';
import type { ExportZone } from '@/lib/exports/types';

const rect = (x0: number, x1: number, y0 = 50, y1 = 50.01): Polygon => ({ type: 'Polygon', coordinates: [[[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]] });
const zone = (classIndex: number, geometry: Polygon): ExportZone => ({ classIndex, name: `${classIndex}`, areaHa: geometryAreaHa(geometry), mean: 0.5, min: 0.4, max: 0.6, color: '#00ff00', geometry });

describe('zonesWithin', () => {
  it('clips zones to the boundary, drops those left outside, and measures what remains', () => {
    const zones = [zone(1, rect(10, 10.004)), zone(2, rect(10.004, 10.01))];
    // The field cut back to its eastern half.
    const within = zonesWithin(rect(10.005, 10.01), zones);
    expect(within.map((z) => z.classIndex)).toEqual([2]);
    expect(within[0]!.areaHa).toBeCloseTo(geometryAreaHa(rect(10.005, 10.01)), 4);
    expect(within[0]).toMatchObject({ name: '2', mean: 0.5, color: '#00ff00' });
  });

  it('leaves zones inside the boundary as they are', () => {
    const zones = [zone(1, rect(10, 10.004)), zone(2, rect(10.004, 10.01))];
    const within = zonesWithin(rect(10, 10.01), zones);
    expect(within.map((z) => z.areaHa)).toEqual(zones.map((z) => expect.closeTo(z.areaHa, 6)));
  });
});
