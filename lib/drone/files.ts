// The GeoTIFFs a drone scan keeps in its folder (the task's work folder, beside preview.png): written
// by the pipeline, downloaded through the scan's exports.
import { join } from 'node:path';

export type DroneGeotiff = 'orthomosaic' | 'index';

export const orthomosaicPath = (scanDir: string) => join(scanDir, 'mosaic.tif');

/** The index raster, named after its index (`vari.tif`, `ndvi.tif`). */
export const indexRasterPath = (scanDir: string, indexName: string) => join(scanDir, `${indexName.toLowerCase()}.tif`);
