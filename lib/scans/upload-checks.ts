// What an upload's files declare is read in a worker thread with a heap cap and a time cap (a
// GeoTIFF's header, drone photos' EXIF): a forged header costs at most that thread, never the web
// process that answers everyone else.
import type { DronePhoto } from '../drone/exif';
import { AppError, unprocessable } from '../errors';
import type { BandRole, IndexName } from '../raster/bands';
import type { RasterInfo } from '../raster/inspect';
import { checkTiffStructure } from '../raster/tiff-structure';
import { JobError, PHOTO_METADATA_HEAP_MB, RASTER_INSPECT_HEAP_MB, REQUEST_WORK_DEADLINE_MS, runRequestWork } from '../tasks/run-in-thread';

/**
 * Longest an upload's inspection may take. A real file needs a second or two, most of it the
 * thread loading its code; on a server busy with drone surveys that took over 20 s.
 */
export const RASTER_INSPECT_DEADLINE_MS = 60_000;

/** inspectIndexRaster (lib/raster/zones.ts), bounded: 415 for another kind of file, 422 for anything unusable, a thread that hits a cap included. */
export async function inspectUploadedRaster(path: string, index: IndexName, bandOrder?: BandRole[]): Promise<RasterInfo> {
  // In the request (bounded reads of the directories alone), so that its 415 keeps its status; most forged files end here.
  await checkTiffStructure(path);
  try {
    return (await runRequestWork('raster_inspect', { path, index, bandOrder }, RASTER_INSPECT_DEADLINE_MS)) as RasterInfo;
  } catch (err) {
    if (overLimit(err)) throw unprocessable('raster_check_limit', { seconds: RASTER_INSPECT_DEADLINE_MS / 1000, mb: RASTER_INSPECT_HEAP_MB });
    throw err;
  }
}

/** readDroneExifAll (lib/drone/exif.ts), bounded the same way: 422 naming the photo at fault, or the caps. */
export async function readPhotoMetadataBounded(paths: readonly string[]): Promise<DronePhoto[]> {
  try {
    return (await runRequestWork('photo_metadata', { paths })) as DronePhoto[];
  } catch (err) {
    if (overLimit(err)) throw unprocessable('photos_check_limit', { seconds: REQUEST_WORK_DEADLINE_MS / 1000, mb: PHOTO_METADATA_HEAP_MB });
    throw err;
  }
}

/** Past the time cap, out of heap, or crashed: the file's fault, told as such. */
const overLimit = (err: unknown) => (err instanceof AppError && err.key === 'work_too_long') || (err instanceof JobError && !err.info.final);
