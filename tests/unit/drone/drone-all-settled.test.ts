// Steps side by side that share a work folder (all-settled.ts): a failure waits for the others.
import { describe, expect, it } from 'vitest';
import { allSettledOrThrow } from '@/lib/drone/all-settled';

const after = <T>(ms: number, value: T, events: string[], fail = false) =>
  new Promise<T>((resolve, reject) => setTimeout(() => {
    events.push(`${String(value)} settled`);
    if (fail) reject(new Error(String(value)));
    else resolve(value);
  }, ms));

describe('allSettledOrThrow', () => {
  it('gives the values in order', async () => {
    const events: string[] = [];
    await expect(allSettledOrThrow([after(20, 'a', events), after(5, 1, events)])).resolves.toEqual(['a', 1]);
  });

  it('throws the first failure only once the slower steps have settled', async () => {
    const events: string[] = [];
    const done = allSettledOrThrow([after(5, 'early', events, true), after(40, 'slow', events), after(10, 'late', events, true)])
      .catch((err: Error) => { events.push(`thrown ${err.message}`); });
    await done;
    expect(events).toEqual(['early settled', 'late settled', 'slow settled', 'thrown early']);
  });
});
