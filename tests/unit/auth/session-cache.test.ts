// The per-process session cache (lib/auth/session-cache.ts): what it keeps, for how long, and which
// writes clear it, on a real SQLite file. Across processes: tests/api/session-cache.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SESSION_CACHE_TTL_MS,
  cachedSession,
  clearSessionCache,
  clearingSessionsOnWrite,
  newSessionCache,
  processSessionCache,
  rememberSession,
  trackSessionWrites,
} from '@/lib/auth/session-cache';
import { type Db, createDb } from '@/lib/db/client';
import { migrate } from '@/lib/db/migrate';
import { type ScratchDb, scratchSqlite } from '@/lib/db/scratch';

const session = (expiresInMs: number, now = 1_000_000) => ({ id: 1, expiresAt: new Date(now + expiresInMs) });

describe('the session cache', () => {
  it('keeps a session for a minute at most, and never past its expiry', () => {
    const cache = newSessionCache<ReturnType<typeof session>>();
    const now = 1_000_000;
    const long = session(24 * 3600_000, now);
    rememberSession(cache, 'a', long, cache.generation, now);
    expect(cachedSession(cache, 'a', now + SESSION_CACHE_TTL_MS - 1)).toBe(long);
    expect(cachedSession(cache, 'a', now + SESSION_CACHE_TTL_MS)).toBeUndefined();
    expect(cache.entries.size).toBe(0);

    const short = session(5000, now);
    rememberSession(cache, 'b', short, cache.generation, now);
    expect(cachedSession(cache, 'b', now + 4999)).toBe(short);
    expect(cachedSession(cache, 'b', now + 5000)).toBeUndefined();
  });

  it('does not keep a look-up that began before a clear', () => {
    const cache = newSessionCache<ReturnType<typeof session>>();
    const began = cache.generation;
    clearSessionCache(cache);
    rememberSession(cache, 'a', session(60_000), began);
    expect(cachedSession(cache, 'a', 1_000_000)).toBeUndefined();
    rememberSession(cache, 'a', session(60_000), cache.generation);
    expect(cachedSession(cache, 'a', 1_000_000)).toBeDefined();
  });

  it('holds at most 10,000 sessions, dropping the oldest', () => {
    const cache = newSessionCache<ReturnType<typeof session>>();
    for (let i = 0; i <= 10_000; i++) rememberSession(cache, `t${i}`, session(60_000), 0, 1_000_000);
    expect(cache.entries.size).toBe(10_000);
    expect(cachedSession(cache, 't0', 1_000_000)).toBeUndefined();
    expect(cachedSession(cache, 't10000', 1_000_000)).toBeDefined();
  });
});

describe('writes that clear the cache', () => {
  let scratch: ScratchDb;
  let db: Db;
  let companyId: number;
  let userId: number;

  beforeAll(async () => {
    scratch = scratchSqlite();
    await migrate(scratch.target);
    db = trackSessionWrites(createDb(scratch.target));
    companyId = (await db.company.create({ data: { name: 'A', slug: 'a' } })).id;
    userId = (await db.user.create({ data: { email: 'a@example.test', passwordHash: 'x', passwordSalt: 'y', companyId } })).id;
  });
  afterAll(async () => {
    await db?.$disconnect();
    await scratch?.drop();
  });

  /** Whether running `work` as a request cleared this process's cache. */
  const clears = async (work: () => Promise<unknown>) => {
    const cache = processSessionCache()!;
    const before = cache.generation;
    await clearingSessionsOnWrite(work);
    return cache.generation !== before;
  };

  it('are changes and removals of sessions, users and companies, even when the request then fails', async () => {
    expect(processSessionCache(), 'on without REDIS_URL').toBeDefined();
    expect(await clears(() => db.user.update({ where: { id: userId }, data: { firstName: 'B' } }))).toBe(true);
    expect(await clears(() => db.company.updateMany({ where: { id: companyId }, data: { name: 'A2' } }))).toBe(true);
    expect(await clears(() => db.session.deleteMany({ where: { userId } }))).toBe(true);
    const before = processSessionCache()!.generation;
    const failing = clearingSessionsOnWrite(async () => {
      await db.$transaction(async (tx) => tx.user.update({ where: { id: userId }, data: { role: 'viewer' } }));
      throw new Error('after the write');
    });
    await expect(failing).rejects.toThrow('after the write');
    expect(processSessionCache()!.generation).not.toBe(before);
  });

  it('are not reads, new rows, or other tables', async () => {
    expect(await clears(() => db.user.findMany())).toBe(false);
    expect(await clears(() => db.session.create({ data: { tokenHash: 'h', userId, companyId, expiresAt: new Date(Date.now() + 60_000) } }))).toBe(false);
    expect(await clears(() => db.owner.create({ data: { companyId, name: 'O' } }))).toBe(false);
    expect(await clears(() => db.owner.deleteMany({ where: { companyId } }))).toBe(false);
  });
});
