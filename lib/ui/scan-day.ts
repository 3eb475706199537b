// How the interface words the day of a scan, on the field page and in the fields table alike.
import type { useFormatter } from 'next-intl';

type Formatter = ReturnType<typeof useFormatter>;

/**
 * The day a scan's image was taken (capture times are kept as the files wrote them, in no zone, so
 * they are read as UTC to show the day written), or, when no one knows (`captured` null), the day it
 * was uploaded as `uploadedOn` words it ("Uploaded 24 Nov 2026").
 */
export function scanDay(format: Formatter, scan: { captured: string | null; uploaded: string }, uploadedOn: (day: string) => string): string {
  if (scan.captured) return format.dateTime(new Date(scan.captured), { dateStyle: 'medium', timeZone: 'UTC' });
  return uploadedOn(format.dateTime(new Date(scan.uploaded), { dateStyle: 'medium' }));
}
