// Fixed-window request limits (spec 8: KMZ export 100 per minute), each window opening with its
// first request. Counted in this process's memory
// in the embedded setup, and in Redis when REDIS_URL is set so that every web process shares them.
import IORedis from 'ioredis';
import { config } from '../config';
import { AppError } from './errors';

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

const memory = new Map<string, { count: number; resetAt: number }>();
let redis: IORedis | undefined;

async function hit(key: string, windowSeconds: number): Promise<{ count: number; resetSeconds: number }> {
  const now = Date.now();
  if (config().REDIS_URL) {
    redis ??= new IORedis(config().REDIS_URL!, { maxRetriesPerRequest: 2 });
    // The window opens with the first request, as in memory (a window on the clock's minutes would
    // let twice the limit through around a minute's turn).
    const k = `fieldmap:rl:${key}`;
    const [, [, count], [, ttlMs]] = (await redis.multi().set(k, '0', 'EX', windowSeconds, 'NX').incr(k).pttl(k).exec()) as [unknown, [unknown, number], [unknown, number]];
    return { count, resetSeconds: Math.max(1, Math.ceil(ttlMs / 1000)) };
  }
  let entry = memory.get(key);
  if (!entry || entry.resetAt <= now) {
    entry = { count: 0, resetAt: now + windowSeconds * 1000 };
    memory.set(key, entry);
    if (memory.size > 10_000) for (const [k, v] of memory) if (v.resetAt <= now) memory.delete(k);
  }
  entry.count++;
  return { count: entry.count, resetSeconds: Math.ceil((entry.resetAt - now) / 1000) };
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
