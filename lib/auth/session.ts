// Sessions (spec 5.1): a random 32-byte token signed with HMAC-SHA256 under SESSION_SECRET, sent as
// the `session_token` cookie or as `Authorization: Bearer`. The server keeps only the token's SHA-256
// in the database, so sessions survive restarts and work across processes.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from '../db/client';
import { cachedSession, processSessionCache, rememberSession } from './session-cache';

export const SESSION_COOKIE = 'session_token';
export const SESSION_HOURS = 24;
export const REMEMBER_HOURS = 720;

const b64url = (buf: Buffer) => buf.toString('base64url');
const sign = (raw: string, secret: string) => b64url(createHmac('sha256', secret).update(raw).digest());
export const tokenHash = (raw: string) => createHash('sha256').update(raw).digest('hex');

/** `<random>.<hmac>`; returns the raw part only when the signature is right. */
export function verifyToken(token: string, secret: string): string | undefined {
  const [raw, sig] = token.split('.');
  if (!raw || !sig || token.split('.').length !== 2) return undefined;
  const want = Buffer.from(sign(raw, secret));
  const got = Buffer.from(sig);
  return want.length === got.length && timingSafeEqual(want, got) ? raw : undefined;
}

export interface NewSession {
  token: string;
  expiresAt: Date;
  maxAgeSeconds: number;
}

export async function createSession(
  db: Db,
  user: { id: number; companyId: number },
  opts: { remember: boolean; secret: string; ip?: string; userAgent?: string },
): Promise<NewSession> {
  const raw = b64url(randomBytes(32));
  const hours = opts.remember ? REMEMBER_HOURS : SESSION_HOURS;
  const expiresAt = new Date(Date.now() + hours * 3600_000);
  await db.session.create({
    data: {
      tokenHash: tokenHash(raw),
      userId: user.id,
      companyId: user.companyId,
      remember: opts.remember,
      expiresAt,
      ip: opts.ip?.slice(0, 64),
      userAgent: opts.userAgent?.slice(0, 255),
    },
  });
  // Purge expired sessions now and then, off the request's critical path.
  if (Math.random() < 0.05) void db.session.deleteMany({ where: { expiresAt: { lt: new Date() } } }).catch(() => undefined);
  return { token: `${raw}.${sign(raw, opts.secret)}`, expiresAt, maxAgeSeconds: hours * 3600 };
}

const readSession = (db: Db, hash: string) => db.session.findUnique({ where: { tokenHash: hash }, include: { user: { include: { company: true } } } });

export type ActiveSession = NonNullable<Awaited<ReturnType<typeof readSession>>>;

/** The session of a token with its user and company, while all three are active; from the process's cache when it has it. */
export async function findSession(db: Db, token: string, secret: string): Promise<ActiveSession | undefined> {
  const raw = verifyToken(token, secret);
  if (!raw) return undefined;
  const hash = tokenHash(raw);
  const cache = processSessionCache<ActiveSession>();
  const cached = cache && cachedSession(cache, hash);
  if (cached) return cached;
  const generation = cache?.generation ?? 0;
  const session = await readSession(db, hash);
  if (!session || session.expiresAt <= new Date()) return undefined;
  const { user } = session;
  if (!user.isActive || !user.company.isActive) return undefined;
  if (cache) rememberSession(cache, hash, session, generation);
  return session;
}

/**
 * Ends a session (logout). A logout beside this one may have ended it since the request was
 * authenticated: both end signed out, so a session already gone is no error.
 */
export async function endSession(db: Db, sessionId: number): Promise<void> {
  await db.session.deleteMany({ where: { id: sessionId } });
}

export function sessionCookie(token: string, maxAgeSeconds: number, secure: boolean): string {
  return [
    `${SESSION_COOKIE}=${token}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Lax',
    `Max-Age=${maxAgeSeconds}`,
    secure ? 'Secure' : '',
  ]
    .filter(Boolean)
    .join('; ');
}

export const clearedSessionCookie = (secure: boolean) => sessionCookie('', 0, secure);

/** The token of a request: a Bearer header, which the client chose to send, else the cookie. */
export function requestToken(req: Request): { token: string; via: 'cookie' | 'bearer' } | undefined {
  const auth = req.headers.get('authorization');
  const bearer = auth?.match(/^Bearer\s+(\S+)$/i)?.[1];
  if (bearer) return { token: bearer, via: 'bearer' };
  const cookie = req.headers.get('cookie') ?? '';
  const match = cookie.match(/(?:^|;\s*)session_token=([^;]+)/);
  return match?.[1] ? { token: decodedCookie(match[1]), via: 'cookie' } : undefined;
}

/** A cookie value percent-decoded; one that is not valid percent-encoding is kept as it came (and fails as a token, 401). */
function decodedCookie(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
