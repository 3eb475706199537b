// How much of an upload has been sent, in one unit fitted to the file: a 100 kB shapefile counted in
// megabytes to one decimal read "0 / 0.1 MB" while 60 % was sent.

const UNITS = [
  ['byte', 1],
  ['kilobyte', 1024],
  ['megabyte', 1024 ** 2],
  ['gigabyte', 1024 ** 3],
] as const;

/** "59 / 98 kB", "3.2 / 12.5 MB" in the locale's digits and unit names: one decimal below 100 of the unit, none above. */
export function transferAmount(loaded: number, total: number, locale: string): string {
  const [unit, size] = [...UNITS].reverse().find(([, s]) => total >= s) ?? UNITS[0];
  const digits = unit !== 'byte' && total / size < 100 ? 1 : 0;
  const opts = { maximumFractionDigits: digits };
  const sent = new Intl.NumberFormat(locale, opts).format(Math.min(loaded, total) / size);
  const whole = new Intl.NumberFormat(locale, { ...opts, style: 'unit', unit, unitDisplay: 'short' }).format(total / size);
  return `${sent} / ${whole}`;
}
