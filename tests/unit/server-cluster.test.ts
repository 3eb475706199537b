import { describe, expect, it } from 'vitest';
import { type Windows, countHit } from '@/lib/http/rate-limit';
import { webConcurrency } from '@/lib/server/cluster';

describe('web processes', () => {
  it('are one per core by default, at most 8, and WEB_CONCURRENCY chooses otherwise', () => {
    expect(webConcurrency(undefined, 2)).toBe(2);
    expect(webConcurrency('', 1)).toBe(1);
    expect(webConcurrency(undefined, 64)).toBe(8);
    expect(webConcurrency('3', 2)).toBe(3);
    expect(webConcurrency('1', 16)).toBe(1);
  });

  it('refuse a WEB_CONCURRENCY that is not a whole number from 1 to 64, naming it', () => {
    for (const bad of ['0', '-1', '2.5', 'two', '65']) expect(() => webConcurrency(bad, 2)).toThrow(/WEB_CONCURRENCY: must be a whole number from 1 to 64/);
  });
});

describe('rate limits counted in memory', () => {
  it('open a window with its first request and count within it, per key', () => {
    const windows: Windows = new Map();
    const t0 = 1_000_000;
    expect(countHit(windows, 'a', 60, t0)).toEqual({ count: 1, resetSeconds: 60 });
    expect(countHit(windows, 'a', 60, t0 + 59_500)).toEqual({ count: 2, resetSeconds: 1 });
    expect(countHit(windows, 'b', 60, t0 + 59_500)).toEqual({ count: 1, resetSeconds: 60 });
    // The window ends 60 s after its first request, not on the clock's minute.
    expect(countHit(windows, 'a', 60, t0 + 60_000)).toEqual({ count: 1, resetSeconds: 60 });
  });

  it('forget ended windows once there are many', () => {
    const windows: Windows = new Map();
    for (let i = 0; i <= 10_000; i++) countHit(windows, `k${i}`, 1, 0);
    countHit(windows, 'late', 1, 5_000);
    expect(windows.size).toBe(1);
  });
});
