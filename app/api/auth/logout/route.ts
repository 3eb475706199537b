import { clearedSessionCookie, endSession } from '@/lib/auth/session';
import { ok } from '@/lib/http/respond';
import { isSecureRequest, route } from '@/lib/http/route';
import { translate } from '@/lib/i18n/messages';

export const POST = route('POST /api/auth/logout', async ({ req, session, sessionDb, locale }) => {
  await endSession(sessionDb, session.id);
  return ok({ message: translate(locale, 'auth.logged_out') }, { headers: { 'Set-Cookie': clearedSessionCookie(isSecureRequest(req)) } });
});
