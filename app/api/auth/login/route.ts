import { authenticate, userSummary } from '@/lib/auth/accounts';
import { loginBody } from '@/lib/auth/schemas';
import { createSession, sessionCookie } from '@/lib/auth/session';
import { config } from '@/lib/config';
import { ok } from '@/lib/http/respond';
import { clientIp, isSecureRequest, route } from '@/lib/http/route';
import { readJson } from '@/lib/http/validate';
import { translate } from '@/lib/i18n/messages';
import { isLocale } from '@/lib/i18n/locales';

export const POST = route('POST /api/auth/login', async ({ req, baseDb, locale }) => {
  const body = await readJson(req, loginBody);
  const ip = clientIp(req);
  const user = await authenticate(baseDb, body.email, body.password, ip);
  const session = await createSession(baseDb, user, { remember: body.remember, secret: config().sessionSecret, ip, userAgent: req.headers.get('user-agent') ?? undefined });
  return ok(
    { message: translate(isLocale(user.language) ? user.language : locale, 'auth.logged_in'), user: userSummary(user, user.company) },
    { headers: { 'Set-Cookie': sessionCookie(session.token, session.maxAgeSeconds, isSecureRequest(req)) } },
  );
});
