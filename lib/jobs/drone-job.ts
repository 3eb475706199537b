// The drone job: photos -> georeferenced orthomosaic -> vegetation index inside the field -> zones
// (through the same zoning code as uploaded rasters) -> crop classification.
import { rm } from 'node:fs/promises';
import { basename, relative } from 'node:path';
import type { MultiPolygon, Polygon } from 'geojson';
import { classifyCrop, type measureRowPattern } from '../drone/classify';
import { readDroneExifAll } from '../drone/exif';
import { type analyseIndex, HISTOGRAM_RANGE, indexFor } from '../drone/index';
import { finishWithAnalysis } from '../drone/finish-with-analysis';
import { config } from '../config';
import { compositeOrthomosaic, finishOrthomosaic } from '../drone/ortho';
import { startDroneThreads } from '../drone/threads';
import { boundaryFingerprint } from '../scans/boundary';
import { AppError } from '../errors';
import { computeZones, DRONE_ZONING, zoningRecord, type ZoningResult } from '../raster/zones';
import { resolveDataPath } from '../uploads/data-path';
import type { DroneJobResult } from './finishers';
import type { JobContext } from '../tasks/types';

export interface DroneJobPayload {
  /** As recorded (lib/uploads/data-path.ts). */
  photoPaths: string[];
  fileName: string;
  fieldGeometry: Polygon | MultiPolygon;
  /** Upload option `resolution_cm` in metres: coarsens the mosaic's ground resolution (none: the photos' own). */
  resolutionM?: number;
  /** The folder the ZIP was unpacked into, as recorded: photos are named by their path in the ZIP (a task queued by an older version names them by file). */
  photosDir?: string;
}

export async function droneJob(payload: DroneJobPayload, ctx: JobContext): Promise<DroneJobResult> {
  void startDroneThreads();
  const photos = await readDroneExifAll(payload.photoPaths.map((p) => resolveDataPath(p)));
  const composited = await compositeOrthomosaic(photos, {
    workDir: ctx.workDir, onProgress: (p) => ctx.progress(p * 0.7, 'stitching'), rematchSeams: config().DRONE_SEAM_CHECK === '1',
    ...(payload.resolutionM !== undefined ? { resolutionM: payload.resolutionM } : {}),
  });
  // "NDVI analysis" only when there is an NDVI; a visible-band index is never called so.
  const indexStep = indexFor(composited.mosaic.bands) === 'NDVI' ? 'ndvi' : 'index';
  ctx.progress(72, indexStep);
  const { mosaic, analysis, rowPattern } = await finishWithAnalysis(composited, payload.fieldGeometry);
  const zoning = await zonesOfSurvey(analysis.indexGeotiffPath, payload.fieldGeometry, (p) => ctx.progress(72 + p * 0.15, indexStep));
  ctx.progress(90, 'classification');
  const capturedAt = photos.map((p) => p.capturedAt).find(Boolean) ?? null;
  const month = capturedAt ? Number(capturedAt.slice(5, 7)) : new Date().getMonth() + 1;
  const crop = classifyCrop({ histogram: analysis.histogram, stats: analysis.stats, indexName: analysis.indexName, captureMonth: month, rowPattern });
  await Promise.all(mosaic.scratchPaths.map((p) => rm(p, { force: true })));
  ctx.progress(98, 'done');
  return {
    scan: droneScan(payload, mosaic, analysis, { capturedAt, rowPattern, zoning }),
    zones: zoning?.zones ?? [],
    areaProcessedHa: zoning?.validAreaHa ?? 0,
    crop,
    leftOutFiles: mosaic.leftOut.map((path) => (payload.photosDir ? relative(resolveDataPath(payload.photosDir), path) : basename(path))),
  };
}

/** The survey's zones; null when it covers too little of the field, which still gets its analysis and classification. */
async function zonesOfSurvey(indexPath: string, field: Polygon | MultiPolygon, onProgress: (p: number) => void): Promise<ZoningResult | null> {
  try {
    return await computeZones(indexPath, field, DRONE_ZONING, onProgress);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return null;
  }
}

type Mosaic = Awaited<ReturnType<typeof finishOrthomosaic>>;
type IndexAnalysis = Awaited<ReturnType<typeof analyseIndex>>;

/** The scan the survey makes: its index figures, its preview, and the details the scan's page and a later re-zoning read. */
function droneScan(
  payload: DroneJobPayload, mosaic: Mosaic, analysis: IndexAnalysis,
  { capturedAt, rowPattern, zoning }: { capturedAt: string | null; rowPattern: Awaited<ReturnType<typeof measureRowPattern>>; zoning: ZoningResult | null },
): DroneJobResult['scan'] {
  const [west, south, east, north] = mosaic.boundsWgs84;
  return {
    source: 'drone',
    fileName: payload.fileName,
    indexName: analysis.indexName.toLowerCase(),
    capturedAt,
    stats: analysis.stats,
    histogram: { min: HISTOGRAM_RANGE[0], max: HISTOGRAM_RANGE[1], counts: analysis.histogram },
    previewPath: mosaic.previewPng,
    previewBounds: [
      [south, west],
      [north, east],
    ],
    details: {
      photos: mosaic.photoCount,
      gsd_m: mosaic.gsdM,
      crs: mosaic.crs,
      field_coverage: analysis.fieldCoverage,
      // Kept to classify the crop again when the capture date is corrected (the season is an input).
      row_pattern: rowPattern,
      boundary: boundaryFingerprint(payload.fieldGeometry),
      zoning: zoningRecord(DRONE_ZONING, zoning ?? undefined),
      // Measured on the output by the sampled seam check (docs/drone.md): the worst seam and the 95th
      // percentile are what rise when one seam breaks.
      median_misalignment_px: mosaic.medianMisalignmentPx,
      seam_p95_px: mosaic.seams.p95Px,
      worst_seam_px: mosaic.seams.worstSeamPx,
      ...(mosaic.rematchedSeams
        ? { seam_check: { median_px: mosaic.rematchedSeams.medianPx, p95_px: mosaic.rematchedSeams.p95Px, matches: mosaic.rematchedSeams.matches, seams: mosaic.rematchedSeams.pairs } }
        : {}),
    },
  };
}
