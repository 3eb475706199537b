// What the web processes of one server (lib/server/cluster.ts) say to their primary. One of them,
// the runner, runs the embedded background tasks and owns the data folder's clean-up; the others
// hand tasks to it through the primary, and every process counts rate limits in the primary's
// memory, so that a limit holds for the server as a whole.
import type { TaskKind } from '../tasks/types';

/** `runner` or `web` in a process started by the cluster; unset when Next.js runs on its own (`next dev`). */
export type WebRole = 'runner' | 'web';

export const webRole = (): WebRole | undefined => {
  const role = process.env.FIELDMAP_WEB_ROLE;
  return role === 'runner' || role === 'web' ? role : undefined;
};

export type ToPrimary =
  | { fieldmap: 'ready' }
  | { fieldmap: 'task'; id: string; kind: TaskKind }
  | { fieldmap: 'hit'; ask: number; key: string; windowSeconds: number };

export type ToWorker =
  | { fieldmap: 'task'; id: string; kind: TaskKind }
  | { fieldmap: 'hit'; ask: number; count: number; resetSeconds: number };

export const isMessage = <T extends { fieldmap: string }>(m: unknown): m is T =>
  typeof m === 'object' && m !== null && typeof (m as { fieldmap?: unknown }).fieldmap === 'string';

export function tellPrimary(message: ToPrimary): void {
  // Without a channel the primary is gone and this process is about to exit with it.
  if (process.connected) process.send?.(message);
}

// On globalThis: Next.js may load this module more than once in a process (one copy per bundle).
const state = globalThis as unknown as {
  __fieldmapAsks?: { next: number; waiting: Map<number, (m: ToWorker & { fieldmap: 'hit' }) => void> };
};

/** One request against a rate limit, counted by the primary: the count so far in the window and its seconds left. */
export function hitInPrimary(key: string, windowSeconds: number): Promise<{ count: number; resetSeconds: number }> {
  if (!state.__fieldmapAsks) {
    const asks = (state.__fieldmapAsks = { next: 1, waiting: new Map() });
    process.on('message', (m: unknown) => {
      if (!isMessage<ToWorker>(m) || m.fieldmap !== 'hit') return;
      asks.waiting.get(m.ask)?.(m);
      asks.waiting.delete(m.ask);
    });
  }
  const asks = state.__fieldmapAsks;
  const ask = asks.next++;
  return new Promise((resolve, reject) => {
    if (!process.connected) return reject(new Error('the server primary is gone'));
    asks.waiting.set(ask, ({ count, resetSeconds }) => resolve({ count, resetSeconds }));
    tellPrimary({ fieldmap: 'hit', ask, key, windowSeconds });
  });
}

/** In the runner: tasks the other web processes submitted. */
export function onTaskFromPrimary(enqueue: (id: string, kind: TaskKind) => void): void {
  process.on('message', (m: unknown) => {
    if (isMessage<ToWorker>(m) && m.fieldmap === 'task') enqueue(m.id, m.kind);
  });
}
