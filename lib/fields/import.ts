// Importing a ZIP of shapefiles as fields. The archive is extracted, then every polygon layer is read
// and reprojected into staging files (lib/fields/import-rows.ts; for large archives in a worker thread
// per core, each with its share of the features, so the event loop stays free); then, in one
// transaction on the database driver (lib/db/driver-transaction.ts), the owners the file names are
// found or created and the rows are inserted in batches, in the archive's order, leaving out parcels
// the company already has (intersection over union above 0.9).
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { extname, join } from 'node:path';
import { z } from 'zod';
import { config } from '../config';
import { type DriverTransaction, insertRows, withDriverTransaction } from '../db/driver-transaction';
import { dbTarget } from '../db/target';
import type { BBox, FieldGeometry } from '../geo/geometry';
import { type BoxedBoundary, boxedBoundaryIndex } from '../geo/overlap';
import { AppError, unprocessable } from '../errors';
import { ensureOwners } from '../owners/owners';
import { JobError, runInThread } from '../tasks/run-in-thread';
import { type ColumnMapping, type SkippedFeature, isShapefilePart } from '../uploads/shapefile-layers';
import { turnTaker } from '../uploads/event-loop-turns';
import { extractZipSafely } from '../uploads/zip-archive';
import { type StageRowsPayload, type StagedRows, joinStagedRows, stageShapefileRows, stagedRows } from './import-rows';

const column = z.string().trim().min(1).max(64).optional();
const mappingSchema = z.object({ name: column, owner: column, status: column, parcel_number: column }).strict();

/** The optional `mapping` part: JSON naming the columns for name, owner, status and parcel number. */
export function parseColumnMapping(text: string | undefined): ColumnMapping {
  if (!text?.trim()) return {};
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw unprocessable('shp_bad_mapping');
  }
  const parsed = mappingSchema.safeParse(json);
  if (!parsed.success) throw unprocessable('shp_bad_mapping');
  return parsed.data;
}

export interface ShapefileImportResult {
  fields_created: number;
  skipped: SkippedFeature[];
  duplicates_skipped: number;
  crs: string;
  encoding: string;
}

/**
 * The company's boundaries that meet `box`, read inside the import's own transaction: two imports of
 * one file at once (a double click, a retry) each checked against the fields before the other's, and
 * both created them.
 */
async function existingBoundaries(tx: DriverTransaction, companyId: number, box: BBox | null): Promise<BoxedBoundary[]> {
  if (!box) return [];
  // The box test of `fieldsMeetingBox`, written for the driver: the tenant extension is not here.
  const rows = await tx.query(
    'SELECT "geometry", "min_lon", "min_lat", "max_lon", "max_lat" FROM "field" WHERE "company_id" = ? AND "max_lon" >= ? AND "min_lon" <= ? AND "max_lat" >= ? AND "min_lat" <= ?',
    [companyId, box.minLon, box.maxLon, box.minLat, box.maxLat],
  );
  // Each geometry is parsed only when a new row's box meets its own (boxedBoundaryIndex).
  return rows.map((r) => ({
    box: { minLon: Number(r.min_lon), minLat: Number(r.min_lat), maxLon: Number(r.max_lon), maxLat: Number(r.max_lat) },
    geometry: () => JSON.parse(String(r.geometry)) as FieldGeometry,
  }));
}

/** Archives up to this size are read in the request's own thread: a worker's start (about a second) costs more. */
const READ_IN_THREAD_ABOVE_BYTES = 2 * 1024 * 1024;
/**
 * ...and only when their .shp files hold at most this much: one record can then have at most 65,000
 * vertices, whose checks hold the event loop for a few tenths of a second at most (a record of 100,000
 * took 0.9 s). Between records the reading hands the loop over (turnTaker).
 */
const READ_IN_THREAD_ABOVE_SHP_BYTES = 1024 * 1024;
/** Reading threads for a large archive: one per core, and two at most, which keeps the peak memory in bounds. */
const READ_THREADS = Math.min(2, availableParallelism());

async function stageShare(payload: StageRowsPayload): Promise<StagedRows> {
  try {
    return (await runInThread('shapefile_rows', payload, payload.workDir, () => undefined)) as StagedRows;
  } catch (err) {
    // The reader's refusals (bad archive, missing part...) come back as message keys.
    if (err instanceof JobError && err.info.final) throw new AppError('unprocessable', err.info.key, err.info.params);
    throw err;
  }
}

async function stageRows(zipPath: string, workDir: string, mapping: ColumnMapping | undefined): Promise<StagedRows> {
  const filesDir = join(workDir, 'files');
  try {
    const files = await extractZipSafely(zipPath, filesDir, {}, isShapefilePart);
    const payload = (part: number, parts: number): StageRowsPayload => ({ files, filesDir, workDir, mapping, share: { part, parts } });
    const shpBytes = (await Promise.all(files.filter((f) => extname(f).toLowerCase() === '.shp').map(async (f) => (await stat(f)).size))).reduce((a, b) => a + b, 0);
    if ((await stat(zipPath)).size <= READ_IN_THREAD_ABOVE_BYTES && shpBytes <= READ_IN_THREAD_ABOVE_SHP_BYTES) return await stageShapefileRows(payload(0, 1));
    // Every share is waited for, so that no thread still writes when the work folder is removed.
    const shares = await Promise.allSettled(Array.from({ length: READ_THREADS }, (_, part) => stageShare(payload(part, READ_THREADS))));
    const failed = shares.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    return joinStagedRows(shares.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : [])));
  } finally {
    await rm(filesDir, { recursive: true, force: true });
  }
}

/** The first key of PostgreSQL's advisory lock a company's imports take (the second is the company). */
const IMPORT_LOCK = 0x46_4d_49; // "FMI"

const FIELD_COLUMNS = ['company_id', 'owner_id', 'name', 'area', 'status', 'parcel_number', 'geometry', 'attributes_json', 'min_lon', 'min_lat', 'max_lon', 'max_lat', 'created_at', 'updated_at'] as const;
const ROWS_PER_BATCH = 250;

export async function importShapefile(
  companyId: number,
  zipPath: string,
  opts: { workRoot: string; mapping?: ColumnMapping },
): Promise<ShapefileImportResult> {
  const workDir = await mkdtemp(join(opts.workRoot, 'shp-'));
  try {
    const staged = await stageRows(zipPath, workDir, opts.mapping);
    let created = 0;
    await withDriverTransaction(dbTarget(config()), async (tx) => {
      // One import of a company at a time: SQLite's transactions are already one at a time (BEGIN
      // IMMEDIATE); PostgreSQL's would each see the fields as they were before the other's.
      if (tx.kind === 'postgresql') await tx.query('SELECT pg_advisory_xact_lock(?, ?)', [IMPORT_LOCK, companyId]);
      // A parcel the company already has is not created again. Overlaps within one file are the
      // source's business (registers hold overlapping declarations) and are all imported.
      const index = boxedBoundaryIndex(await existingBoundaries(tx, companyId, staged.bbox));
      const owners = await ensureOwners(tx, companyId, staged.owners);
      const now = new Date();
      const turn = turnTaker();
      let batch: unknown[][] = [];
      const flush = async () => {
        await insertRows(tx, 'field', FIELD_COLUMNS, batch);
        created += batch.length;
        batch = [];
      };
      for await (const { meta: r, geometry, attributes } of stagedRows(staged.rowsFiles)) {
        // The duplicate checks run on this thread: other requests are answered between them.
        await turn();
        if (index.hasDuplicate(r, () => JSON.parse(geometry) as FieldGeometry)) continue;
        batch.push([companyId, r.owner ? (owners.get(r.owner) ?? null) : null, r.name, r.area, r.status, r.parcelNumber, geometry, attributes, r.minLon, r.minLat, r.maxLon, r.maxLat, now, now]);
        if (batch.length >= ROWS_PER_BATCH) await flush();
      }
      if (batch.length) await flush();
    });
    return { fields_created: created, skipped: staged.skipped, duplicates_skipped: staged.count - created, crs: staged.crs, encoding: staged.encoding };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}
