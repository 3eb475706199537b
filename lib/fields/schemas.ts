// Request bodies and query strings of the field endpoints.
import { z } from 'zod';

export const PARCEL_NUMBER = /^\d+(:\d+)*$/;

const parcelNumber = z
  .string()
  .trim()
  .max(64)
  .refine((v) => v === '' || PARCEL_NUMBER.test(v), { params: { key: 'parcel_number' } })
  .transform((v) => v || null)
  .nullable();

const status = z.string().trim().min(1).max(64).nullable();
const ownerId = z.number().int().positive().nullable();
const area = z.number().positive().max(1e7);

export const createFieldBody = z.object({
  name: z.string().trim().min(1).max(255),
  geometry: z.unknown(),
  owner_id: ownerId.optional(),
  status: status.optional(),
  parcel_number: parcelNumber.optional(),
  area: area.optional(),
});

export const updateFieldBody = z.object({
  name: z.string().trim().min(1).max(255).optional(),
  geometry: z.unknown().optional(),
  owner_id: ownerId.optional(),
  status: status.optional(),
  parcel_number: parcelNumber.optional(),
  area: area.optional(),
});

const bbox = z
  .string()
  .transform((s) => s.split(',').map(Number))
  .refine((n) => n.length === 4 && n.every(Number.isFinite) && n[0]! <= n[2]! && n[1]! <= n[3]!, { params: { key: 'bbox' } });

export const fieldListQuery = z.object({
  bbox: bbox.optional(),
  owner_id: z.coerce.number().int().positive().optional(),
  status: z.string().max(64).optional(),
  q: z.string().trim().max(255).optional(),
});

/**
 * The crop a user names: the classifier's eight or any other identifier (the spec leaves the set
 * open). `auto`, the automatic classification, names none and parses as null.
 */
export const userCrop = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z][a-z0-9_-]{1,31}$/)
  .transform((v) => (v === 'auto' ? null : v));

/** PUT /api/scans/{id}: the user's crop (null or `auto` goes back to the classifier's). */
export const updateScanBody = z.object({ crop_type: userCrop.nullable() });

export const ownerBody = z.object({ name: z.string().trim().min(1).max(255) });
