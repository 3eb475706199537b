// Uploading an index GeoTIFF: checked at once (readable, gives the index, overlaps the field: a bad
// file never becomes a task), matched to a field, kept with the field's files, and handed to a
// background task that makes the zones.
import { randomUUID } from 'node:crypto';
import { mkdir, rename } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { z } from 'zod';
import type { TenantDb } from '../db/tenant';
import type { FieldGeometry } from '../geo/geometry';
import { boundingBox } from '../geo/geometry';
import { intersectionAreaM2 } from '../geo/overlap';
import { notFound, unprocessable, unsupportedMediaType } from '../errors';
import { validate } from '../http/validate';
import { type IndexName, bandOrder } from '../raster/bands';
import { ZONING_METHODS } from '../raster/classify';
import { submitTask } from '../tasks/queue';
import type { ZoningJobPayload } from '../jobs/zoning-jobs';
import { storeDataPath } from '../uploads/data-path';
import type { ReceivedFile } from '../uploads/multipart';
import { fieldsMeetingBox } from '../fields/fields';
import { captureDate } from './schemas';
import { fieldDataDir } from '../fields/files';
import { recordIdText } from '../http/record-id';
import { inspectUploadedRaster } from './upload-checks';

export const rasterUploadParts = z.object({
  field_id: recordIdText.optional(),
  zones: z.coerce.number().int().min(3).max(7).default(5),
  method: z.enum(ZONING_METHODS).default('jenks'),
  index: z.string().trim().toLowerCase().regex(/^[a-z0-9_]{2,16}$/).default('auto'),
  min_zone_area_ha: z.coerce.number().min(0).max(1000).default(0.1),
  // When the image was taken, if the file does not say (NAIP and many exports carry no date) or says wrong.
  captured_at: captureDate.optional(),
  // What each band is, in the file's order (`swir1,nir,red,green`, `B4,B3,B2,B8`), for a file that
  // names none and is not in the usual order for its band count.
  bands: bandOrder.optional(),
  // Leave the field's water out of the zones (its own water mode: lib/raster/classify.ts waterCut);
  // `false` zones every pixel with data. A form's checkbox sends `true`/`false`.
  mask_water: z.enum(['true', 'false']).default('true').transform((v) => v === 'true'),
});

/** The most of the other fields a raster covers that an upload names (a tile may hold hundreds). */
const OTHERS_NAMED = 20;

/**
 * The company's field that overlaps the raster's footprint most (422 when none does), and the others
 * it overlaps, most first: a tile over several fields zones one, and the person uploading is told
 * which others it could zone too.
 */
export async function fieldUnderRaster(db: TenantDb, footprint: FieldGeometry) {
  const box = boundingBox(footprint);
  const candidates = await db.field.findMany({
    where: fieldsMeetingBox(box),
    select: { id: true, name: true, geometry: true },
  });
  const overlapping = candidates
    .map((c) => ({ id: c.id, name: c.name, geometry: JSON.parse(c.geometry) as FieldGeometry }))
    .map((c) => ({ ...c, overlap: overlapHa(footprint, c.geometry) }))
    .filter((c) => c.overlap > 0)
    .sort((a, b) => b.overlap - a.overlap || a.id - b.id);
  const [best, ...others] = overlapping;
  if (!best) throw unprocessable('raster_no_field');
  return { id: best.id, geometry: best.geometry, others: others.slice(0, OTHERS_NAMED).map(({ id, name }) => ({ id, name })) };
}

const overlapHa = (footprint: FieldGeometry, geometry: FieldGeometry) => intersectionAreaM2(footprint, geometry) / 10_000;

export async function submitRasterZoning(db: TenantDb, companyId: number, userId: number, file: ReceivedFile, parts: Record<string, string>) {
  const options = validate(rasterUploadParts, parts);
  if (!/\.tiff?$/i.test(file.filename)) throw unsupportedMediaType('raster_not_tiff');
  const index = options.index as IndexName;
  const info = await inspectUploadedRaster(file.path, index, options.bands);
  let field: { id: number; geometry: FieldGeometry; others?: { id: number; name: string }[] };
  if (options.field_id) {
    const row = await db.field.findUnique({ where: { id: options.field_id }, select: { id: true, geometry: true } });
    if (!row) throw notFound();
    field = { id: row.id, geometry: JSON.parse(row.geometry) as FieldGeometry };
    // A raster of somewhere else (the wrong field chosen) is refused now, not stored to fail as a task.
    if (overlapHa(info.footprintWgs84, field.geometry) === 0) throw unprocessable('raster_no_overlap');
  } else {
    field = await fieldUnderRaster(db, info.footprintWgs84);
  }
  // The raster stays with the field's files, one file per upload: removed with its scan or the field.
  const dir = join(fieldDataDir(companyId, field.id), 'rasters');
  await mkdir(dir, { recursive: true });
  const rasterPath = join(dir, `${randomUUID()}${extname(file.filename).toLowerCase()}`);
  await rename(file.path, rasterPath);
  const capturedAt = options.captured_at?.toISOString() ?? info.capturedAt ?? null;
  const payload: ZoningJobPayload = {
    rasterPath: storeDataPath(rasterPath),
    fileName: file.filename,
    capturedAt,
    fieldGeometry: field.geometry,
    options: { zones: options.zones, method: options.method, index, minZoneAreaHa: options.min_zone_area_ha, maskWater: options.mask_water, ...(options.bands ? { bandOrder: options.bands } : {}) },
  };
  const task = await submitTask(db, { kind: 'raster_zones', payload, fileName: file.filename, fieldId: field.id, createdBy: userId, ownedFiles: [rasterPath] });
  // The date the scan will carry (null: neither the file nor the form gave one, and the scan is placed
  // by its upload until someone sets it), and the other fields under an automatically placed raster.
  return { task_id: task.id, field_id: field.id, captured_at: capturedAt, ...(field.others ? { also_covers: field.others } : {}) };
}
