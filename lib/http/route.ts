// The one wrapper every route handler goes through: request id and logger, language, session and
// permission check (lib/auth/permissions.ts), same-origin check, the tenant-scoped database, the
// clearing of session caches after a change to accounts (lib/auth/session-cache.ts), and the
// mapping of any error to the spec's envelope.
import { randomUUID } from 'node:crypto';
import type { NextRequest } from 'next/server';
import { ROUTES, type RouteKey } from '../auth/permissions';
import { hasRole } from '../auth/roles';
import { type ActiveSession, clearedSessionCookie, findSession, requestToken } from '../auth/session';
import { clearingSessionsOnWrite, trackSessionWrites } from '../auth/session-cache';
import { config } from '../config';
import { type Db, db, dbReady } from '../db/client';
import { type TenantDb, tenantDb } from '../db/tenant';
import { type Locale, anonymousLocale, isLocale } from '../i18n/locales';
import { type Logger, log as rootLog } from '../log';
import { AppError, forbidden, unauthorized } from '../errors';
import { errorResponse } from './respond';

// Route handlers see the database through the session-cache hook: their changes to sessions, users or
// companies mark the request, whose answer then waits for every process's cache to be cleared. Made
// once per client (db() makes a new one when the database was down at start).
let tracked: { base: Db; db: Db } | undefined;
function requestDb(): Db {
  const base = db();
  if (tracked?.base !== base) tracked = { base, db: trackSessionWrites(base) };
  return tracked.db;
}

export interface PublicContext<P> {
  req: NextRequest;
  url: URL;
  params: P;
  requestId: string;
  log: Logger;
  locale: Locale;
  /** The whole database: only public routes (register, login) see it. */
  baseDb: Db;
}

export interface AuthedContext<P> extends Omit<PublicContext<P>, 'baseDb'> {
  session: ActiveSession;
  user: ActiveSession['user'];
  /** The database as seen by the user's company: every tenant query is confined to it. */
  db: TenantDb;
  /** Unscoped, for the few things that are not a company's data (the caller's own sessions). */
  sessionDb: Db;
}

type ContextFor<K extends RouteKey, P> = (typeof ROUTES)[K] extends 'public' ? PublicContext<P> : AuthedContext<P>;
type Params = Record<string, string | string[]>;

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The caller's address, as the web process found it (lib/server/web.mjs: the socket's peer, or what
 * TRUSTED_PROXIES proxies saw). Under a bare `next start` or `next dev`, which have no such header,
 * the last X-Forwarded-For entry, which Next.js fills from the socket.
 */
export function clientIp(req: Request): string {
  return req.headers.get('x-fieldmap-client') || req.headers.get('x-forwarded-for')?.split(',').at(-1)?.trim() || 'unknown';
}

/**
 * This server's origin as the caller reached it: the Host header, and the scheme this process speaks
 * (plain HTTP). Only a proxy of ours (TRUSTED_PROXIES) is believed about another host or HTTPS
 * (X-Forwarded-Host, X-Forwarded-Proto): from anyone else those headers are the caller's own word.
 */
export function ownOrigin(req: Request): string | undefined {
  const forwarded = config().TRUSTED_PROXIES > 0 ? req.headers.get('x-forwarded-host')?.split(',')[0]?.trim() : undefined;
  const host = forwarded || req.headers.get('host');
  if (!host) return undefined;
  try {
    return new URL(`${isSecureRequest(req) ? 'https' : 'http'}://${host}`).origin;
  } catch {
    return undefined;
  }
}

/**
 * A browser request from another site: Sec-Fetch-Site says so, or its Origin differs from ours in
 * scheme, host or port (URL's origin drops a default port, so `http://h:80` is `http://h`).
 */
export function isCrossSite(req: Request): boolean {
  const site = req.headers.get('sec-fetch-site');
  if (site && site !== 'same-origin' && site !== 'none') return true;
  const origin = req.headers.get('origin');
  if (!origin) return false;
  try {
    return new URL(origin).origin !== ownOrigin(req);
  } catch {
    return true;
  }
}

/**
 * No route reads a compressed request body: a gzipped JSON body was refused as text that is not
 * UTF-8, and a gzipped upload as a broken archive. RFC 9110 answers 415 naming what is taken.
 */
function refuseEncodedBody(req: Request) {
  const coding = req.headers.get('content-encoding')?.trim().toLowerCase();
  if (coding && coding !== 'identity') throw new AppError('unsupported_media_type', 'content_encoding', { coding }, { 'Accept-Encoding': 'identity' });
}

/**
 * Whether the caller came over HTTPS, so the session cookie is marked Secure. Only a proxy of ours
 * (TRUSTED_PROXIES, as for the caller's address) is believed about it: without one, X-Forwarded-Proto
 * is the client's own word, and Next.js builds the request's URL from it too. The web process itself
 * speaks plain HTTP (lib/server/web.mjs), so its callers came over HTTP.
 */
export const isSecureRequest = (req: Request) => config().TRUSTED_PROXIES > 0 && req.headers.get('x-forwarded-proto')?.trim().toLowerCase() === 'https';

export function route<K extends RouteKey, P extends Params = Params>(
  key: K,
  handler: (ctx: ContextFor<K, P>) => Promise<Response>,
) {
  const access = ROUTES[key];
  return async (req: NextRequest, routeCtx: { params: Promise<P> }): Promise<Response> => {
    const requestId = req.headers.get('x-request-id')?.slice(0, 64) || randomUUID();
    const log = rootLog.child({ requestId, route: key });
    const started = performance.now();
    const base: Omit<PublicContext<P>, 'baseDb' | 'params'> = { req, url: new URL(req.url), requestId, log, locale: anonymousLocale(req.headers) };
    let response: Response;
    try {
      await dbReady().catch((err) => {
        log.error({ err }, 'database unavailable');
        throw new AppError('unavailable', 'unavailable');
      });
      refuseEncodedBody(req);
      const withParams = { ...base, params: (await routeCtx.params) ?? ({} as P) };
      response = access === 'public'
        ? await answerPublic(withParams, handler as (c: PublicContext<P>) => Promise<Response>)
        : await answerAuthed(withParams, access, base, handler as (c: AuthedContext<P>) => Promise<Response>);
    } catch (err) {
      // In the user's language once the session told it (answerAuthed sets it on `base`).
      response = errorResponse(err, base.locale, requestId, log);
    }
    response.headers.set('X-Request-Id', requestId);
    // A company's data is for the signed-in user only: no shared cache may keep it, nor the browser
    // after logout. A route that knows better (a preview image) says so itself.
    // So is an answer that signs someone in (login, register: a Set-Cookie and the user).
    if ((access !== 'public' || response.headers.has('set-cookie')) && !response.headers.has('cache-control')) response.headers.set('Cache-Control', 'private, no-store');
    log.info({ method: req.method, status: response.status, ms: Math.round(performance.now() - started) }, 'request');
    return response;
  };
}

async function answerPublic<P>(base: Omit<PublicContext<P>, 'baseDb'>, handler: (c: PublicContext<P>) => Promise<Response>): Promise<Response> {
  if (UNSAFE.has(base.req.method) && isCrossSite(base.req)) throw forbidden('cross_origin');
  return clearingSessionsOnWrite(() => handler({ ...base, baseDb: requestDb() }));
}

/** The handler's answer for a caller whose session holds and whose role the route's access allows; `shared.locale` becomes the user's. */
async function answerAuthed<P>(
  base: Omit<PublicContext<P>, 'baseDb'>, access: Exclude<(typeof ROUTES)[RouteKey], 'public'>, shared: { locale: Locale }, handler: (c: AuthedContext<P>) => Promise<Response>,
): Promise<Response> {
  const { req, log } = base;
  const found = requestToken(req);
  if (!found) throw unauthorized();
  const session = await findSession(db(), found.token, config().sessionSecret);
  if (!session) {
    const refused = unauthorized('session_invalid');
    // A cookie that no longer holds (expired, logged out elsewhere, user deactivated) is cleared,
    // so the browser stops sending it: logging out with one still ends signed out.
    if (found.via === 'cookie') refused.headers['Set-Cookie'] = clearedSessionCookie(isSecureRequest(req));
    throw refused;
  }
  if (isLocale(session.user.language)) shared.locale = session.user.language;
  // Cookies ride along with cross-site requests; bearer tokens do not.
  if (found.via === 'cookie' && UNSAFE.has(req.method) && isCrossSite(req)) throw forbidden('cross_origin');
  // From here on every line, the request's own last one included, names its user and company.
  log.setBindings({ userId: session.userId, companyId: session.companyId });
  if (!hasRole(session.user.role, access)) throw forbidden();
  const ctx: AuthedContext<P> = { ...base, locale: shared.locale, session, user: session.user, db: tenantDb(requestDb(), session.companyId), sessionDb: requestDb() };
  return clearingSessionsOnWrite(() => handler(ctx));
}
