// next-intl request configuration for pages: the signed-in user's language (frameUser), else the NEXT_LOCALE
// cookie (set by the language switcher before sign-in), else Accept-Language, else ru; times in the
// company's time zone (lib/i18n/time-zone.ts).
import { headers } from 'next/headers';
import { getRequestConfig } from 'next-intl/server';
import { parseSettings } from '../auth/company-settings';
import { frameUser } from '../auth/current-user';
import { FORMATS } from './formats';
import { MESSAGES } from './messages';
import { anonymousLocale, isLocale } from './locales';
import { SERVER_TIME_ZONE, companyTimeZone } from './time-zone';

export default getRequestConfig(async () => {
  const user = await frameUser();
  const locale = (isLocale(user?.language) && user.language) || anonymousLocale(await headers());
  const timeZone = user ? companyTimeZone(parseSettings(user.company.settingsJson)) : SERVER_TIME_ZONE;
  return { locale, messages: MESSAGES[locale], formats: FORMATS, timeZone };
});
