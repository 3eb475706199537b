// Steps side by side that share a work folder (all-settled.ts): a failure waits for the others.
import { describe, expect, it } from 'vitest';
import { allSettledOrThrow } from '@/lib/drone/all-settled';

/** A step the test settles by hand, noting when it does, so that the order is the test's own. */
function step<T>(name: string, events: string[]) {
  let settle!: (fail: boolean, value: T) => void;
  const promise = new Promise<T>((resolve, reject) => {
    settle = (fail, value) => {
      events.push(`${name} settled`);
      if (fail) reject(new Error(name));
      else resolve(value);
    };
  });
  return { promise, settle };
}

describe('allSettledOrThrow', () => {
  it('gives the values in order, whichever settles first', async () => {
    const events: string[] = [];
    const a = step<string>('a', events), b = step<number>('b', events);
    const all = allSettledOrThrow([a.promise, b.promise]);
    b.settle(false, 1);
    a.settle(false, 'a');
    await expect(all).resolves.toEqual(['a', 1]);
  });

  it('throws the first failure only once the slower steps have settled', async () => {
    const events: string[] = [];
    const early = step<string>('early', events), slow = step<string>('slow', events), late = step<string>('late', events);
    const done = allSettledOrThrow([early.promise, slow.promise, late.promise]).catch((err: Error) => { events.push(`thrown ${err.message}`); });
    early.settle(true, '');
    late.settle(true, '');
    // Two failures are in, and nothing is thrown while a step still runs.
    await new Promise((resolve) => setImmediate(resolve));
    expect(events).toEqual(['early settled', 'late settled']);
    slow.settle(false, 'slow');
    await done;
    expect(events).toEqual(['early settled', 'late settled', 'slow settled', 'thrown early']);
  });
});
