// The zoning jobs: an uploaded index raster made into a scan's zones, and a scan's zones made
// again from the raster it keeps. Loaded by lib/jobs/jobs.ts only for these kinds, so that threads
// of other kinds do not load the raster code.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { MultiPolygon, Polygon } from 'geojson';
import { boundaryFingerprint } from '../scans/boundary';
import { computeZones, zoningRecord, type ZoningOptions } from '../raster/zones';
import { resolveDataPath } from '../uploads/data-path';
import type { RezoneJobResult, ZoningJobResult } from './finishers';
import type { JobContext } from '../tasks/types';

export interface ZoningJobPayload {
  /** The uploaded raster, as recorded (lib/uploads/data-path.ts). */
  rasterPath: string;
  fileName: string;
  capturedAt: string | null;
  fieldGeometry: Polygon | MultiPolygon;
  options: Partial<ZoningOptions>;
}

export async function zoneRasterJob(payload: ZoningJobPayload, ctx: JobContext): Promise<ZoningJobResult> {
  const r = await computeZones(resolveDataPath(payload.rasterPath), payload.fieldGeometry, payload.options, (percent, step) => ctx.progress(percent * 0.95, step));
  ctx.progress(96, 'saving');
  await mkdir(ctx.workDir, { recursive: true });
  const previewPath = join(ctx.workDir, 'preview.png');
  await writeFile(previewPath, r.preview.png);
  return {
    scan: {
      source: 'raster',
      fileName: payload.fileName,
      indexName: r.indexName,
      capturedAt: payload.capturedAt,
      stats: r.stats,
      histogram: r.histogram,
      previewPath,
      previewBounds: r.preview.boundsWgs84,
      // How the index was read (bands and whether their order was given, read from the file or
      // assumed; a single band's encoding) and how many zones were asked for and made.
      // The range its preview is painted over (scanLegend reads it).
      details: { cell_factor: r.cellFactor, boundary: boundaryFingerprint(payload.fieldGeometry), zoning: zoningRecord(payload.options, r), ...r.input, preview_ramp: { min: r.preview.ramp.min, max: r.preview.ramp.max } },
    },
    zones: r.zones,
    areaProcessedHa: r.validAreaHa,
  };
}

export interface RezoneJobPayload {
  /** The scan's kept index raster (the uploaded GeoTIFF, or a drone scan's index GeoTIFF), as recorded. */
  rasterPath: string;
  /** The field's boundary when the zones were asked for. */
  fieldGeometry: Polygon | MultiPolygon;
  options: Partial<ZoningOptions>;
}

/** Zones only: the scan's index image and statistics stay as it was made, so no file is written. */
export async function rezoneJob(payload: RezoneJobPayload, ctx: JobContext): Promise<RezoneJobResult> {
  const r = await computeZones(resolveDataPath(payload.rasterPath), payload.fieldGeometry, payload.options, (percent, step) => ctx.progress(percent * 0.98, step));
  ctx.progress(99, 'saving');
  return {
    zones: r.zones,
    areaProcessedHa: r.validAreaHa,
    zoning: zoningRecord(payload.options, r),
    cellFactor: r.cellFactor,
    boundary: boundaryFingerprint(payload.fieldGeometry),
  };
}
