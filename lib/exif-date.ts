// EXIF and TIFF date-times ("2016:06:23 16:31:59"), as cameras and GIS write them.

/**
 * A date-time written "YYYY:MM:DD HH:MM:SS" (or with dashes, or a T): its ISO text (local, as
 * written) and its milliseconds read as UTC; null unless it is a real moment of years 1900-2100.
 * Date.UTC rolls "9999:99:99 99:99:99" over into some other day, so the parts must come back as given.
 */
export function exifDateTime(value: unknown): { local: string; utcMs: number } | null {
  const m = /^(\d{4})[:-](\d{2})[:-](\d{2})[ T](\d{2}):(\d{2}):(\d{2})/.exec(String(value ?? ''));
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const utcMs = Date.UTC(y, mo - 1, d, h, mi, s);
  const t = new Date(utcMs);
  const exact = t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d && t.getUTCHours() === h && t.getUTCMinutes() === mi && t.getUTCSeconds() === s;
  if (!exact || y < 1900 || y > 2100) return null;
  return { local: `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}`, utcMs };
}
