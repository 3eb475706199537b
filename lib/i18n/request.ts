// next-intl request configuration for pages: the signed-in user's language, else the NEXT_LOCALE
// cookie (set by the language switcher before sign-in), else Accept-Language, else ru.
import { cookies, headers } from 'next/headers';
import { getRequestConfig } from 'next-intl/server';
import { currentUser } from '../auth/current-user';
import { FORMATS } from './formats';
import { MESSAGES } from './messages';
import { DEFAULT_LOCALE, isLocale, negotiateLocale } from './locales';

export default getRequestConfig(async () => {
  const user = await currentUser();
  const cookieLocale = (await cookies()).get('NEXT_LOCALE')?.value;
  const locale =
    (isLocale(user?.language) && user.language) ||
    (isLocale(cookieLocale) && cookieLocale) ||
    negotiateLocale((await headers()).get('accept-language')) ||
    DEFAULT_LOCALE;
  return { locale, messages: MESSAGES[locale], formats: FORMATS };
});
