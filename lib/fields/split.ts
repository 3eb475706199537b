// Splitting a field along a line: part of a parcel sown or leased apart becomes a field of its own.
import type { Position } from 'geojson';
import { type TenantDb, tenantCreate } from '../db/tenant';
import { geometryAreaHa } from '../geo/area';
import type { FieldGeometry } from '../geo/geometry';
import { notFound } from '../errors';
import { noteScansBoundary } from '../scans/boundary';
import { runBoundaryWork } from './boundary-work';
import { assertFieldsUnchanged, geometryColumns, roundArea } from './fields';

/** Where a part cut off a field came from, under its `attributes.split_from`. */
export interface SplitFrom {
  id: number;
  name: string;
}

/** Room left in a name (255 characters at most) for the part's number. */
const NAME_ROOM = 248;

/**
 * Cuts the field `id` along `line` into its parts. The largest stays the field (its id, name, scans
 * and all); each other becomes a new field with the same owner, status, parcel number and imported
 * attributes, named after it with the part's number ("North (2)"), and remembering it in
 * `attributes.split_from`. Areas are those of the parts. All of it happens or none.
 */
export async function splitField(db: TenantDb, id: number, line: Position[]) {
  // The cut is made before the transaction: SQLite's write lock is not held while it runs.
  const field = await db.field.findUnique({
    where: { id },
    select: { id: true, name: true, ownerId: true, status: true, parcelNumber: true, geometry: true, attributesJson: true, updatedAt: true },
  });
  if (!field) throw notFound();
  const [largest, ...others] = await runBoundaryWork({ op: 'split', field: JSON.parse(field.geometry) as FieldGeometry, line });
  // The register's attributes go with each part; what this service noted of the field's own past
  // (the fields merged into it, the one it was cut from) stays with the field.
  const imported = Object.entries(JSON.parse(field.attributesJson) as Record<string, unknown>).filter(([k]) => k !== 'merged_from' && k !== 'split_from');
  const attributes = { ...Object.fromEntries(imported), split_from: { id, name: field.name } satisfies SplitFrom };

  return db.$transaction(async (tx) => {
    await assertFieldsUnchanged(tx, [field]);
    await noteScansBoundary(tx, id, field.geometry);
    const kept = await tx.field.update({
      where: { id },
      data: { ...geometryColumns(largest!), area: roundArea(geometryAreaHa(largest!)) },
      include: { owner: { select: { id: true, name: true } } },
    });
    const created = [];
    for (const [i, geometry] of others.entries()) {
      created.push(
        await tx.field.create({
          data: tenantCreate('field', {
            name: `${field.name.slice(0, NAME_ROOM)} (${i + 2})`,
            ownerId: field.ownerId,
            status: field.status,
            parcelNumber: field.parcelNumber,
            attributesJson: JSON.stringify(attributes),
            area: roundArea(geometryAreaHa(geometry)),
            ...geometryColumns(geometry),
          }),
          select: { id: true, name: true, area: true },
        }),
      );
    }
    return { field: kept, created };
  });
}
