// The capture date a user gives a scan (at the raster upload or later): the forms accepted, the
// instant each becomes, and what is refused.
import { describe, expect, it } from 'vitest';
import { captureDate } from '@/lib/fields/schemas';

const parse = (v: unknown) => {
  const r = captureDate.safeParse(v);
  return r.success ? r.data.toISOString() : null;
};

describe('captureDate', () => {
  it('keeps a date, or a date-time without an offset, as written', () => {
    expect(parse('2019-09-04')).toBe('2019-09-04T00:00:00.000Z');
    expect(parse(' 2019-09-04 ')).toBe('2019-09-04T00:00:00.000Z');
    expect(parse('2019-09-04T10:30')).toBe('2019-09-04T10:30:00.000Z');
    expect(parse('2019-09-04T10:30:15.250')).toBe('2019-09-04T10:30:15.000Z');
  });

  it('reads a date-time with an offset as the instant it names', () => {
    expect(parse('2019-09-04T10:30:00+02:00')).toBe('2019-09-04T08:30:00.000Z');
    expect(parse('2019-09-04T10:30:00Z')).toBe('2019-09-04T10:30:00.000Z');
  });

  it('refuses days that do not exist, other notations, and dates outside 1900 to today', () => {
    const tomorrowButOne = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    for (const v of ['2019-02-29', '2019-13-01', '2019-9-4', '04.09.2019', '20190904', '', '1899-12-31', tomorrowButOne, 20190904, null]) {
      expect(parse(v), String(v)).toBeNull();
    }
    expect(parse('2020-02-29')).toBe('2020-02-29T00:00:00.000Z');
    expect(parse('1900-01-01')).toBe('1900-01-01T00:00:00.000Z');
    expect(parse(new Date().toISOString().slice(0, 10))).not.toBeNull();
  });
});
