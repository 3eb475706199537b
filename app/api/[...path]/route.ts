// Any /api path that no route handles: the JSON 404 envelope, in the caller's language.
import { randomUUID } from 'node:crypto';
import type { NextRequest } from 'next/server';
import { translate } from '@/lib/i18n/messages';
import { DEFAULT_LOCALE, negotiateLocale } from '@/lib/i18n/locales';

export const dynamic = 'force-dynamic';

function notFound(req: NextRequest): Response {
  const locale = negotiateLocale(req.headers.get('accept-language')) ?? DEFAULT_LOCALE;
  const path = new URL(req.url).pathname;
  return Response.json(
    { success: false, error: translate(locale, 'errors.route_not_found', { path }) },
    { status: 404, headers: { 'X-Request-Id': req.headers.get('x-request-id') ?? randomUUID() } },
  );
}

export { notFound as GET, notFound as POST, notFound as PUT, notFound as PATCH, notFound as DELETE };
