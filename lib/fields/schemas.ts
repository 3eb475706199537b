// Request bodies and query strings of the field endpoints.
import { z } from 'zod';
import { singleLine } from '../http/single-line';
import { PARCEL_NUMBER } from './parcel-number';
import { recordId, recordIdText } from '../http/record-id';
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

export const ownerBody = z.object({ name: singleLine() }).strict();

/** GET /api/stats: the year of the area by crop (this year when left out). */
export const statsQuery = z.object({ year: z.coerce.number().int().min(1900).max(2100).optional() });
