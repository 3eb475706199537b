// Merging fields: parcels farmed as one (adjacent register parcels, say) become one field.
import type { z } from 'zod';
import type { TenantDb } from '../db/tenant';
import { geometryAreaHa } from '../geo/area';
import type { FieldGeometry } from '../geo/geometry';
import { conflict, notFound } from '../errors';
import { noteScansBoundary } from '../scans/boundary';
import { runBoundaryWork } from './boundary-work';
import { assertFieldsUnchanged, fieldsWithTasksInProgress, geometryColumns, lockFieldRows, roundArea } from './fields';
import { removeFieldFiles } from './files';
import type { mergeFieldsBody } from './schemas';

/** Scans and zones belong to the boundary they were made for: fields taken in may have none (409). */
async function assertNoScans(db: Pick<TenantDb, 'scan' | 'zone' | 'task'>, fields: { id: number; name: string }[]) {
  const ids = fields.map((f) => f.id);
  const [scanned, zoned, uploading] = await Promise.all([
    db.scan.findMany({ where: { fieldId: { in: ids } }, select: { fieldId: true } }),
    db.zone.findMany({ where: { fieldId: { in: ids } }, select: { fieldId: true } }),
    fieldsWithTasksInProgress(db, ids),
  ]);
  // An upload still being processed is a scan to come: to be waited for, which its own message says.
  if (uploading.size > 0) throw conflict('merge_fields_uploading', { names: fields.filter((f) => uploading.has(f.id)).map((f) => f.name).join(', ') });
  const withData = new Set([...scanned, ...zoned].map((r) => r.fieldId));
  if (withData.size > 0) throw conflict('merge_fields_have_scans', { names: fields.filter((f) => withData.has(f.id)).map((f) => f.name).join(', ') });
}

/** What a merged field keeps of each field it took in, under `attributes.merged_from`. */
export interface MergedFrom {
  id: number;
  name: string;
  parcel_number: string | null;
  area: number;
  /** Its boundary, so that the register's parcel can be drawn again. */
  geometry: FieldGeometry;
  attributes: Record<string, unknown>;
}

/**
 * Merges the fields `ids` into the first: it keeps its id, owner, status, parcel number, scans and
 * (unless `name` is given) name; its boundary becomes the union of all, its area that of the union.
 * The others are removed, each remembered in the first's `attributes.merged_from` (name, parcel
 * number, area, boundary and attributes), so no register data is lost. Scans and zones belong to the boundary
 * they were made for, so the others may have none (409). All of it happens or none; an id that is
 * not the company's answers 404.
 */
export async function mergeFields(db: TenantDb, companyId: number, { ids, name }: z.infer<typeof mergeFieldsBody>) {
  // The union is computed before the transaction: SQLite's write lock is not held while it runs.
  const rows = await readMergedRows(db, ids);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const [kept, ...others] = ids.map((id) => byId.get(id)!);
  await assertNoScans(db, others);

  const [geometry] = await runBoundaryWork({ op: 'union', fields: ids.map((id) => JSON.parse(byId.get(id)!.geometry) as FieldGeometry) });
  const attributes = JSON.parse(kept!.attributesJson) as Record<string, unknown>;
  const mergedFrom = mergedFromList(attributes, others);
  const merged = await writeMerge(db, rows, kept!, others, { name, geometry: geometry!, attributes: { ...attributes, merged_from: mergedFrom } });
  // The fields taken in had no scans, but a folder of theirs (an upload that failed) may be left.
  await Promise.all(ids.slice(1).map((id) => removeFieldFiles(companyId, id)));
  return merged;
}

type MergedRow = Awaited<ReturnType<typeof readMergedRows>>[number];

/** The fields to merge, as the merge reads them; 404 when one of `ids` is not the company's. */
async function readMergedRows(db: TenantDb, ids: number[]) {
  const rows = await db.field.findMany({
    where: { id: { in: ids } },
    select: { id: true, name: true, parcelNumber: true, area: true, geometry: true, attributesJson: true, updatedAt: true },
  });
  if (rows.length !== ids.length) throw notFound();
  return rows;
}

/** The kept field's `merged_from`: what it had already, then each field taken in now. */
function mergedFromList(attributes: Record<string, unknown>, others: MergedRow[]): MergedFrom[] {
  return [
    ...(Array.isArray(attributes.merged_from) ? (attributes.merged_from as MergedFrom[]) : []),
    ...others.map((f) => ({
      id: f.id,
      name: f.name,
      parcel_number: f.parcelNumber,
      area: roundArea(f.area),
      geometry: JSON.parse(f.geometry) as FieldGeometry,
      attributes: JSON.parse(f.attributesJson) as Record<string, unknown>,
    })),
  ];
}

/** What the kept field becomes: its new name (unchanged when undefined), boundary and attributes. */
interface MergedField {
  name: string | undefined;
  geometry: FieldGeometry;
  attributes: Record<string, unknown>;
}

/** In one transaction, once nothing changed meanwhile: the others removed (their tasks moved to the kept field), the kept field updated. */
async function writeMerge(db: TenantDb, rows: MergedRow[], kept: MergedRow, others: MergedRow[], merged: MergedField) {
  const otherIds = others.map((f) => f.id);
  return db.$transaction(async (tx) => {
    await lockFieldRows(tx, otherIds);
    await assertFieldsUnchanged(tx, rows);
    // Again: a scan may have been uploaded for one of them meanwhile.
    await assertNoScans(tx, others);
    await noteScansBoundary(tx, kept.id, kept.geometry);
    // Their uploads (a failed one, or one whose scan was deleted) stay in the company's record, under
    // the field they are now part of, rather than going with the rows deleted.
    await tx.task.updateMany({ where: { fieldId: { in: otherIds } }, data: { fieldId: kept.id } });
    await tx.field.deleteMany({ where: { id: { in: otherIds } } });
    return tx.field.update({
      where: { id: kept.id },
      data: {
        ...(merged.name !== undefined ? { name: merged.name } : {}),
        ...geometryColumns(merged.geometry),
        area: roundArea(geometryAreaHa(merged.geometry)),
        attributesJson: JSON.stringify(merged.attributes),
      },
      include: { owner: { select: { id: true, name: true } } },
    });
  });
}
