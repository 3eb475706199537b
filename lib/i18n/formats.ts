// The interface's named number formats (next-intl's `formats`), so that each kind of figure looks
// the same on every page.
import type { Formats } from 'next-intl';

export const FORMATS = {
  number: {
    // Hectares to the square metre, as cadastral registers give them, and always four decimals so
    // that the figures of a column line up.
    hectares: { minimumFractionDigits: 4, maximumFractionDigits: 4 },
  },
} satisfies Formats;

declare module 'next-intl' {
  interface AppConfig {
    Formats: typeof FORMATS;
  }
}
