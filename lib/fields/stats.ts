// Statistics (spec 2.7): area by status and by owner, summed in the database. Areas are stored
// rounded to what the field list shows, so the sums agree with it to the last decimal.
import type { TenantDb } from '../db/tenant';
import { AREA_UNIT, roundArea } from './fields';

export async function fieldStats(db: TenantDb) {
  const [total, byStatus, byOwner, owners] = await Promise.all([
    db.field.aggregate({ _count: { _all: true }, _sum: { area: true } }),
    db.field.groupBy({ by: ['status'], _sum: { area: true } }),
    db.field.groupBy({ by: ['ownerId'], _sum: { area: true } }),
    db.owner.findMany({ select: { id: true, name: true } }),
  ]);
  const ownerName = new Map(owners.map((o) => [o.id, o.name]));
  return {
    total_fields: total._count._all,
    total_area: roundArea(total._sum.area ?? 0),
    area_unit: AREA_UNIT,
    // Fields without a status are counted under the empty string.
    by_status: Object.fromEntries(byStatus.map((g) => [g.status ?? '', roundArea(g._sum.area ?? 0)])),
    by_owner: byOwner
      .map((g) => ({ name: g.ownerId === null ? null : (ownerName.get(g.ownerId) ?? null), area: roundArea(g._sum.area ?? 0) }))
      .sort((a, b) => b.area - a.area || String(a.name).localeCompare(String(b.name))),
  };
}
