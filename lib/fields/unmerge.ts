// Taking a parcel merged into a field back out: a parcel farmed as part of a field for a while (a
// lease taken over, say) is farmed apart again, with its register data.
import { type TenantDb, tenantCreate } from '../db/tenant';
import { geometryAreaHa } from '../geo/area';
import type { FieldGeometry } from '../geo/geometry';
import { notFound } from '../errors';
import { noteScansBoundary } from '../scans/boundary';
import { runBoundaryWork } from './boundary-work';
import { assertFieldsUnchanged, geometryColumns, roundArea } from './fields';
import type { MergedFrom } from './merge';

/**
 * Takes the parcel `mergedId`, remembered in the field's `attributes.merged_from`, back out of the
 * field `id`: it becomes a field again (its old id, name, parcel number and attributes; the field's
 * owner and status), with the part of its boundary that lies within the field's boundary now, and
 * the field keeps the rest (its scans too). A parcel outside the field now, or covering all of it,
 * is 422; one not merged into this field is 404. All of it happens or none.
 */
export async function unmergeField(db: TenantDb, id: number, mergedId: number) {
  // The geometry is worked out before the transaction: SQLite's write lock is not held while it runs.
  const field = await db.field.findUnique({
    where: { id },
    select: { id: true, ownerId: true, status: true, geometry: true, attributesJson: true, updatedAt: true },
  });
  if (!field) throw notFound();
  const attributes = JSON.parse(field.attributesJson) as Record<string, unknown>;
  const mergedFrom = Array.isArray(attributes.merged_from) ? (attributes.merged_from as MergedFrom[]) : [];
  const parcel = mergedFrom.find((m) => m.id === mergedId);
  if (!parcel) throw notFound();
  const [part, rest] = await runBoundaryWork({ op: 'separate', field: JSON.parse(field.geometry) as FieldGeometry, part: parcel.geometry, name: parcel.name });
  // The area it had, perhaps a cadastral one, while its boundary is the one it had (the clipper may
  // start a ring at another corner, so the boundaries are compared by what they cover, to 1 m²).
  const partHa = geometryAreaHa(part!);
  const partArea = Math.abs(partHa - geometryAreaHa(parcel.geometry)) < 1e-4 ? parcel.area : roundArea(partHa);
  const left = mergedFrom.filter((m) => m.id !== mergedId);
  const others = Object.fromEntries(Object.entries(attributes).filter(([k]) => k !== 'merged_from'));

  return db.$transaction(async (tx) => {
    await assertFieldsUnchanged(tx, [field]);
    await noteScansBoundary(tx, id, field.geometry);
    const kept = await tx.field.update({
      where: { id },
      data: { ...geometryColumns(rest!), area: roundArea(geometryAreaHa(rest!)), attributesJson: JSON.stringify(left.length ? { ...others, merged_from: left } : others) },
      include: { owner: { select: { id: true, name: true } } },
    });
    // Its old id, so that links and other systems' references find it again (ids are never reused).
    const idFree = !(await tx.field.findUnique({ where: { id: parcel.id }, select: { id: true } }));
    const restored = await tx.field.create({
      data: tenantCreate('field', {
        ...(idFree ? { id: parcel.id } : {}),
        name: parcel.name,
        ownerId: field.ownerId,
        status: field.status,
        parcelNumber: parcel.parcel_number,
        attributesJson: JSON.stringify(parcel.attributes ?? {}),
        area: partArea,
        ...geometryColumns(part!),
      }),
      select: { id: true, name: true, area: true },
    });
    return { field: kept, restored };
  });
}
