// Message catalogues and a translator usable anywhere on the server (route handlers, workers).
import { createTranslator } from 'next-intl';
import en from '../../messages/en.json';
import ru from '../../messages/ru.json';
import sk from '../../messages/sk.json';
import type { Locale } from './locales';

export const MESSAGES = { ru, en, sk } as const;
export type Messages = typeof ru;

export function translator(locale: Locale) {
  return createTranslator({ locale, messages: MESSAGES[locale] as Messages });
}

/** Translates a dotted key; an unknown key comes back as itself, so a missing string is visible, not fatal. */
export function translate(locale: Locale, key: string, params: Record<string, string | number> = {}): string {
  const t = createTranslator({ locale, messages: MESSAGES[locale] as Messages, onError: () => undefined, getMessageFallback: ({ key: k }) => k });
  return (t as unknown as (k: string, p: object) => string)(key, params);
}
