// What the web processes of one server (lib/server/cluster.ts) say to their primary. One of them,
// the runner, runs the embedded background tasks and owns the data folder's clean-up; the others
// hand tasks to it through the primary, and every process counts rate limits in the primary's
// memory, so that a limit holds for the server as a whole. A process that changed sessions, users
// or companies has every other clear its session cache (lib/auth/session-cache.ts) through it.
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
  | { fieldmap: 'hit'; ask: number; key: string; windowSeconds: number }
  | { fieldmap: 'sessions-changed'; ask: number }
  | { fieldmap: 'sessions-cleared'; clear: number };

/** Answers carry the `ask` of the question; `clear-sessions` is the primary's own question. */
export type ToWorker =
  | { fieldmap: 'task'; id: string; kind: TaskKind }
  | { fieldmap: 'hit'; ask: number; count: number; resetSeconds: number }
  | { fieldmap: 'sessions-changed'; ask: number }
  | { fieldmap: 'clear-sessions'; clear: number };

type Answer = Extract<ToWorker, { ask: number }>;

export const isMessage = <T extends { fieldmap: string }>(m: unknown): m is T =>
  typeof m === 'object' && m !== null && typeof (m as { fieldmap?: unknown }).fieldmap === 'string';

export function tellPrimary(message: ToPrimary): void {
  // Without a channel the primary is gone and this process is about to exit with it.
  if (process.connected) process.send?.(message);
}

// On globalThis: Next.js may load this module more than once in a process (one copy per bundle).
const state = globalThis as unknown as {
  __fieldmapAsks?: { next: number; waiting: Map<number, (m: Answer) => void> };
};

/** Sends a question to the primary and resolves with its answer. */
function askPrimary<A extends Answer>(question: (ask: number) => ToPrimary): Promise<A> {
  if (!state.__fieldmapAsks) {
    const asks = (state.__fieldmapAsks = { next: 1, waiting: new Map() });
    process.on('message', (m: unknown) => {
      if (!isMessage<ToWorker>(m) || !('ask' in m)) return;
      asks.waiting.get(m.ask)?.(m);
      asks.waiting.delete(m.ask);
    });
  }
  const asks = state.__fieldmapAsks;
  const ask = asks.next++;
  return new Promise((resolve, reject) => {
    if (!process.connected) return reject(new Error('the server primary is gone'));
    asks.waiting.set(ask, (m) => resolve(m as A));
    tellPrimary(question(ask));
  });
}

/** One request against a rate limit, counted by the primary: the count so far in the window and its seconds left. */
export async function hitInPrimary(key: string, windowSeconds: number): Promise<{ count: number; resetSeconds: number }> {
  const { count, resetSeconds } = await askPrimary<Answer & { fieldmap: 'hit' }>((ask) => ({ fieldmap: 'hit', ask, key, windowSeconds }));
  return { count, resetSeconds };
}

/** Resolves once every other web process of the server has cleared its session cache. */
export async function clearSessionsEverywhere(): Promise<void> {
  await askPrimary((ask) => ({ fieldmap: 'sessions-changed', ask }));
}

/** In every web process: clears the session cache when the primary asks, and says so. */
export function onClearSessionsFromPrimary(clear: () => void): void {
  process.on('message', (m: unknown) => {
    if (!isMessage<ToWorker>(m) || m.fieldmap !== 'clear-sessions') return;
    clear();
    tellPrimary({ fieldmap: 'sessions-cleared', clear: m.clear });
  });
}

/** In the runner: tasks the other web processes submitted. */
export function onTaskFromPrimary(enqueue: (id: string, kind: TaskKind) => void): void {
  process.on('message', (m: unknown) => {
    if (isMessage<ToWorker>(m) && m.fieldmap === 'task') enqueue(m.id, m.kind);
  });
}
