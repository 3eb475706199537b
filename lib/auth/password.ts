// Password hashing: scrypt (memory-hard) with its parameters inside the stored hash and a unique
// 32-byte salt kept as 64 hex characters in password_salt. Hashes of the older release, the spec's
// SHA-256(password + salt), are still accepted so that the user can sign in once and be upgraded.
import { createHash, randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCb) as (pw: string, salt: string, len: number, opts: object) => Promise<Buffer>;
const PARAMS = { N: 16384, r: 8, p: 1 };
const KEY_LENGTH = 32;

export interface PasswordHash {
  hash: string;
  salt: string;
}

export const newSalt = () => randomBytes(32).toString('hex');

export async function hashPassword(password: string, salt = newSalt()): Promise<PasswordHash> {
  const key = await scrypt(password, salt, KEY_LENGTH, { ...PARAMS, maxmem: 64 * 1024 * 1024 });
  return { hash: `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${key.toString('base64')}`, salt };
}

export const isLegacyHash = (hash: string) => /^[0-9a-f]{64}$/i.test(hash);

/** Constant-time check against either hash format. */
export async function verifyPassword(password: string, stored: PasswordHash): Promise<boolean> {
  let expected: Buffer;
  let actual: Buffer;
  if (isLegacyHash(stored.hash)) {
    expected = Buffer.from(stored.hash.toLowerCase(), 'hex');
    actual = createHash('sha256').update(password + stored.salt).digest();
    // SHA-256 takes microseconds, an unknown e-mail's check a scrypt: without the same work here,
    // timing would tell the e-mails of users not signed in since v2026.2.
    await burnPasswordCheck(password);
  } else {
    const [scheme, n, r, p, b64] = stored.hash.split('$');
    if (scheme !== 'scrypt' || !b64) return false;
    expected = Buffer.from(b64, 'base64');
    actual = await scrypt(password, stored.salt, expected.length, {
      N: Number(n),
      r: Number(r),
      p: Number(p),
      maxmem: 64 * 1024 * 1024,
    });
  }
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** Spends the same time as a real check, for unknown e-mails, so timing reveals nothing. */
let dummy: Promise<PasswordHash> | undefined;
export async function burnPasswordCheck(password: string): Promise<false> {
  dummy ??= hashPassword('not a password of anyone');
  await verifyPassword(password, await dummy);
  return false;
}
