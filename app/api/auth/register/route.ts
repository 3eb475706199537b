import { registerCompany, userSummary } from '@/lib/auth/accounts';
import { registerBody } from '@/lib/auth/schemas';
import { createSession, sessionCookie } from '@/lib/auth/session';
import { config } from '@/lib/config';
import { checkLimits, registrationLimits } from '@/lib/http/rate-limit';
import { ok } from '@/lib/http/respond';
import { clientIp, isSecureRequest, route } from '@/lib/http/route';
import { readJson } from '@/lib/http/validate';
import { translate } from '@/lib/i18n/messages';

export const POST = route('POST /api/auth/register', async ({ req, baseDb }) => {
  const body = await readJson(req, registerBody);
  await checkLimits(registrationLimits(clientIp(req)));
  const { company, user } = await registerCompany(baseDb, body);
  const session = await createSession(baseDb, user, { remember: false, secret: config().sessionSecret, ip: clientIp(req), userAgent: req.headers.get('user-agent') ?? undefined });
  return ok(
    { message: translate(body.language ?? 'ru', 'auth.registered'), user: userSummary(user, company) },
    { status: 201, headers: { 'Set-Cookie': sessionCookie(session.token, session.maxAgeSeconds, isSecureRequest(req)) } },
  );
});
