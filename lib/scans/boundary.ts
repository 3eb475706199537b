// Which boundary a scan's zones were made for: a fingerprint of the field's geometry as processing
// read it, so that an export can tell whether the boundary has been redrawn (or the field split) since.
import { createHash } from 'node:crypto';
import type { TenantDb } from '../db/tenant';
import type { FieldGeometry } from '../geo/geometry';

/** The stored geometry's text is `JSON.stringify` of it, so parsed and stored forms agree. */
export const boundaryFingerprint = (geometry: FieldGeometry) => createHash('sha1').update(JSON.stringify(geometry)).digest('hex');

/**
 * Before a field's boundary changes: its processed scans that do not say which boundary they were
 * made for (made before this was recorded) are taken to have been made for the present one, so that
 * the exports clip them and the field page says so once it has changed.
 */
export async function noteScansBoundary(tx: Pick<TenantDb, 'scan'>, fieldId: number, geometryText: string) {
  const scans = await tx.scan.findMany({ where: { fieldId, status: 'completed' }, select: { id: true, detailsJson: true } });
  const fingerprint = boundaryFingerprint(JSON.parse(geometryText) as FieldGeometry);
  for (const scan of scans) {
    const details = JSON.parse(scan.detailsJson) as Record<string, unknown>;
    if (typeof details.boundary === 'string') continue;
    await tx.scan.update({ where: { id: scan.id }, data: { detailsJson: JSON.stringify({ ...details, boundary: fingerprint }) } });
  }
}
