// Statistics (spec 2.7): area by status and by owner, summed in the database, and by crop. Areas are
// stored rounded to what the field list shows, so the sums agree with it to the last decimal.
import type { TenantDb } from '../db/tenant';
import { AREA_UNIT, roundArea } from './fields';
import { latestPerField, scanCrop, scanCropUnsure } from '../scans/scans';

/**
 * A scan's crop as the statistics count it: the one a user named, else the classifier's unless it
 * is a near-guess (`isUncertain`, which the pages and the report flag): a plan by crop is not made
 * of guesses, so such a field counts under no crop until someone names it.
 */
export function plannedCrop(scan: { cropType: string | null; cropJson: string | null }): string | null {
  return scanCropUnsure(scan) ? null : scanCrop(scan);
}

/**
 * Area by crop in `year` (the crop structure an agronomist plans by): each field's crop is that of
 * its scan taken last in the year (plannedCrop: named, else the classifier's unless a near-guess); fields with none
 * that year are summed under `crop: null`. A scan whose capture date no one knows counts in the year
 * it was uploaded. Only scanned fields are read, so a company of unscanned fields costs nothing.
 */
async function areaByCrop(db: TenantDb, year: number) {
  const [from, to] = [new Date(Date.UTC(year, 0, 1)), new Date(Date.UTC(year + 1, 0, 1))];
  const scans = await db.scan.findMany({
    where: { status: 'completed', OR: [{ capturedAt: { gte: from, lt: to } }, { capturedAt: null, createdAt: { gte: from, lt: to } }] },
    select: { id: true, fieldId: true, capturedAt: true, createdAt: true, cropType: true, cropJson: true, field: { select: { area: true } } },
  });
  const byCrop = new Map<string, number>();
  for (const s of latestPerField(scans).values()) {
    const crop = plannedCrop(s);
    if (crop) byCrop.set(crop, (byCrop.get(crop) ?? 0) + roundArea(s.field.area));
  }
  return [...byCrop].map(([crop, area]) => ({ crop: crop as string | null, area: roundArea(area) }));
}

/**
 * The years the crop statistics have data for, newest first: those of the completed scans, each in the
 * year it was taken (uploaded, when no one knows), as `areaByCrop` counts them.
 */
export async function cropYears(db: TenantDb): Promise<number[]> {
  const scans = await db.scan.findMany({ where: { status: 'completed' }, select: { capturedAt: true, createdAt: true } });
  return [...new Set(scans.map((s) => (s.capturedAt ?? s.createdAt).getUTCFullYear()))].sort((a, b) => b - a);
}

export async function fieldStats(db: TenantDb, cropYear: number = new Date().getUTCFullYear()) {
  const [total, byStatus, byOwner, owners, cropped] = await Promise.all([
    db.field.aggregate({ _count: { _all: true }, _sum: { area: true } }),
    db.field.groupBy({ by: ['status'], _sum: { area: true } }),
    db.field.groupBy({ by: ['ownerId'], _sum: { area: true } }),
    db.owner.findMany({ select: { id: true, name: true } }),
    areaByCrop(db, cropYear),
  ]);
  const ownerName = new Map(owners.map((o) => [o.id, o.name]));
  const totalArea = roundArea(total._sum.area ?? 0);
  const uncropped = roundArea(totalArea - cropped.reduce((sum, c) => sum + c.area, 0));
  return {
    total_fields: total._count._all,
    total_area: totalArea,
    area_unit: AREA_UNIT,
    // Fields without a status are counted under the empty string.
    by_status: Object.fromEntries(byStatus.map((g) => [g.status ?? '', roundArea(g._sum.area ?? 0)])),
    by_owner: byOwner
      .map((g) => ({ name: g.ownerId === null ? null : (ownerName.get(g.ownerId) ?? null), area: roundArea(g._sum.area ?? 0) }))
      .sort((a, b) => b.area - a.area || String(a.name).localeCompare(String(b.name))),
    crop_year: cropYear,
    by_crop: [...cropped, ...(uncropped > 0 ? [{ crop: null, area: uncropped }] : [])].sort((a, b) => b.area - a.area || String(a.crop).localeCompare(String(b.crop))),
  };
}
