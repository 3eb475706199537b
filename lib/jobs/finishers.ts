// What each kind of task writes when its job succeeded (and the result the task then reports), and
// what a failed one undoes. Both run in the transaction that ends the task (lib/tasks/lifecycle.ts),
// through a client confined to the task's company; lib/jobs/index.ts registers them with the runner.
import { rm } from 'node:fs/promises';
import { type ScanData, type ZoneData, replaceZones, saveScan } from '../scans/scans';
import { notFound } from '../errors';
import type { ZoningRecord } from '../raster/zones';
import type { TaskKindHandlers } from '../tasks/finishing';
import { resolveDataPath } from '../uploads/data-path';
import type { TaskKind } from '../tasks/types';

/** What the zoning job returns (lib/jobs/jobs.ts). */
export interface ZoningJobResult {
  scan: ScanData;
  zones: ZoneData[];
  areaProcessedHa: number;
}

/** What the drone job returns: a zoning result plus the crop classification and the mosaic. */
export interface DroneJobResult extends ZoningJobResult {
  crop: { crop_type: string; confidence: number; top_candidates: { crop: string; score: number }[] };
  /** Photos the mosaic left out, apart from the others (named as in the ZIP). */
  leftOutFiles: string[];
}

/** What remaking a scan's zones returns: the zones, and what they were made with and for. */
export interface RezoneJobResult {
  zones: ZoneData[];
  areaProcessedHa: number;
  /** How the zones were made, recorded in the scan's details. */
  zoning: ZoningRecord;
  /** Raster pixels per analysis cell side (recorded for an uploaded raster's scan, as at its first zoning). */
  cellFactor: number;
  /** Fingerprint of the boundary the zones were made for. */
  boundary: string;
}

const round = (n: number) => Math.round(n * 1e4) / 1e4;

export const TASK_HANDLERS: Record<TaskKind, TaskKindHandlers> = {
  raster_zones: {
    finish: async (tx, task, result) => {
      const r = result as ZoningJobResult;
      const scan = await saveScan(tx, task.companyId, task.fieldId!, r.scan, r.zones);
      return { zones_created: r.zones.length, area_processed: round(r.areaProcessedHa), scan_id: scan.id };
    },
    // A failed zoning makes no scan, so nothing else would ever remove the raster it was given (up to
    // 1 GB). Before the error is seen, so that no one finds the task failed and its raster still there.
    undo: async (_tx, task) => {
      const { rasterPath } = JSON.parse(task.payloadJson) as { rasterPath?: string };
      if (rasterPath) await rm(resolveDataPath(rasterPath), { force: true });
    },
  },
  drone: {
    finish: async (tx, task, result) => {
      const r = result as DroneJobResult;
      // What the upload recorded (the photos it left out, the captures) stays beside what the job found;
      // the photos the mosaic left apart join the upload's ignored files.
      const upload = await tx.scan.findFirst({ where: { id: task.scanId! }, select: { detailsJson: true } });
      const uploaded = JSON.parse(upload?.detailsJson || '{}') as { ignored_files?: string[] };
      const ignored = [...(uploaded.ignored_files ?? []), ...r.leftOutFiles];
      const details = { ...uploaded, ...r.scan.details, ...(ignored.length ? { ignored_files: ignored } : {}) };
      const scan = await saveScan(tx, task.companyId, task.fieldId!, { ...r.scan, details }, r.zones, task.scanId);
      // crop_type holds only what the user named; the automatic result is kept beside it.
      await tx.scan.update({ where: { id: scan.id }, data: { cropJson: JSON.stringify(r.crop) } });
      return {
        scan_id: scan.id,
        zones_created: r.zones.length,
        area_processed: round(r.areaProcessedHa),
        crop_type: scan.cropType ?? r.crop.crop_type,
        ...(ignored.length ? { ignored_files: ignored } : {}),
      };
    },
    // The scan announced at its upload fails with it (its photos stay with it and go with it).
    undo: async (tx, task) => {
      if (task.scanId) await tx.scan.updateMany({ where: { id: task.scanId }, data: { status: 'error' } });
    },
  },
  // A task remaking a scan's zones leaves the scan as it was when it fails.
  rezone: {
    finish: async (tx, task, result) => {
      const r = result as RezoneJobResult;
      // The scan may have been deleted while its zones were being made: a final error, nothing written.
      const scan = await tx.scan.findFirst({ where: { id: task.scanId! }, select: { id: true, fieldId: true, detailsJson: true } });
      if (!scan) throw notFound('scan_gone');
      const before = JSON.parse(scan.detailsJson) as Record<string, unknown>;
      const details = { ...before, boundary: r.boundary, zoning: r.zoning, ...('cell_factor' in before ? { cell_factor: r.cellFactor } : {}) };
      await tx.scan.update({ where: { id: scan.id }, data: { detailsJson: JSON.stringify(details) } });
      await replaceZones(tx, task.companyId, scan.fieldId, scan.id, r.zones);
      return { scan_id: scan.id, zones_created: r.zones.length, area_processed: round(r.areaProcessedHa) };
    },
  },
};
