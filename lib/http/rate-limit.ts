// Fixed-window request limits (spec 8: KMZ export 100 per minute), each window opening with its
// first request. Counted in memory in the embedded setup (the cluster's primary when the server runs
// several web processes, lib/server/cluster.ts), and in Redis when REDIS_URL is set so that every
// web process shares them.
import { config } from '../config';
import { log } from '../log';
import { redisClient } from '../redis';
import { hitInPrimary, webRole } from '../server/ipc';
import { addressGroup } from './address-group';
import { AppError } from '../errors';

export interface Limit {
  /** What is counted, e.g. `kmz:user:12`. */
  key: string;
  max: number;
  windowSeconds: number;
}

export interface LimitState {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

export type Windows = Map<string, { count: number; resetAt: number }>;

/** Counts one request in `windows`, held in memory: the count so far in the key's window and its seconds left. */
export function countHit(windows: Windows, key: string, windowSeconds: number, now = Date.now()) {
  let entry = windows.get(key);
  if (!entry || entry.resetAt <= now) {
    entry = { count: 0, resetAt: now + windowSeconds * 1000 };
    windows.set(key, entry);
    if (windows.size > 10_000) for (const [k, v] of windows) if (v.resetAt <= now) windows.delete(k);
  }
  entry.count++;
  return { count: entry.count, resetSeconds: Math.ceil((entry.resetAt - now) / 1000) };
}

// On globalThis: Next.js may load this module once per route bundle, and a limit is the process's.
const memory: Windows = ((globalThis as { __fieldmapRateWindows?: Windows }).__fieldmapRateWindows ??= new Map());

async function hit(key: string, windowSeconds: number): Promise<{ count: number; resetSeconds: number }> {
  if (config().REDIS_URL) {
    try {
      // The window opens with the first request, as in memory (a window on the clock's minutes would
      // let twice the limit through around a minute's turn).
      const k = `fieldmap:rl:${key}`;
      const [, [, count], [, ttlMs]] = (await redisClient().multi().set(k, '0', 'EX', windowSeconds, 'NX').incr(k).pttl(k).exec()) as [unknown, [unknown, number], [unknown, number]];
      return { count, resetSeconds: Math.max(1, Math.ceil(ttlMs / 1000)) };
    } catch (err) {
      // Redis down: the limit is counted by this process alone rather than the export refused (it answered 500).
      log.warn({ err: (err as Error).message }, 'rate limit counted in this process: Redis did not answer');
    }
  }
  if (webRole()) return hitInPrimary(key, windowSeconds);
  return countHit(memory, key, windowSeconds);
}

export const rateLimitHeaders = (s: LimitState): Record<string, string> => ({
  'RateLimit-Limit': String(s.limit),
  'RateLimit-Remaining': String(s.remaining),
  'RateLimit-Reset': String(s.resetSeconds),
});

/** Counts one request against every limit; throws 429 (Retry-After, RateLimit-*) when one is exceeded. */
export async function checkLimits(limits: Limit[]): Promise<LimitState> {
  let tightest: LimitState | undefined;
  for (const l of limits) {
    const { count, resetSeconds } = await hit(l.key, l.windowSeconds);
    const state = { limit: l.max, remaining: Math.max(0, l.max - count), resetSeconds };
    if (count > l.max) {
      throw new AppError('rate_limited', 'rate_limited', { seconds: resetSeconds }, { 'Retry-After': String(resetSeconds), ...rateLimitHeaders(state) });
    }
    if (!tightest || state.remaining < tightest.remaining) tightest = state;
  }
  return tightest!;
}

/** KMZ exports: 100 a minute per user (spec 8) and a ceiling for the whole company. */
export const kmzLimits = (userId: number, companyId: number): Limit[] => [
  { key: `kmz:user:${userId}`, max: 100, windowSeconds: 60 },
  { key: `kmz:company:${companyId}`, max: 300, windowSeconds: 60 },
];

/**
 * Registrations from one address in an hour (REGISTRATIONS_PER_HOUR): open to anyone, each costs a
 * password hash (tens of milliseconds of CPU) and makes a company.
 */
export const registrationLimits = (ip: string): Limit[] => [{ key: `register:ip:${addressGroup(ip)}`, max: config().REGISTRATIONS_PER_HOUR, windowSeconds: 3600 }];

/**
 * ISOXML and PDF documents: no limit in the spec, but each costs far more than a flight plan (a
 * large prescription's grid seconds of a worker thread): 60 a minute per user, 180 for the company.
 */
export const documentLimits = (userId: number, companyId: number): Limit[] => [
  { key: `doc:user:${userId}`, max: 60, windowSeconds: 60 },
  { key: `doc:company:${companyId}`, max: 180, windowSeconds: 60 },
];
