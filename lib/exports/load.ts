// Loads what the export builders take, from the company's database.
import { z } from 'zod';
import type { TenantDb } from '../db/tenant';
import { boundaryFingerprint } from '../scans/boundary';
import { photoShare } from '../scans/coverage';
import { latestScanId, listScans, scanLegend } from '../scans/scans';
import { scanZonesWithin } from '../scans/zones-within';
import type { FieldGeometry } from '../geo/geometry';
import { notFound, unprocessable } from '../errors';
import { validate } from '../http/validate';
import type { Locale } from '../i18n/locales';
import { resolveDataPath } from '../uploads/data-path';
import { type ExportField, type ExportScan, type ExportScanEntry, type ExportZone, MAX_RATE_KG_HA, type Rates } from './types';

/**
 * 422 naming any query key an export does not take (`gird=1`): a typo is told, not run as if the
 * key were absent (the KMZ export's parameters are checked the same way, by their schema).
 */
export function assertExportQueryKeys(url: URL, keys: readonly string[]): void {
  validate(z.object(Object.fromEntries(keys.map((k) => [k, z.string()]))).partial().strict(), Object.fromEntries(url.searchParams));
}

export async function loadExportField(db: TenantDb, id: number): Promise<ExportField> {
  const f = await db.field.findUnique({ where: { id }, include: { owner: { select: { name: true } }, company: { select: { name: true } } } });
  if (!f) throw notFound();
  return {
    id: f.id,
    name: f.name,
    area: f.area,
    status: f.status,
    parcel_number: f.parcelNumber,
    owner: f.owner?.name ?? null,
    geometry: JSON.parse(f.geometry) as FieldGeometry,
    company: { name: f.company.name },
  };
}

/** The field an export is of: the one named, or the one of the scan named (404 when either is not the company's). */
export async function loadExportTarget(db: TenantDb, target: { fieldId?: number; scanId?: number }): Promise<ExportField> {
  if (!target.scanId) return loadExportField(db, target.fieldId!);
  const scan = await db.scan.findUnique({ where: { id: target.scanId }, select: { fieldId: true } });
  if (!scan) throw notFound();
  return loadExportField(db, scan.fieldId);
}

export async function loadExportFields(db: TenantDb): Promise<Pick<ExportField, 'id' | 'name' | 'geometry'>[]> {
  const rows = await db.field.findMany({ select: { id: true, name: true, geometry: true }, orderBy: { id: 'asc' } });
  return rows.map((r) => ({ id: r.id, name: r.name, geometry: JSON.parse(r.geometry) as FieldGeometry }));
}

/** The field's processed scans, the latest taken first, as the report lists them. */
export async function loadScanHistory(db: TenantDb, fieldId: number, locale: Locale): Promise<ExportScanEntry[]> {
  return (await listScans(db, fieldId, locale))
    .filter((s) => s.status === 'completed')
    .map((s) => ({ id: s.id, date: s.captured_at ?? s.created_at, dated: s.captured_at !== null, source: s.source, indexName: s.index, mean: s.stats?.mean ?? null, crop: s.crop_type }));
}

/**
 * A scan of the field (the completed one taken last when none is named) with its zones, within the
 * field's `boundary` as it is now: clipped to it when the scan was made for another (redrawn or split
 * since, or not known). Clipping 30,000 vertices of zones takes a second, so it is done only then
 * (in a worker thread, and once per process; lib/scans/zones-within.ts).
 */
export async function loadScanWithZones(
  db: TenantDb,
  opts: { fieldId: number; scanId?: number; boundary: FieldGeometry },
): Promise<{ scan: ExportScan | null; zones: ExportZone[] }> {
  const id = opts.scanId ?? (await latestScanId(db, opts.fieldId));
  const scan = id === null ? null : await db.scan.findUnique({ where: { id } });
  if (opts.scanId && !scan) throw notFound();
  if (!scan) return { scan: null, zones: [] };
  const zones = await db.zone.findMany({ where: { scanId: scan.id }, orderBy: { classIndex: 'asc' } });
  const { readFile } = await import('node:fs/promises');
  const previewPng = scan.dataPath ? await readFile(resolveDataPath(scan.dataPath)).catch(() => undefined) : undefined;
  const stats = scan.statsJson ? JSON.parse(scan.statsJson) : null;
  const details = JSON.parse(scan.detailsJson) as { boundary?: unknown; preview_ramp?: { min: number; max: number } };
  const madeForPresent = details.boundary === boundaryFingerprint(opts.boundary);
  const stored = zones.map((z) => ({
    id: z.id,
    classIndex: z.classIndex,
    name: z.name,
    areaHa: z.areaHa,
    mean: z.meanValue,
    min: z.minValue,
    max: z.maxValue,
    color: z.color ?? '#888888',
    geometry: JSON.parse(z.geometry) as FieldGeometry,
  }));
  return {
    scan: {
      id: scan.id,
      source: scan.source === 'drone' ? 'drone' : 'raster',
      indexName: scan.indexName ?? 'index',
      capturedAt: scan.capturedAt?.toISOString() ?? null,
      stats: { min: stats?.min ?? 0, max: stats?.max ?? 0, mean: stats?.mean ?? 0, std: stats?.std ?? 0, median: stats?.median ?? 0 },
      histogram: scan.histogramJson ? JSON.parse(scan.histogramJson) : { min: 0, max: 0, counts: [] },
      previewPng,
      previewBounds: scan.boundsJson ? JSON.parse(scan.boundsJson) : undefined,
      legend: scanLegend({ source: scan.source, index: scan.indexName, stats, details }),
      crop: scan.cropJson ? JSON.parse(scan.cropJson) : undefined,
      userCrop: scan.cropType,
      photoCoverage: scan.source === 'drone' ? photoShare(details, !madeForPresent) : undefined,
    },
    zones: madeForPresent ? stored : await scanZonesWithin(scan.id, opts.boundary, stored),
  };
}

/** The company's rates per zone class (`zone_rates` in its settings) as parseRates takes them in the query: `1:120,2:140`. */
export const zoneRatesText = (settings: { zone_rates?: Record<string, number> }): string =>
  Object.entries(settings.zone_rates ?? {})
    .map(([k, v]) => `${k}:${v}`)
    .join(',');

/**
 * Rates per zone class: `rates=1:120,2:140` in the query over the company's settings (`zone_rates`
 * {class: kg/ha}). A malformed list, a class named twice or a rate past MAX_RATE_KG_HA is refused
 * (422); classes without a rate are left out (the PDF report shows none for them).
 */
export function parseRates(query: string | null, settings: Record<string, unknown>): Rates {
  const rates: Rates = {};
  const fromSettings = settings.zone_rates as Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(fromSettings ?? {})) if (Number.isFinite(Number(v))) rates[Number(k)] = Number(v);
  const given = new Set<number>();
  for (const pair of (query ?? '').split(',').filter(Boolean)) {
    const m = /^\s*(\d+)\s*:\s*(\d+(?:\.\d+)?)\s*$/.exec(pair);
    if (!m) throw unprocessable('export_rates_format');
    // Two rates for one class is a typo, not a choice to make for the spreader.
    if (given.has(Number(m[1]))) throw unprocessable('export_rates_repeated', { class: Number(m[1]) });
    given.add(Number(m[1]));
    // As the company's settings take them: the schema's rate (mg/m², 32 bits) ends near 21,000 t/ha.
    if (Number(m[2]) > MAX_RATE_KG_HA) throw unprocessable('export_rate_too_high', { class: Number(m[1]), max: MAX_RATE_KG_HA });
    rates[Number(m[1])] = Number(m[2]);
  }
  return rates;
}

/**
 * `unzoned_rate`: kg/ha for the field's ground no zone covers (water, no index data), for when the
 * zones' area-weighted mean, the default, is wrong there (ponds take no fertiliser). Null when not
 * given; past MAX_RATE_KG_HA, negative or not a number, 422.
 */
export function parseUnzonedRate(query: string | null): number | null {
  if (query === null || query.trim() === '') return null;
  const rate = /^\s*\d+(?:\.\d+)?\s*$/.test(query) ? Number(query) : NaN;
  if (!(rate <= MAX_RATE_KG_HA)) throw unprocessable('export_unzoned_rate', { max: MAX_RATE_KG_HA });
  return rate;
}

/**
 * Rates per zone class as parseRates reads them, for a prescription: every zone needs one (a guessed
 * rate must never reach a spreader).
 */
export function resolveRates(query: string | null, settings: Record<string, unknown>, zones: ExportZone[]): Rates {
  const rates = parseRates(query, settings);
  const missing = zones.filter((z) => rates[z.classIndex] === undefined).map((z) => z.classIndex);
  if (missing.length) throw unprocessable('export_rates_missing', { classes: missing.join(', ') });
  return rates;
}
