// The time zone times are shown in: the company's (`settings.time_zone`, an IANA name such as
// Europe/Moscow), else the server's. Farm staff read times in the farm's own zone, whichever zone
// the server runs in (a cloud host's is often UTC).

/** The server's own zone (TZ), the default. */
export const SERVER_TIME_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

/** Whether `name` is a time zone this runtime knows (an IANA name or an alias of one, or UTC). */
export function isTimeZone(name: unknown): name is string {
  if (typeof name !== 'string' || !name) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** The zone a company's settings name, else the server's. */
export function companyTimeZone(settings: { time_zone?: unknown }): string {
  return isTimeZone(settings.time_zone) ? settings.time_zone : SERVER_TIME_ZONE;
}

/** The zones offered to choose from, by name (asked for only where they are offered). */
export const timeZones = (): string[] => Intl.supportedValuesOf('timeZone');

/**
 * A zone as a person reads it, in the page's language: its name from the runtime's CLDR data (Intl
 * has no DisplayNames for zones; DateTimeFormat's `longGeneric` is that name), its UTC offset now, and
 * its IANA name, which tells apart the many zones one name covers ("Central European Time" is 40).
 */
export function timeZoneLabel(zone: string, locale: string, at: Date = new Date()): string {
  const part = (timeZoneName: 'longGeneric' | 'long' | 'longOffset') =>
    new Intl.DateTimeFormat(locale, { timeZone: zone, timeZoneName }).formatToParts(at).find((p) => p.type === 'timeZoneName')?.value ?? '';
  const offset = part('longOffset');
  // UTC has no generic name, only its standard one; Etc/GMT+5 has neither (both read as the offset).
  const name = [part('longGeneric'), part('long')].find((n) => n && n !== offset);
  const place = zone.replaceAll('_', ' ');
  return name ? `${name} (${place}, ${offset})` : `${place} (${offset})`;
}

/** The zones offered, each with its label, in the order of their labels in `locale`. */
export function timeZoneChoices(locale: string, at: Date = new Date()): { id: string; label: string }[] {
  const collator = new Intl.Collator(locale);
  return timeZones()
    .map((id) => ({ id, label: timeZoneLabel(id, locale, at) }))
    .sort((a, b) => collator.compare(a.label, b.label));
}
