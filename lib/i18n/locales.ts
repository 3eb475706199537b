// Interface languages (spec 2.8): ru is the default.
export const LOCALES = ['ru', 'en', 'sk'] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'ru';

export const isLocale = (v: unknown): v is Locale => typeof v === 'string' && (LOCALES as readonly string[]).includes(v);

/** The first supported language of an Accept-Language header, by its q-values. */
export function negotiateLocale(acceptLanguage: string | null | undefined): Locale | undefined {
  if (!acceptLanguage) return undefined;
  const ranked = acceptLanguage
    .split(',')
    .map((part) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim().toLowerCase()).find((p) => p.startsWith('q='));
      return { lang: (tag ?? '').toLowerCase().split('-')[0], q: q ? Number(q.slice(2)) || 0 : 1 };
    })
    .filter((x) => x.q > 0)
    .sort((a, b) => b.q - a.q);
  return ranked.map((x) => x.lang).find(isLocale);
}

/**
 * The language of a request before anyone is signed in, as pages choose it: the NEXT_LOCALE cookie
 * the language switcher sets, else Accept-Language, else ru.
 */
export function anonymousLocale(headers: Headers): Locale {
  const cookie = /(?:^|;\s*)NEXT_LOCALE=([^;]+)/.exec(headers.get('cookie') ?? '')?.[1];
  return (isLocale(cookie) && cookie) || negotiateLocale(headers.get('accept-language')) || DEFAULT_LOCALE;
}
