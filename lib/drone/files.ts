// The GeoTIFFs a drone scan keeps in its folder (the task's work folder, beside preview.png): written
// by the pipeline, downloaded through the scan's exports.
import { join } from 'node:path';

export type DroneGeotiff = 'orthomosaic' | 'index';

/** Where the pipeline writes, and the export reads, one of a drone scan's GeoTIFFs. */
export const droneGeotiffPath = (scanDir: string, kind: DroneGeotiff, indexName: string) =>
  join(scanDir, kind === 'orthomosaic' ? 'mosaic.tif' : `${indexName.toLowerCase()}.tif`);
