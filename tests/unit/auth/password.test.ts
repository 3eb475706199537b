import { createHash, randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { burnPasswordCheck, hashPassword, verifyPassword } from '@/lib/auth/password';

// Counts the scrypt runs of lib/auth/password.ts: the work of a check, which timing would show.
const scryptRuns = vi.hoisted(() => ({ count: 0 }));
vi.mock('node:crypto', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:crypto')>();
  const scrypt = (...args: unknown[]) => {
    scryptRuns.count++;
    return (real.scrypt as (...a: unknown[]) => void)(...args);
  };
  return { ...real, default: { ...real, scrypt }, scrypt };
});

const runs = async (check: () => Promise<boolean>) => {
  const before = scryptRuns.count;
  const verdict = await check();
  return { verdict, runs: scryptRuns.count - before };
};

describe('password checks', () => {
  const legacySalt = randomBytes(32).toString('hex');
  const legacy = { hash: createHash('sha256').update('old-password-1' + legacySalt).digest('hex'), salt: legacySalt };
  let current: { hash: string; salt: string };

  beforeAll(async () => {
    current = await hashPassword('new-password-1');
    // The unknown e-mail's stand-in hash is made once, at the first check.
    await burnPasswordCheck('warm-up');
  });

  it('do the same work for an unknown e-mail, a scrypt hash and a legacy SHA-256 hash, right or wrong', async () => {
    // A legacy hash was checked with SHA-256 alone, in microseconds against a scrypt's tens of
    // milliseconds: timing told which e-mails have users not signed in since v2026.2.
    expect(await runs(() => burnPasswordCheck('anything-1'))).toEqual({ verdict: false, runs: 1 });
    expect(await runs(() => verifyPassword('new-password-1', current))).toEqual({ verdict: true, runs: 1 });
    expect(await runs(() => verifyPassword('wrong-password', current))).toEqual({ verdict: false, runs: 1 });
    expect(await runs(() => verifyPassword('old-password-1', legacy))).toEqual({ verdict: true, runs: 1 });
    expect(await runs(() => verifyPassword('wrong-password', legacy))).toEqual({ verdict: false, runs: 1 });
  });
});
