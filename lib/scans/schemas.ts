// Request bodies of the scan endpoints and the crop and capture date an upload gives.
import { z } from 'zod';
import { MESSAGES } from '../i18n/messages';
import { ZONING_METHODS } from '../raster/classify';

/** The classifier's crops by the names the pages give them, in any of the languages ("Пшеница" is wheat). */
const CROP_BY_NAME = new Map(
  Object.values(MESSAGES).flatMap((m) => Object.entries(m.drone.crops).map(([id, name]) => [name.toLocaleLowerCase(), id] as const)),
);

/**
 * The crop a user names: the classifier's eight (by identifier, or by name in ru, en or sk) or any
 * other identifier (the spec leaves the set open). `auto`, the automatic classification, names none
 * and parses as null.
 */
export const userCrop = z
  .string()
  .trim()
  .transform((v) => CROP_BY_NAME.get(v.toLocaleLowerCase()) ?? v.toLowerCase())
  .pipe(z.string().regex(/^[a-z][a-z0-9_-]{1,31}$/))
  .transform((v) => (v === 'auto' ? null : v));

const CAPTURE_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?)?$/;
const EARLIEST_CAPTURE = Date.UTC(1900, 0, 1);
/** A day of slack for a date a client a timezone ahead of UTC calls today. */
const CAPTURE_SLACK_MS = 24 * 3600 * 1000;

/**
 * When an image was taken: `YYYY-MM-DD` or an ISO 8601 date-time, from 1900 to today; null for
 * anything else (a day that does not exist, a camera's `0000:00:00`, a clock set years ahead). A
 * date or time without an offset is kept as written, as the TIFF and EXIF dates of the files are
 * (their cameras say nothing of their zone), so that the day shown is the day given whatever the
 * server's zone.
 */
export function parseCaptureDate(text: string): Date | null {
  const m = CAPTURE_DATE.exec(text.trim());
  if (!m) return null;
  const [, y, mo, d, h = '00', mi = '00', sec = '00', zone] = m;
  const wall = new Date(`${y}-${mo}-${d}T${h}:${mi}:${sec}Z`);
  // Date rolls 2019-02-30 over into March: a day that does not exist comes back different.
  if (Number.isNaN(wall.getTime()) || wall.toISOString().slice(0, 10) !== `${y}-${mo}-${d}`) return null;
  const instant = zone && zone !== 'Z' ? new Date(text.trim()) : wall;
  return instant.getTime() >= EARLIEST_CAPTURE && instant.getTime() <= Date.now() + CAPTURE_SLACK_MS ? instant : null;
}

/** A capture date given by a user (`parseCaptureDate`); 422 for one that is not. */
export const captureDate = z
  .string()
  .transform(parseCaptureDate)
  .refine((d): d is Date => d !== null, { params: { key: 'capture_date' } });

/**
 * PUT /api/scans/{id}: the user's crop (null or `auto` goes back to the classifier's) and the
 * capture date, either or both.
 */
export const updateScanBody = z
  .object({ crop_type: userCrop.nullable().optional(), captured_at: captureDate.optional() })
  .refine((b) => b.crop_type !== undefined || b.captured_at !== undefined, { params: { key: 'scan_nothing_to_update' } });

/** `POST /api/scans/{id}/zones`: how to make the scan's zones again; what is left out stays as the scan was zoned. */
export const rezoneScanBody = z
  .object({
    zones: z.number().int().min(3).max(7).optional(),
    method: z.enum(ZONING_METHODS).optional(),
    min_zone_area_ha: z.number().min(0).max(1000).optional(),
    mask_water: z.boolean().optional(),
  })
  // A typo (`zone` for `zones`) is named, not run as the scan's old zoning with a 202.
  .strict();
