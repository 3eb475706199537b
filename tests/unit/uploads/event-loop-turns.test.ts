// The pause that long work on a request's thread takes between steps (reading a shapefile's records,
// inserting its rows): nothing until TURN_MS have gone by, then one turn of the event loop, in which
// what was waiting (a health check, another request) runs.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TURN_MS, turnTaker } from '@/lib/uploads/event-loop-turns';

afterEach(() => vi.restoreAllMocks());

describe('turns of the event loop during long work', () => {
  it('costs nothing before TURN_MS have gone by, then lets waiting callbacks run, and counts again from there', async () => {
    const now = vi.spyOn(performance, 'now').mockReturnValue(1000);
    const turn = turnTaker();
    now.mockReturnValue(1000 + TURN_MS - 1);
    expect(turn()).toBeUndefined();
    let waited = false;
    setImmediate(() => (waited = true));
    now.mockReturnValue(1000 + TURN_MS);
    await turn();
    expect(waited).toBe(true);
    now.mockReturnValue(1000 + 2 * TURN_MS - 1);
    expect(turn()).toBeUndefined();
  });
});
