// Making a completed scan's management zones again, from the index raster it keeps: with another
// number of classes or method (an agronomist's call after seeing them), and for the field's boundary
// as it is now (after a redraw, a split or a merge). A background task, like the first zoning.
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { z } from 'zod';
import type { TenantDb } from '../db/tenant';
import { indexRasterPath } from '../drone/files';
import type { FieldGeometry } from '../geo/geometry';
import { conflict, notFound } from '../errors';
import { DEFAULT_ZONING, DRONE_ZONING, type ZoningOptions, type ZoningRecord } from '../raster/zones';
import type { RezoneJobPayload, ZoningJobPayload } from '../jobs/zoning-jobs';
import { submitTask } from '../tasks/queue';
import { resolveDataPath, storeDataPath } from '../uploads/data-path';
import type { rezoneScanBody } from './schemas';

/**
 * 202 `{task_id, scan_id, field_id}`; 409 while the scan is being processed or its zones are already
 * being made again, or when its raster is no longer kept.
 */
export async function submitRezoning(db: TenantDb, userId: number, scanId: number, body: z.infer<typeof rezoneScanBody>) {
  const scan = await db.scan.findUnique({
    where: { id: scanId },
    select: { id: true, fieldId: true, source: true, status: true, fileName: true, dataPath: true, indexName: true, detailsJson: true, field: { select: { geometry: true } } },
  });
  if (!scan) throw notFound();
  if (scan.status !== 'completed') throw conflict('scan_not_completed');
  const underWay = await db.task.count({ where: { scanId, kind: 'rezone', status: { in: ['pending', 'running'] } } });
  if (underWay) throw conflict('scan_rezoning');

  const kept = await keptRaster(db, scan);
  if (!kept || !existsSync(kept.rasterPath)) throw conflict('scan_no_raster');
  // As the scan was last zoned (recorded since zonings recorded it; before, as its task was given),
  // then what is asked for now. The index stays the scan's; whether water is left out is remembered.
  const last = (JSON.parse(scan.detailsJson) as { zoning?: ZoningRecord }).zoning;
  const options: Partial<ZoningOptions> = {
    ...kept.options,
    ...(last ? { zones: last.zones, method: last.method, minZoneAreaHa: last.min_zone_area_ha } : {}),
    // Zonings recorded before water had its own test left out index values below 0: as it is now.
    ...(last?.mask_water !== undefined ? { maskWater: last.mask_water } : {}),
    ...(body.zones !== undefined ? { zones: body.zones } : {}),
    ...(body.method !== undefined ? { method: body.method } : {}),
    ...(body.min_zone_area_ha !== undefined ? { minZoneAreaHa: body.min_zone_area_ha } : {}),
    ...(body.mask_water !== undefined ? { maskWater: body.mask_water } : {}),
  };
  const payload: RezoneJobPayload = { rasterPath: storeDataPath(kept.rasterPath), fieldGeometry: JSON.parse(scan.field.geometry) as FieldGeometry, options };
  const task = await submitTask(db, { kind: 'rezone', payload, fileName: scan.fileName ?? undefined, fieldId: scan.fieldId, scanId, createdBy: userId });
  return { task_id: task.id, scan_id: scanId, field_id: scan.fieldId };
}

/**
 * The index raster a scan keeps and the options it was first zoned with: an uploaded raster's is
 * named by the task that made the scan; a drone scan's index GeoTIFF lies beside its preview.
 */
export async function keptRaster(db: TenantDb, scan: { id: number; source: string; dataPath: string | null; indexName: string | null }) {
  if (scan.source === 'drone') {
    return scan.dataPath ? { rasterPath: indexRasterPath(dirname(resolveDataPath(scan.dataPath)), scan.indexName ?? 'index'), options: DRONE_ZONING } : null;
  }
  const made = await db.task.findFirst({ where: { scanId: scan.id, kind: 'raster_zones' }, select: { payloadJson: true } });
  if (!made) return null;
  const payload = JSON.parse(made.payloadJson) as ZoningJobPayload;
  return { rasterPath: resolveDataPath(payload.rasterPath), options: { ...DEFAULT_ZONING, ...payload.options } };
}
