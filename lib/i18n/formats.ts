// The interface's named number formats (next-intl's `formats`), so that each kind of figure looks
// the same on every page.
import type { Formats } from 'next-intl';
import type { Locale } from './locales';

export const FORMATS = {
  number: {
    // Hectares to the square metre, as cadastral registers give them, and always four decimals so
    // that the figures of a column line up.
    hectares: { minimumFractionDigits: 4, maximumFractionDigits: 4 },
    // A number as it is typed into a number input (a limit or step quoted by a validation message): no
    // grouping, which would write the year 2100 as "2 100" in ru and sk, and every decimal of a 0.0001 step.
    input_value: { useGrouping: false, maximumFractionDigits: 20 },
  },
  dateTime: {
    // A day with no time of day (a date input's limit, given as the UTC midnight that starts it): in UTC,
    // so that the company's zone does not move it to the day before.
    calendar_day: { dateStyle: 'long', timeZone: 'UTC' },
    // A moment (an upload, a sign-in) as every page writes it: "Nov 28, 2026, 9:05 AM", not "11/28/26".
    moment: { dateStyle: 'medium', timeStyle: 'short' },
  },
} satisfies Formats;

declare module 'next-intl' {
  interface AppConfig {
    Formats: typeof FORMATS;
    // getLocale() and useLocale() answer one of ours (lib/i18n/request.ts picks only those).
    Locale: Locale;
  }
}

/**
 * A zone's name (`2: 0.18–0.34`: its class and index range, stored as the zoning wrote it) with the
 * language's decimal separator, as the figures beside it have (`2: 0,18–0,34` in ru and sk).
 */
export function localizeZoneName(name: string, locale: string): string {
  return name.replace(/-?\d+\.\d+/g, (n) => {
    const digits = n.length - n.indexOf('.') - 1;
    return new Intl.NumberFormat(locale, { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: false }).format(Number(n));
  });
}
