// Band photos a download cut short, told from their heads. Its own module, away from the drone
// threads' code (photo-decode.ts): geotiff.js's web-worker shim fails in a thread started without workerData.
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { fromFile } from 'geotiff';
import { blocksEnd, blockTable } from '@/lib/raster/tiff-structure';
import type { Capture } from './survey';

/**
 * The first of a capture's band photos (TIFFs other than its main photo) whose strips or tiles run
 * past the end of its file, as a download cut short leaves them, or null. Read from their heads
 * alone, before the task matches a capture it could not draw: only the main photo is decoded before
 * compositing. A head geotiff.js cannot read counts as cut short; a system error (EMFILE, EIO) is thrown.
 */
export async function bandPhotoCutShort(capture: Capture): Promise<string | null> {
  for (const photo of capture.photos) {
    if (photo === capture.main || !/\.tiff?$/i.test(photo.path)) continue;
    if (await tiffCutShort(photo.path)) return basename(photo.path);
  }
  return null;
}

async function tiffCutShort(path: string): Promise<boolean> {
  try {
    const tiff = await fromFile(path);
    try {
      const table = await blockTable(await tiff.getImage(0));
      return !table || blocksEnd(table) > (await stat(path)).size;
    } finally {
      await tiff.close?.();
    }
  } catch (err) {
    // The machine's failure (too many open files, a read error) is not the photo's.
    if ((err as NodeJS.ErrnoException).code) throw err;
    return true;
  }
}
