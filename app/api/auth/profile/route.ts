import { updateProfile, userProfile } from '@/lib/auth/accounts';
import { profileBody } from '@/lib/auth/schemas';
import { ok } from '@/lib/http/respond';
import { clientIp, route } from '@/lib/http/route';
import { readJson } from '@/lib/http/validate';
import { translate } from '@/lib/i18n/messages';
import { isLocale } from '@/lib/i18n/locales';

export const GET = route('GET /api/auth/profile', async ({ user }) => ok({ user: userProfile(user, user.company) }));

export const PUT = route('PUT /api/auth/profile', async ({ req, user, session, sessionDb, locale }) => {
  const body = await readJson(req, profileBody);
  const updated = await updateProfile(sessionDb, user, session.id, body, clientIp(req));
  const lang = isLocale(updated.language) ? updated.language : locale;
  return ok({ message: translate(lang, 'profile.saved'), user: userProfile(updated, updated.company) });
});
