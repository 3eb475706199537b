// The jobs, by kind: pure processing that reads its inputs from disk, writes outputs into its work
// folder and returns what the finisher (lib/jobs/finishers.ts) stores. Runs in a worker thread of the
// server or in a worker process; never touches the database. Each kind's code is loaded when its job
// runs, so that a thread loads only what its job needs (the raster code alone takes a new thread about
// 0.3 s to load).
import { insufficientStorage, isDiskFull } from '../errors';
import type { JobContext, JobKind } from '../tasks/types';

export async function runJob(kind: JobKind, payload: unknown, ctx: JobContext): Promise<unknown> {
  try {
    return await jobOfKind(kind, payload, ctx);
  } catch (err) {
    // A full disk is told as such, in the user's language, and ends the task: tried again at once, the
    // job would fill the disk again.
    throw isDiskFull(err) ? insufficientStorage() : err;
  }
}

async function jobOfKind(kind: JobKind, payload: unknown, ctx: JobContext): Promise<unknown> {
  switch (kind) {
    case 'shapefile_rows': {
      const { stageShapefileRows } = await import('../fields/import-rows');
      return stageShapefileRows(payload as Parameters<typeof stageShapefileRows>[0]);
    }
    case 'raster_zones': {
      const { zoneRasterJob } = await import('./zoning-jobs');
      return zoneRasterJob(payload as Parameters<typeof zoneRasterJob>[0], ctx);
    }
    case 'rezone': {
      const { rezoneJob } = await import('./zoning-jobs');
      return rezoneJob(payload as Parameters<typeof rezoneJob>[0], ctx);
    }
    case 'boundaries': {
      const { boundaryWork } = await import('../fields/boundary-work');
      return boundaryWork(payload as Parameters<typeof boundaryWork>[0]);
    }
    case 'exports': {
      const { exportWork } = await import('../exports/export-work');
      return exportWork(payload as Parameters<typeof exportWork>[0]);
    }
    case 'raster_inspect': {
      const { inspectIndexRaster } = await import('../raster/zones');
      const { path, index, bandOrder } = payload as { path: string; index: Parameters<typeof inspectIndexRaster>[1]; bandOrder?: Parameters<typeof inspectIndexRaster>[2] };
      return inspectIndexRaster(path, index, bandOrder);
    }
    case 'photo_metadata': {
      const { readDroneExifAll } = await import('../drone/exif');
      return readDroneExifAll((payload as { paths: string[] }).paths);
    }
    case 'drone': {
      // Loaded only when needed: the drone pipeline pulls in OpenCV.
      const { droneJob } = await import('./drone-job');
      return droneJob(payload as Parameters<typeof droneJob>[0], ctx);
    }
  }
}
