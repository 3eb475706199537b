// What the field's page (app/fields/[id]/page.tsx) shows, as one plain view model: the field, its
// scans and the one chosen, that scan's zones within the present boundary and what they cover. The
// rules are the ones the API and the exports use; words and numbers are left to the page's components.
import { parseSettings } from '../auth/company-settings';
import type { TenantDb } from '../db/tenant';
import { isUncertain } from '../drone/classify';
import { zoneRatesText } from '../exports/load';
import type { FieldGeometry } from '../geo/geometry';
import { notFound } from '../errors';
import { localizeZoneName } from '../i18n/formats';
import type { Locale } from '../i18n/locales';
import type { ZoningMethod } from '../raster/classify';
import type { PreviewLegend } from '../raster/ramp';
import { DEFAULT_ZONING, type ZoningRecord } from '../raster/zones';
import { listTasks, type TaskListItem } from '../tasks/list';
import { type Abilities, abilities } from '../auth/abilities';
import { listOwners } from '../owners/owners';
import { type Coverage, scanCoverage, zonedGround } from '../scans/coverage';
import { fieldDetail, getField } from './fields';
import type { MergedFrom } from './merge';
import { getScan, type IndexStats, listScans, scanDetail } from '../scans/scans';
import type { SplitFrom } from './split';
import { scanZonesWithin } from '../scans/zones-within';

export interface FieldPageQuery {
  scan?: string;
  restored?: string;
}

export type ScanSummary = Awaited<ReturnType<typeof listScans>>[number];
type ScanDetail = ReturnType<typeof scanDetail>;
export type ZoneCollection = ScanDetail['zones'];
export type Classification = ScanDetail['classification'];

/** When a scan's image was taken (null: no one knows) and when it was uploaded, as the page words its day. */
export type ScanDates = Pick<ScanSummary, 'captured_at' | 'created_at'>;

/** A point of the index trend but its date, which the page words. */
export interface TrendEntry extends ScanDates {
  scanId: number;
  /** When the scan's image was taken, in milliseconds. */
  time: number;
  mean: number;
}

export interface MeanChange {
  /** The scan of the same index taken before the chosen one. */
  since: ScanDates;
  change: number;
}

export interface ZoneTableRow {
  id: number;
  class: number;
  color: string | null;
  name: string;
  areaHa: number;
  /** Of the field (or of the zones and the rest, when they reach past it). */
  share: number;
  mean: number | null;
}

export interface ZoneTable {
  rows: ZoneTableRow[];
  /** The ground no zone covers, a row of its own; null when that is only the edge of the pixels. */
  unzoned: { areaHa: number; share: number } | null;
}

export interface ChosenScan {
  id: number;
  index: string | null;
  source: string;
  file_name: string | null;
  captured_at: string | null;
  created_at: string;
  stats: IndexStats | null;
  histogram: { min: number; max: number; counts: number[] } | null;
  classification: Classification;
  cropUncertain: boolean;
  madeForEarlierBoundary: boolean;
  coverage: Coverage | null;
  trend: TrendEntry[];
  meanChange: MeanChange | null;
  zones: ZoneTable;
  /** What the form that makes the zones again starts from, and its task when one is under way. */
  rezone: { zones: number; method: ZoningMethod; minZoneAreaHa: number; maskWater: boolean; underWay: string | null };
  /**
   * How the zones were made, when the scan recorded it: the method, the zones asked for and made, the
   * smallest zone, why fewer were made than asked (ZoningRecord.zones_short), and the hectares left
   * out as water and as no data (null for zonings made before they were recorded).
   */
  zoning: { method: ZoningMethod; asked: number; made: number | null; minZoneAreaHa: number; short: ZoningRecord['zones_short'] | null; waterHa: number | null; noDataHa: number | null } | null;
}

export type FieldView = Omit<ReturnType<typeof fieldDetail>, 'attributes'>;
export type MergedParcel = Pick<MergedFrom, 'id' | 'name' | 'parcel_number' | 'area'>;

export interface FieldPageView {
  field: FieldView;
  can: Abilities;
  owners: { id: number; name: string }[];
  /** The field's scans, the latest taken first; those being zoned from a raster have none yet. */
  scans: ScanSummary[];
  zoning: Pick<TaskListItem, 'task_id' | 'file_name'>[];
  scan: ChosenScan | null;
  /** The chosen scan's zones and the legend of its index tiles (the fixed ramp of its index). */
  map: { legend: PreviewLegend | null; zones: ZoneCollection | null };
  exports: { scanId: number | null; droneIndex: string | null; defaultRates: string; zoneClasses: number[] };
  /** A parcel just taken back out of this field. */
  restored: { id: number; name: string } | null;
  mergedFrom: MergedParcel[];
  splitFrom: SplitFrom | null;
  /** The attributes the field's import carried. */
  attributes: [string, unknown][];
}

/** The page's id, or null for one that names no record (the page is then not found). */
export function fieldPageId(raw: string): number | null {
  const id = Number(raw);
  return Number.isInteger(id) && id > 0 ? id : null;
}

/** The completed scan the query names, else the latest taken. */
export function chosenScan<S extends { id: number; status: string }>(scans: S[], scanParam: string | undefined): S | undefined {
  const completed = scans.filter((s) => s.status === 'completed');
  return completed.find((s) => String(s.id) === scanParam) ?? completed[0];
}

/**
 * The chosen scan's index over the field's completed scans of that index whose dates are known (an
 * upload's date says nothing of the season), in the scans' order. The page draws it from two points on.
 */
export function indexTrend(scans: ScanSummary[], chosen: { index: string | null }): TrendEntry[] {
  return scans.flatMap((s) =>
    s.status === 'completed' && s.index === chosen.index && s.stats && s.captured_at ? [{ scanId: s.id, time: Date.parse(s.captured_at), mean: s.stats.mean, captured_at: s.captured_at, created_at: s.created_at }] : [],
  );
}

/** How the chosen scan's mean has changed since the completed scan of the same index taken before it. */
export function meanChange(scans: ScanSummary[], chosen: { id: number; index: string | null; stats: IndexStats | null; captured_at: string | null }): MeanChange | null {
  // Between scans whose dates are known only: an undated one is placed by its upload, and a 2016
  // image uploaded today read as this season's change.
  if (!chosen.captured_at) return null;
  const completed = scans.filter((s) => s.status === 'completed');
  const previous = completed.slice(completed.findIndex((s) => s.id === chosen.id) + 1).find((s) => s.index === chosen.index && s.stats && s.captured_at);
  return previous?.stats && chosen.stats ? { since: { captured_at: previous.captured_at, created_at: previous.created_at }, change: chosen.stats.mean - previous.stats.mean } : null;
}

/**
 * The zones table: each zone's share of the field, and the ground no zone covers (no index data:
 * water, clouds, outside the image) as a row of its own, as in the PDF report.
 */
export function zoneTable(zones: ZoneCollection['features'], fieldHa: number, locale: Locale): ZoneTable {
  const { unzonedHa, shareBasis } = zonedGround(fieldHa, zones.map((z) => z.properties.area_ha));
  const share = (ha: number) => ha / (shareBasis || 1);
  return {
    rows: zones.map((z) => ({ id: z.id, class: z.properties.class, color: z.properties.color, name: localizeZoneName(z.properties.name, locale), areaHa: z.properties.area_ha, share: share(z.properties.area_ha), mean: z.properties.mean })),
    unzoned: unzonedHa > 0 ? { areaHa: unzonedHa, share: share(unzonedHa) } : null,
  };
}

/**
 * A scan's zones as its exports take them once the field was redrawn or split since it was made:
 * within the present boundary, measured again, so that the page shows no zone lying in another field.
 */
async function zonesWithinPresentBoundary(scanId: number, boundary: FieldGeometry, zones: ZoneCollection): Promise<ZoneCollection> {
  const within = await scanZonesWithin(scanId, boundary, zones.features.map((z) => ({ ...z, geometry: z.geometry as FieldGeometry, areaHa: z.properties.area_ha })));
  return { ...zones, features: within.map(({ areaHa, ...z }) => ({ ...z, properties: { ...z.properties, area_ha: areaHa } })) };
}

/** The chosen scan, and its zones as the page shows them: within the present boundary when it was made for an earlier one. */
async function shownScan(db: TenantDb, scanId: number, boundary: FieldGeometry): Promise<{ scan: ScanDetail; zones: ZoneCollection }> {
  const scan = scanDetail(await getScan(db, scanId));
  return { scan, zones: scan.made_for_earlier_boundary ? await zonesWithinPresentBoundary(scan.id, boundary, scan.zones) : scan.zones };
}

/**
 * Everything the field's page shows of field `rawId` to `user`. Throws not_found for an id that names
 * no field of the company.
 */
export async function loadFieldPage(db: TenantDb, user: { companyId: number; role: string }, rawId: string, query: FieldPageQuery, locale: Locale): Promise<FieldPageView> {
  const id = fieldPageId(rawId);
  if (id === null) throw notFound();
  const [detail, scans, zoning, rezoning, owners, company] = await Promise.all([
    getField(db, id).then(fieldDetail),
    listScans(db, id, locale),
    // Zoning under way: its scan is made only at the end.
    listTasks(db, { field_id: id, kind: 'raster_zones', status: ['pending', 'running'], limit: 100 }, locale),
    // A scan's zones being made again: followed by the zones' form.
    listTasks(db, { field_id: id, kind: 'rezone', status: ['pending', 'running'], limit: 100 }, locale),
    listOwners(db),
    db.company.findUniqueOrThrow({ where: { id: user.companyId }, select: { settingsJson: true } }),
  ]);
  const restoredId = Number(query.restored);
  const restored = Number.isSafeInteger(restoredId) && restoredId > 0 ? await db.field.findUnique({ where: { id: restoredId }, select: { id: true, name: true } }) : null;
  const { attributes, ...field } = detail;
  const chosen = chosenScan(scans, query.scan);
  const shown = chosen ? await shownScan(db, chosen.id, field.geometry) : null;
  // The fields merged into this one, and the one it was cut from, are shown apart from the attributes
  // its import carried.
  const { merged_from: mergedFrom, split_from: splitFrom, ...imported } = attributes as { merged_from?: MergedFrom[]; split_from?: SplitFrom };
  return {
    field,
    can: abilities(user.role),
    owners: owners.map((o) => ({ id: o.id, name: o.name })),
    scans,
    zoning,
    scan: shown && chosenScanView(shown.scan, shown.zones, scans, field.area, rezoning, locale),
    map: { legend: shown?.scan.tiles?.legend ?? null, zones: shown?.zones ?? null },
    exports: {
      scanId: shown?.scan.id ?? null,
      droneIndex: shown?.scan.source === 'drone' ? (shown.scan.index ?? 'index').toUpperCase() : null,
      defaultRates: zoneRatesText(parseSettings(company.settingsJson) as { zone_rates?: Record<string, number> }),
      zoneClasses: shown?.zones.features.map((z) => z.properties.class) ?? [],
    },
    restored,
    mergedFrom: Array.isArray(mergedFrom) ? mergedFrom.map(({ id, name, parcel_number, area }) => ({ id, name, parcel_number, area })) : [],
    splitFrom: splitFrom ?? null,
    attributes: Object.entries(imported),
  };
}

function chosenScanView(scan: ScanDetail, zones: ZoneCollection, scans: ScanSummary[], fieldHa: number, rezoning: TaskListItem[], locale: Locale): ChosenScan {
  const madeForEarlierBoundary = scan.made_for_earlier_boundary;
  const { zonedHa } = zonedGround(fieldHa, zones.features.map((z) => z.properties.area_ha));
  // How the scan's zones were made (recorded since zonings recorded it), for the form that makes them again.
  const zoning = (scan.details as { zoning?: ZoningRecord }).zoning;
  return {
    id: scan.id,
    index: scan.index,
    source: scan.source,
    file_name: scan.file_name,
    captured_at: scan.captured_at,
    created_at: scan.created_at,
    stats: scan.stats,
    histogram: scan.histogram as { min: number; max: number; counts: number[] } | null,
    classification: scan.classification,
    cropUncertain: isUncertain(scan.classification.details),
    madeForEarlierBoundary,
    coverage: scanCoverage({ source: scan.source, details: scan.details, madeForEarlierBoundary }, zonedHa, fieldHa),
    trend: indexTrend(scans, scan),
    meanChange: meanChange(scans, scan),
    zones: zoneTable(zones.features, fieldHa, locale),
    rezone: {
      zones: zoning?.zones ?? (zones.features.length || 5),
      method: zoning?.method ?? 'jenks',
      minZoneAreaHa: zoning?.min_zone_area_ha ?? DEFAULT_ZONING.minZoneAreaHa,
      maskWater: zoning?.mask_water ?? scan.source !== 'drone',
      underWay: rezoning.find((task) => task.scan_id === scan.id)?.task_id ?? null,
    },
    zoning: zoning ? { method: zoning.method, asked: zoning.zones, made: zoning.zones_made ?? null, minZoneAreaHa: zoning.min_zone_area_ha, short: zoning.zones_short ?? null, waterHa: zoning.water_ha ?? null, noDataHa: zoning.no_data_ha ?? null } : null,
  };
}

/** The field's name for the page's title (several open fields told apart), or null when `rawId` names none. */
export async function fieldPageTitle(db: TenantDb, rawId: string): Promise<string | null> {
  const id = fieldPageId(rawId);
  return id === null ? null : ((await db.field.findUnique({ where: { id }, select: { name: true } }))?.name ?? null);
}
