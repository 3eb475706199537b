// Active sessions by token hash, kept in each web process for up to a minute: the look-up (a session,
// its user and company: three statements) was about a quarter of a single-field request's server time.
//
// Kept right by clearing, not by expiry: a request that changes or removes sessions, users or
// companies (logout, a new password, a role, a deactivation...) clears the cache of every process of
// the server before its answer leaves (`trackSessionWrites`, attached to the route handlers' database
// in lib/http/route.ts, marks the write; route.ts clears; lib/server/ipc.ts reaches the other
// processes). A look-up that was under way while a clear happened is not kept, since it may have
// read the rows from before. The minute bounds what a change made outside the server (a script on
// the database) takes to be seen. With Redis, web processes may run on several hosts that cannot be
// reached this way, so the cache is off.
import { AsyncLocalStorage } from 'node:async_hooks';
import { config } from '../config';
import type { Db } from '../db/client';
import { clearSessionsEverywhere, webRole } from '../server/ipc';

export const SESSION_CACHE_TTL_MS = 60_000;
const MAX_ENTRIES = 10_000;

interface Entry<S> {
  session: S;
  until: number;
}

export interface SessionCache<S extends { expiresAt: Date }> {
  /** Bumped by every clear: a look-up started under another generation is not kept. */
  generation: number;
  entries: Map<string, Entry<S>>;
}

export const newSessionCache = <S extends { expiresAt: Date }>(): SessionCache<S> => ({ generation: 0, entries: new Map() });

export function cachedSession<S extends { expiresAt: Date }>(cache: SessionCache<S>, hash: string, now = Date.now()): S | undefined {
  const entry = cache.entries.get(hash);
  if (!entry) return undefined;
  if (entry.until > now) return entry.session;
  cache.entries.delete(hash);
  return undefined;
}

/** Keeps `session` unless the cache was cleared since the look-up began (`generation`). */
export function rememberSession<S extends { expiresAt: Date }>(cache: SessionCache<S>, hash: string, session: S, generation: number, now = Date.now()): void {
  if (generation !== cache.generation) return;
  if (cache.entries.size >= MAX_ENTRIES) cache.entries.delete(cache.entries.keys().next().value!);
  cache.entries.set(hash, { session, until: Math.min(session.expiresAt.getTime(), now + SESSION_CACHE_TTL_MS) });
}

export function clearSessionCache(cache: SessionCache<{ expiresAt: Date }>): void {
  cache.entries.clear();
  cache.generation++;
}

// On globalThis: Next.js may load this module once per route bundle, and every copy must see the
// same cache and the same request context.
const state = globalThis as unknown as {
  __fieldmapSessions?: { cache: SessionCache<{ expiresAt: Date }>; writes: AsyncLocalStorage<{ changed: boolean }> };
};
const shared = () => (state.__fieldmapSessions ??= { cache: newSessionCache(), writes: new AsyncLocalStorage() });

/** This process's cache, or undefined when it is off (Redis: web processes on several hosts). */
export const processSessionCache = <S extends { expiresAt: Date }>(): SessionCache<S> | undefined =>
  config().REDIS_URL ? undefined : (shared().cache as SessionCache<S>);

/**
 * Runs `fn` (a request's work); when it changed or removed sessions, users or companies, clears the
 * cache of every process of the server before returning or throwing.
 */
export async function clearingSessionsOnWrite<T>(fn: () => Promise<T>): Promise<T> {
  const store = { changed: false };
  try {
    // Awaited inside: a Prisma query starts only when awaited, and must start in the context.
    return await shared().writes.run(store, async () => await fn());
  } finally {
    if (store.changed) await clearSessionCaches();
  }
}

export const clearProcessSessionCache = () => clearSessionCache(shared().cache);

/** Clears this process's cache and, in a server of several processes, every other's (awaiting them). */
async function clearSessionCaches(): Promise<void> {
  if (!processSessionCache()) return;
  clearProcessSessionCache();
  if (webRole()) await clearSessionsEverywhere();
}

// A new row cannot make a kept session wrong; anything that changes or removes rows can.
const READS_AND_INSERTS = /^(find|count|aggregate|groupBy|create)/;

function markWrite({ operation, args, query }: { operation: string; args: unknown; query: (args: unknown) => Promise<unknown> }) {
  if (!READS_AND_INSERTS.test(operation)) {
    const store = shared().writes.getStore();
    if (store) store.changed = true;
  }
  return query(args);
}

/** The database client, marking the current request when it changes sessions, users or companies. */
export function trackSessionWrites(db: Db): Db {
  // Only these three models bear on a session.
  return db.$extends({
    name: 'session-writes',
    query: { session: { $allOperations: markWrite }, user: { $allOperations: markWrite }, company: { $allOperations: markWrite } },
  }) as unknown as Db;
}
