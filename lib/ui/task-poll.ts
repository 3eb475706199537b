// How the task view polls GET /api/tasks/{id} when an answer is not the task.

/** Between answers while the task runs. */
export const POLL_MS = 1000;
/** The longest wait between tries while the server does not answer. */
export const MAX_RETRY_MS = 30_000;
/** Failed tries in a row (about half a minute of waiting) before the failure is shown; polling goes on. */
const SHOW_ERROR_AFTER = 5;

/**
 * After the `failures`-th failed poll in a row, with the answer's status (0: no answer): a refusal (401,
 * 403, 404 and the rest of 4xx) stops and is shown at once, since asking again gets the same; no
 * answer, a 5xx (502/503 while the server restarts), 408 or 429 is tried again after a wait that
 * doubles up to MAX_RETRY_MS, and shown once it has gone on for a while.
 */
export function afterFailedPoll(status: number, failures: number): { stop: boolean; showError: boolean; delayMs: number } {
  const transient = status === 0 || status >= 500 || status === 408 || status === 429;
  if (!transient) return { stop: true, showError: true, delayMs: 0 };
  return { stop: false, showError: failures >= SHOW_ERROR_AFTER, delayMs: Math.min(MAX_RETRY_MS, POLL_MS * 2 ** (failures - 1)) };
}
