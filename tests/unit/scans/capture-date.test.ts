// The capture date a user gives a scan (at the raster upload or later): the forms accepted, the
// instant each becomes, and what is refused.
import { describe, expect, it } from 'vitest';
import { captureDate, parseCaptureDate } from '@/lib/scans/schemas';

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

describe('parseCaptureDate, for the dates files carry', () => {
  it('keeps a TIFF or EXIF date as the day written, whatever the server zone', () => {
    const zone = process.env.TZ;
    process.env.TZ = 'Asia/Novosibirsk';
    try {
      expect(parseCaptureDate('2019-09-04T00:30:00')?.toISOString()).toBe('2019-09-04T00:30:00.000Z');
      expect(parseCaptureDate('2016-06-23T16:31:59+02:00')?.toISOString()).toBe('2016-06-23T14:31:59.000Z');
    } finally {
      process.env.TZ = zone;
    }
  });

  it('takes no date from a camera that wrote none, a day that does not exist or a clock set ahead', () => {
    // Each of these once reached the database as `Invalid Date` (the task failed saving with Prisma's dump) or as another day.
    for (const text of ['0000-00-00T00:00:00', '2019-02-30T10:00:00', '2099-01-01T00:00:00', '1850-01-01']) expect(parseCaptureDate(text), text).toBeNull();
  });
});
