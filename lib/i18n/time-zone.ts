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
