import { describe, expect, it } from 'vitest';
import { fieldsUrl, isCoarser, metresPerPixel, usesLevelOfDetail, viewTolerance } from '@/components/map/level-of-detail';

describe('the map’s level of detail', () => {
  it('is used over 1,000 fields only', () => {
    expect(usesLevelOfDetail(1000)).toBe(false);
    expect(usesLevelOfDetail(1001)).toBe(true);
  });

  it('reads at half a pixel, to two digits, exact when that is under half a metre, at most 10 km', () => {
    // Web Mercator: 156 km a pixel at zoom 0 on the equator, half that at 60°.
    expect(metresPerPixel(0, 0)).toBeCloseTo(156_543.03, 1);
    expect(metresPerPixel(10, 60)).toBeCloseTo(156_543.03 / 1024 / 2, 3);
    expect(viewTolerance(10, 48)).toBe(51); // 102.4 m a pixel at 48°
    expect(viewTolerance(11, 48)).toBe(26);
    expect(viewTolerance(16, 48)).toBe(0.8);
    expect(viewTolerance(17, 48)).toBe(0);
    expect(viewTolerance(0, 0)).toBe(10_000);
  });

  it('reads again one zoom level in, not on a pan or a zoom out', () => {
    const first = viewTolerance(10, 48);
    expect(isCoarser(first, viewTolerance(10, 48.3))).toBe(false);
    expect(isCoarser(first, viewTolerance(9, 48))).toBe(false);
    expect(isCoarser(first, viewTolerance(11, 48))).toBe(true);
    // A boundary read as stored is never too coarse; any simplified one is for a view wanting it exact.
    expect(isCoarser(0, 0)).toBe(false);
    expect(isCoarser(0.8, 0)).toBe(true);
  });

  it('writes the list’s address', () => {
    expect(fieldsUrl(0)).toBe('/api/fields');
    expect(fieldsUrl(51)).toBe('/api/fields?simplify=51');
    expect(fieldsUrl(0.8, [17.1234567, 48, 17.5, 48.25])).toBe('/api/fields?bbox=17.123457%2C48%2C17.5%2C48.25&simplify=0.8');
  });
});
