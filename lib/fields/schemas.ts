// Request bodies and query strings of the field endpoints.
import { z } from 'zod';
import { singleLine } from '../http/single-line';
import { ZONING_METHODS } from '../raster/classify';
import { PARCEL_NUMBER } from './parcel-number';
import { recordId, recordIdText } from '../http/record-id';
import { MESSAGES } from '../i18n/messages';
import { SIMPLIFY_MAX_M } from '../geo/simplify';

const parcelNumber = z
  .string()
  .trim()
  .max(64)
  .refine((v) => v === '' || PARCEL_NUMBER.test(v), { params: { key: 'parcel_number' } })
  .transform((v) => v || null)
  .nullable();

const status = singleLine(64).nullable();
const ownerId = recordId.nullable();
// Areas are kept to the square metre (`roundArea`): a smaller one would be stored as 0.
const area = z.number().min(0.0001).max(1e7);

// Bodies are strict: a key this API does not know (`parcelNumber`, the `owner` object a GET answers)
// is refused by name, where it was ignored with a 200 and nothing changed.
export const createFieldBody = z
  .object({
    name: singleLine(),
    geometry: z.unknown(),
    owner_id: ownerId.optional(),
    status: status.optional(),
    parcel_number: parcelNumber.optional(),
    area: area.optional(),
  })
  .strict();

/** PUT: any of the same, at least one. */
export const updateFieldBody = createFieldBody.partial().refine((b) => Object.values(b).some((v) => v !== undefined), { params: { key: 'field_nothing_to_update' } });

/** Fields one PATCH /api/fields may change: a company's whole register, at this service's scale. */
const MAX_BULK_FIELDS = 10_000;

/**
 * PATCH /api/fields: the same owner or status, or both, for many fields at once (farm staff set them
 * after importing a register, whose parcels come without).
 */
export const updateFieldsBody = z
  .object({
    ids: z.array(recordId).min(1).max(MAX_BULK_FIELDS).transform((ids) => [...new Set(ids)]),
    owner_id: ownerId.optional(),
    status: status.optional(),
  })
  .strict()
  .refine((b) => b.owner_id !== undefined || b.status !== undefined, { params: { key: 'fields_nothing_to_update' } });

/** Fields one merge may join: parcels farmed as one field, not a register. */
const MAX_MERGED_FIELDS = 100;

/**
 * POST /api/fields/merge: fields farmed as one become the first of them, with the boundary of all
 * (adjacent register parcels, say). `name` renames the merged field.
 */
export const mergeFieldsBody = z.object({
  ids: z
    .array(recordId)
    .max(MAX_MERGED_FIELDS)
    .transform((ids) => [...new Set(ids)])
    .refine((ids) => ids.length >= 2, { params: { key: 'merge_two_fields' } }),
  name: singleLine().optional(),
});

/** A position of a cutting line: [longitude, latitude], an altitude ignored. */
const linePosition = z.tuple([z.number().min(-180).max(180), z.number().min(-90).max(90)]).rest(z.number());

/** POST /api/fields/{id}/split: the line (GeoJSON LineString, lon/lat) to cut the field along. */
export const splitFieldBody = z.object({
  line: z.object({
    type: z.literal('LineString'),
    coordinates: z
      .array(linePosition)
      .max(10_000)
      // A point repeated (a double click) adds nothing to the line.
      .transform((points) => points.filter((p, i) => i === 0 || p[0] !== points[i - 1]![0] || p[1] !== points[i - 1]![1]).map((p) => [p[0], p[1]]))
      .refine((points) => points.length >= 2, { params: { key: 'split_line_points' } }),
  }),
});

export const unmergeFieldBody = z.object({
  merged_id: recordId,
});

const bbox = z
  .string()
  .transform((s) => s.split(','))
  // An empty part is no number (Number('') is 0: `bbox=,,,` was the box 0,0,0,0).
  .refine((parts) => parts.length === 4 && parts.every((p) => p.trim() !== ''), { params: { key: 'bbox' } })
  .transform((parts) => parts.map(Number))
  .refine((n) => n.every(Number.isFinite) && n[0]! <= n[2]! && n[1]! <= n[3]!, { params: { key: 'bbox' } });

export const fieldListQuery = z.object({
  bbox: bbox.optional(),
  // Metres within which each boundary is simplified for drawing (lib/geo/simplify.ts).
  simplify: z.coerce.number().positive().max(SIMPLIFY_MAX_M).optional(),
  owner_id: recordIdText.optional(),
  status: z.string().max(64).optional(),
  q: z.string().trim().max(255).optional(),
});

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

export const ownerBody = z.object({ name: singleLine() }).strict();

/** GET /api/stats: the year of the area by crop (this year when left out). */
export const statsQuery = z.object({ year: z.coerce.number().int().min(1900).max(2100).optional() });
