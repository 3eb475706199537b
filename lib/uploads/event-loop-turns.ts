// Long work on a request's own thread (reading a shapefile archive, inserting its rows) hands the event
// loop over now and then, so that health checks and other requests are answered meanwhile.
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Synchronous work between two turns of the event loop, at most (plus the one step that runs over). */
export const TURN_MS = 50;

/**
 * A function to await between steps: it lets the event loop run once `ms` have gone by since it last
 * did, and costs nothing otherwise.
 */
export function turnTaker(ms = TURN_MS): () => Promise<void> | undefined {
  let since = performance.now();
  return () => {
    if (performance.now() - since < ms) return undefined;
    return nextTurn().then(() => {
      since = performance.now();
    });
  };
}
