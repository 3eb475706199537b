// Scans of a field (one processed index raster or drone survey) and their management zones.
import { open, readFile, rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { dirname } from 'node:path';
import type { DbTx } from '../db/client';
import { scopedRow, scopeTransaction, type TenantDb } from '../db/tenant';
import { classifyCrop, isUncertain, type RowPattern } from '../drone/classify';
import { type DroneGeotiff, indexRasterPath, orthomosaicPath } from '../drone/files';
import { conflict, notFound } from '../errors';
import type { Locale } from '../i18n/locales';
import { indexRamp, previewLegend, type PreviewLegend, type PreviewStretch, previewStretch } from '../raster/ramp';
import { taskErrorText } from '../tasks/view';
import { resolveDataPath, storeDataPath } from '../uploads/data-path';
import type { FieldGeometry } from '../geo/geometry';
import type { IndexStats, Zone } from '../raster/zones';
import { boundaryFingerprint } from './boundary';
import { dronePhotosDir } from '../fields/files';
import { parseCaptureDate } from './schemas';

/** A zone as a scan stores it: the zoning's zone (lib/raster/zones.ts) without its quartiles, its geometry as JSON. */
export type ZoneData = Omit<Zone, 'q1' | 'q3' | 'geometry'> & { geometry: object };

export type { IndexStats };

export interface ScanData {
  source: 'raster' | 'drone';
  fileName: string | null;
  indexName: string;
  capturedAt: string | null;
  stats: IndexStats;
  histogram: { min: number; max: number; counts: number[] };
  /** The coloured index image and where it lies ([[south, west], [north, east]]). */
  previewPath: string;
  previewBounds: [[number, number], [number, number]];
  details?: Record<string, unknown>;
}

const round = (n: number, d = 4) => Math.round(n * 10 ** d) / 10 ** d;

/**
 * Writes the scan and its zones. Call it inside the transaction that also ends the task (lib/tasks/
 * lifecycle.ts), so that a failed or interrupted task leaves nothing half-made. With `scanId` an
 * existing scan row (announced at upload) is completed instead of a new one created.
 */
export async function saveScan(tx: DbTx, companyId: number, fieldId: number, scan: ScanData, zones: ZoneData[], scanId?: number | null) {
  const data = {
    source: scan.source,
    status: 'completed',
    fileName: scan.fileName,
    indexName: scan.indexName,
    // The file's own date (TIFF DateTime, EXIF) as written, or none when it is no date at all.
    capturedAt: scan.capturedAt ? parseCaptureDate(scan.capturedAt) : null,
    statsJson: JSON.stringify(scan.stats),
    histogramJson: JSON.stringify(scan.histogram),
    boundsJson: JSON.stringify(scan.previewBounds),
    dataPath: storeDataPath(scan.previewPath),
    detailsJson: JSON.stringify(scan.details ?? {}),
  };
  const scoped = scopeTransaction(tx, companyId);
  const saved = scanId ? await scoped.scan.update({ where: { id: scanId }, data }) : await scoped.scan.create({ data: scopedRow({ ...data, fieldId }) });
  await replaceZones(scoped, companyId, fieldId, saved.id, zones);
  return saved;
}

/** The scan's zones, all new rows (so anything remembered of the old ones, by their ids, is stale). */
export async function replaceZones(tx: DbTx, companyId: number, fieldId: number, scanId: number, zones: ZoneData[]) {
  const scoped = scopeTransaction(tx, companyId);
  await scoped.zone.deleteMany({ where: { scanId } });
  await scoped.zone.createMany({
    data: zones.map((z) =>
      scopedRow({
        fieldId,
        scanId,
        classIndex: z.classIndex,
        name: z.name,
        minValue: z.min,
        maxValue: z.max,
        meanValue: z.mean,
        areaHa: z.areaHa,
        color: z.color,
        geometry: JSON.stringify(z.geometry),
      }),
    ),
  });
}

type ScanRow = Awaited<ReturnType<TenantDb['scan']['findUniqueOrThrow']>>;
type ZoneRow = Awaited<ReturnType<TenantDb['zone']['findMany']>>[number];

const parse = <T>(json: string | null, fallback: T): T => (json ? (JSON.parse(json) as T) : fallback);

export function scanSummary(s: ScanRow) {
  return {
    id: s.id,
    field_id: s.fieldId,
    source: s.source,
    status: s.status,
    file_name: s.fileName,
    index: s.indexName,
    captured_at: s.capturedAt?.toISOString() ?? null,
    created_at: s.createdAt.toISOString(),
    stats: parse<IndexStats | null>(s.statsJson, null),
    crop_type: scanCrop(s),
  };
}

export const zoneFeature = (z: ZoneRow) => ({
  type: 'Feature' as const,
  id: z.id,
  properties: {
    class: z.classIndex,
    name: z.name,
    min: z.minValue,
    max: z.maxValue,
    mean: z.meanValue,
    area_ha: round(z.areaHa),
    color: z.color,
  },
  geometry: JSON.parse(z.geometry) as object,
});

type Dated = { id: number; capturedAt: Date | null; createdAt: Date };
/**
 * The order of a field's scans: the latest taken first, by when the image was taken or, when no one
 * knows, when it was uploaded. A field has a few dozen scans at most, sorted here.
 */
const latestTakenFirst = (a: Dated, b: Dated) => (b.capturedAt ?? b.createdAt).getTime() - (a.capturedAt ?? a.createdAt).getTime() || b.id - a.id;

/**
 * A field's scans. One still being processed names its task, whose progress can be followed; one
 * that failed names its task too, and says why (`error`, in `locale`).
 */
export async function listScans(db: TenantDb, fieldId: number, locale: Locale): Promise<(ReturnType<typeof scanSummary> & { task_id?: string; error?: string | null })[]> {
  if (!(await db.field.findUnique({ where: { id: fieldId }, select: { id: true } }))) throw notFound();
  const scans = await db.scan.findMany({ where: { fieldId } });
  const unfinished = scans.filter((s) => s.status === 'processing' || s.status === 'error').map((s) => s.id);
  const tasks = unfinished.length ? await db.task.findMany({ where: { scanId: { in: unfinished } }, select: { id: true, scanId: true, error: true } }) : [];
  const taskOf = new Map(tasks.map((t) => [t.scanId, t]));
  return scans.sort(latestTakenFirst).map((s) => {
    const task = taskOf.get(s.id);
    if (!task) return scanSummary(s);
    return { ...scanSummary(s), task_id: task.id, ...(s.status === 'error' ? { error: taskErrorText(task.error, locale) } : {}) };
  });
}

/** What the fields table shows of a field's completed scan taken last. */
export interface LatestScan {
  scanId: number;
  /** 'drone' (a mosaic and its index) or an uploaded raster's source. */
  source: string;
  /** When its image was taken, or, when no one knows, when it was uploaded (`dated` false). */
  date: string;
  dated: boolean;
  index: string | null;
  mean: number | null;
  /** The crop on the field then: the one a user named, else the classifier's. */
  crop: string | null;
  /** That crop is the classifier's guess, too close to call. */
  cropUnsure: boolean;
}

/** Of scans of many fields, each field's taken last, by field id. */
export function latestPerField<S extends Dated & { fieldId: number }>(scans: S[]): Map<number, S> {
  const latest = new Map<number, S>();
  for (const s of scans) {
    const seen = latest.get(s.fieldId);
    if (!seen || latestTakenFirst(s, seen) < 0) latest.set(s.fieldId, s);
  }
  return latest;
}

/** Each field's completed scan taken last, by field id: one query for the whole company. */
export async function latestScansByField(db: TenantDb): Promise<Map<number, LatestScan>> {
  const scans = await db.scan.findMany({
    where: { status: 'completed' },
    select: { id: true, fieldId: true, source: true, capturedAt: true, createdAt: true, indexName: true, statsJson: true, cropType: true, cropJson: true },
  });
  return new Map(
    [...latestPerField(scans)].map(([fieldId, s]) => [
      fieldId,
      {
        scanId: s.id,
        source: s.source,
        date: (s.capturedAt ?? s.createdAt).toISOString(),
        dated: s.capturedAt !== null,
        index: s.indexName,
        mean: parse<IndexStats | null>(s.statsJson, null)?.mean ?? null,
        crop: scanCrop(s),
        cropUnsure: scanCropUnsure(s),
      },
    ]),
  );
}

/** The field's completed scan taken last (the one its page shows first), or null. */
export async function latestScanId(db: TenantDb, fieldId: number): Promise<number | null> {
  const scans = await db.scan.findMany({ where: { fieldId, status: 'completed' }, select: { id: true, capturedAt: true, createdAt: true } });
  return scans.sort(latestTakenFirst)[0]?.id ?? null;
}

export async function getScan(db: TenantDb, id: number) {
  const scan = await db.scan.findUnique({ where: { id }, include: { field: { select: { geometry: true } } } });
  if (!scan) throw notFound();
  const zones = await db.zone.findMany({ where: { scanId: id }, orderBy: { classIndex: 'asc' } });
  return { scan, zones };
}

/**
 * What the colours of a scan's preview mean, or null when they mean no index: a drone survey's
 * preview is its orthomosaic, in true colour. An uploaded raster's index is painted over the range
 * its details record (`preview_ramp`: the index's fixed range, lib/raster/ramp.ts indexRamp); a scan
 * made before ranges were fixed, from the lowest value in the field (red) to the highest (green),
 * the very min and max its statistics keep (remaking the zones changes neither the preview nor them).
 */
export function scanLegend(scan: { source: string; index: string | null; stats: IndexStats | null; details?: { preview_ramp?: PreviewStretch } }): PreviewLegend | null {
  const { min, max } = scan.stats ?? {};
  if (scan.source === 'drone' || min === undefined || max === undefined) return null;
  return previewLegend(scan.index ?? 'index', scan.details?.preview_ramp ?? previewStretch(min, max));
}

export function scanDetail({ scan, zones }: Awaited<ReturnType<typeof getScan>>) {
  const details = parse<{ boundary?: unknown; preview_ramp?: PreviewStretch }>(scan.detailsJson, {});
  const summary = scanSummary(scan);
  return {
    ...summary,
    histogram: parse(scan.histogramJson, null),
    preview: scan.dataPath
      ? { url: `/api/scans/${scan.id}/preview.png`, bounds: parse(scan.boundsJson, null), legend: scanLegend({ source: scan.source, index: summary.index, stats: summary.stats, details }) }
      : null,
    details,
    // The field redrawn or split since the scan was made: its zones are of the earlier boundary (the
    // field page and the exports clip them to the present one). A scan made before this was recorded says nothing.
    made_for_earlier_boundary: typeof details.boundary === 'string' && details.boundary !== boundaryFingerprint(JSON.parse(scan.field.geometry) as FieldGeometry),
    classification: classificationOf(scan),
    zones: { type: 'FeatureCollection' as const, features: zones.map(zoneFeature) },
    tiles: scanTiles(scan, summary),
  };
}

/**
 * The scan's map tile layers (docs/tiles.md), as URL templates, and the legend of its index layer:
 * the index's fixed range (lib/raster/ramp.ts indexRamp). Null while the scan has none.
 */
export function scanTiles(scan: { id: number; source: string; status: string; dataPath: string | null }, summary: { index: string | null; stats: IndexStats | null }) {
  if (scan.status !== 'completed' || !scan.dataPath) return null;
  const template = (layer: string) => `/api/scans/${scan.id}/tiles/${layer}/{z}/{x}/{y}.png`;
  return {
    index: template('index'),
    ortho: scan.source === 'drone' ? template('ortho') : null,
    legend: previewLegend(summary.index ?? 'index', indexRamp(summary.index, summary.stats)),
  };
}

export async function scanPreview(db: TenantDb, id: number): Promise<{ png: Buffer; bounds: string | null }> {
  const scan = await db.scan.findUnique({ where: { id }, select: { dataPath: true, boundsJson: true } });
  if (!scan?.dataPath) throw notFound();
  try {
    return { png: await readFile(resolveDataPath(scan.dataPath)), bounds: scan.boundsJson };
  } catch {
    throw notFound();
  }
}

/**
 * One of a drone scan's GeoTIFFs (the orthomosaic or its vegetation index), streamed from disk, its
 * size, and the file name it is downloaded under: the field's name, the capture date and what it is.
 */
export async function openDroneGeotiff(db: TenantDb, id: number, kind: DroneGeotiff) {
  const scan = await db.scan.findUnique({
    where: { id },
    select: { source: true, status: true, dataPath: true, indexName: true, capturedAt: true, field: { select: { name: true } } },
  });
  if (!scan) throw notFound();
  if (scan.source !== 'drone' || scan.status !== 'completed' || !scan.dataPath) throw notFound('scan_no_geotiff');
  const indexName = scan.indexName ?? 'index';
  const dir = dirname(resolveDataPath(scan.dataPath));
  const file = await open(kind === 'orthomosaic' ? orthomosaicPath(dir) : indexRasterPath(dir, indexName)).catch(() => {
    throw notFound('scan_no_geotiff');
  });
  const what = kind === 'orthomosaic' ? 'orthomosaic' : indexName.toLowerCase();
  const day = scan.capturedAt?.toISOString().slice(0, 10);
  return {
    stream: Readable.toWeb(file.createReadStream()) as ReadableStream<Uint8Array>,
    size: (await file.stat()).size,
    fileName: [scan.field.name || 'field', day, what].filter(Boolean).join('_') + '.tif',
  };
}

/** 409 while the scan is being processed: its task would finish into a scan that is gone. */
export async function deleteScan(db: TenantDb, id: number) {
  const found = await db.scan.findUnique({ where: { id }, select: { status: true } });
  if (!found) throw notFound();
  if (found.status === 'processing') throw conflict('scan_processing');
  // Its zones being made again end now, as failed: what they would be made for is going. A runner
  // still at work on one finds the task no longer its own and writes nothing (lib/tasks/lifecycle.ts).
  await db.task.updateMany({
    where: { scanId: id, kind: 'rezone', status: { in: ['pending', 'running'] } },
    data: { status: 'error', error: JSON.stringify({ key: 'scan_gone', params: {} }), finishedAt: new Date(), lockedBy: null },
  });
  const tasks = await db.task.findMany({ where: { scanId: id }, select: { id: true, payloadJson: true } });
  const scan = await db.$transaction(async (tx) => {
    const deleted = await tx.scan.delete({ where: { id } });
    // The tasks stay as the company's record of its uploads, no longer naming a scan that is gone.
    await tx.task.updateMany({ where: { scanId: id }, data: { scanId: null } });
    return deleted;
  });
  // Its preview, mosaic and index (the task's folder), a survey's photos, and an uploaded raster.
  if (scan.dataPath) await rm(dirname(resolveDataPath(scan.dataPath)), { recursive: true, force: true });
  for (const task of tasks) {
    await rm(dronePhotosDir(scan.companyId, scan.fieldId, task.id), { recursive: true, force: true });
    const { rasterPath } = JSON.parse(task.payloadJson) as { rasterPath?: string };
    if (rasterPath) await rm(resolveDataPath(rasterPath), { force: true });
  }
}

/**
 * Spec 2.6: the scan's crop and confidence, the automatic classifier's candidates, and the index
 * statistics (plus which index). A crop a user named (at upload or later) is the scan's crop, with
 * confidence 1: a person who knows the field said so. The classifier's guess stays in `details`.
 */
export async function scanClassification(db: TenantDb, id: number) {
  const scan = await db.scan.findUnique({ where: { id }, select: CLASSIFIED });
  if (!scan) throw notFound();
  return classificationOf(scan);
}

/**
 * What a user says of a scan: the crop, which it reports from then on over the classifier's guess
 * (kept beside it; null goes back to the guess), and when its image was taken. The date waits for
 * processing to end, which writes the date the photos carry.
 */
export async function updateScan(db: TenantDb, id: number, change: { crop_type?: string | null; captured_at?: Date }) {
  const found = await db.scan.findUnique({ where: { id }, select: { status: true, cropJson: true, statsJson: true, histogramJson: true, indexName: true, detailsJson: true } });
  if (!found) throw notFound();
  if (change.captured_at && found.status === 'processing') throw conflict('scan_processing_date');
  const cropJson = change.captured_at ? reclassified(found, change.captured_at) : undefined;
  await db.scan.update({ where: { id }, data: { cropType: change.crop_type, capturedAt: change.captured_at, ...(cropJson ? { cropJson } : {}) } });
  return getScan(db, id);
}

/**
 * The classifier's guess made again for a corrected capture date: the season is one of its inputs (a
 * drone's clock may be wrong). Null for a scan without a guess, or made before the row pattern was
 * kept with it (classified again without it, the guess would change for that reason alone).
 */
function reclassified(scan: { cropJson: string | null; statsJson: string | null; histogramJson: string | null; indexName: string | null; detailsJson: string }, capturedAt: Date): string | null {
  const details = parse<{ row_pattern?: RowPattern | null }>(scan.detailsJson, {});
  const stats = parse<IndexStats | null>(scan.statsJson, null);
  const histogram = parse<{ counts: number[] } | null>(scan.histogramJson, null);
  const indexName = scan.indexName?.toUpperCase();
  if (!scan.cropJson || !stats || !histogram || !('row_pattern' in details) || (indexName !== 'NDVI' && indexName !== 'VARI')) return null;
  const guess = classifyCrop({ histogram: histogram.counts, stats, indexName, captureMonth: capturedAt.getUTCMonth() + 1, rowPattern: details.row_pattern ?? null });
  return JSON.stringify(guess);
}

/** The columns a classification is made of. */
const CLASSIFIED = { id: true, status: true, cropType: true, cropJson: true, statsJson: true, indexName: true } as const;

/** The crop a scan reports: the one a user named, else the classifier's, else none. */
export const scanCrop = (scan: { cropType: string | null; cropJson: string | null }): string | null => scan.cropType ?? parse<{ crop_type: string } | null>(scan.cropJson, null)?.crop_type ?? null;

/**
 * Whether the crop a scan reports is the classifier's guess too close to call (`isUncertain`), which
 * the map and the field page must not show as a fact; a crop a user named is sure.
 */
export const scanCropUnsure = (scan: { cropType: string | null; cropJson: string | null }): boolean => {
  if (scan.cropType !== null) return false;
  const auto = parse<{ top_candidates: { score: number }[] } | null>(scan.cropJson, null);
  return auto !== null && isUncertain(auto);
};

function classificationOf(scan: { id: number; status: string; cropType: string | null; cropJson: string | null; statsJson: string | null; indexName: string | null }) {
  const auto = parse<{ crop_type: string; confidence: number; top_candidates: { crop: string; score: number }[] } | null>(scan.cropJson, null);
  const stats = parse<IndexStats | null>(scan.statsJson, null);
  return {
    scan_id: scan.id,
    status: scan.status,
    crop_type: scanCrop(scan),
    confidence: scan.cropType ? 1 : (auto?.confidence ?? null),
    details: { top_candidates: auto?.top_candidates ?? [], automatic: auto?.crop_type ?? null, user_value: scan.cropType },
    ndvi_stats: stats ? { mean: stats.mean, std: stats.std, median: stats.median } : null,
    index: scan.indexName,
  };
}
