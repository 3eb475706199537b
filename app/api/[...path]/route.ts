// Any /api path that no route handles: the JSON 404 envelope, in the caller's language (the
// signed-in user's, else as for anyone).
import { randomUUID } from 'node:crypto';
import type { NextRequest } from 'next/server';
import { findSession, requestToken } from '@/lib/auth/session';
import { config } from '@/lib/config';
import { db } from '@/lib/db/client';
import { translate } from '@/lib/i18n/messages';
import { anonymousLocale, isLocale } from '@/lib/i18n/locales';

export const dynamic = 'force-dynamic';

async function notFound(req: NextRequest): Promise<Response> {
  const found = requestToken(req);
  const session = found ? await findSession(db(), found.token, config().sessionSecret).catch(() => null) : null;
  const locale = isLocale(session?.user.language) ? session.user.language : anonymousLocale(req.headers);
  const path = new URL(req.url).pathname;
  return Response.json(
    { success: false, error: translate(locale, 'errors.route_not_found', { path }) },
    { status: 404, headers: { 'X-Request-Id': req.headers.get('x-request-id') ?? randomUUID() } },
  );
}

export { notFound as GET, notFound as POST, notFound as PUT, notFound as PATCH, notFound as DELETE };
