// An uploaded GeoTIFF is inspected in a worker thread with a heap cap and a time cap: a forged header
// costs at most that thread, never the web process that answers everyone else.
import { AppError, unprocessable } from '../http/errors';
import type { BandRole, IndexName } from '../raster/bands';
import type { RasterInfo } from '../raster/inspect';
import { checkTiffStructure } from '../raster/tiff-structure';
import { JobError, RASTER_INSPECT_HEAP_MB, runRequestWork } from '../tasks/run-in-thread';

/** Longest an upload's inspection may take: real files need well under a second. */
export const RASTER_INSPECT_DEADLINE_MS = 20_000;

/** inspectIndexRaster (lib/raster/zones.ts), bounded: 415 for another kind of file, 422 for anything unusable, a thread that hits a cap included. */
export async function inspectUploadedRaster(path: string, index: IndexName, bandOrder?: BandRole[]): Promise<RasterInfo> {
  // In the request (bounded reads of the directories alone), so that its 415 keeps its status; most forged files end here.
  await checkTiffStructure(path);
  try {
    return (await runRequestWork('raster_inspect', { path, index, bandOrder }, RASTER_INSPECT_DEADLINE_MS)) as RasterInfo;
  } catch (err) {
    // Past the time cap, out of heap, or crashed: the file's fault, told as such.
    const overLimit = (err instanceof AppError && err.key === 'work_too_long') || (err instanceof JobError && !err.info.final);
    if (overLimit) throw unprocessable('raster_check_limit', { seconds: RASTER_INSPECT_DEADLINE_MS / 1000, mb: RASTER_INSPECT_HEAP_MB });
    throw err;
  }
}
