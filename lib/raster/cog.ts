// A raster made ready for map tiles: read as it is when it has overviews (a Cloud-Optimized GeoTIFF)
// or is small, else copied once to a COG (gdal_translate -of COG), beside the scan's other files.
import { execFile } from 'node:child_process';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { fromFile } from 'geotiff';
import { LRUCache } from 'lru-cache';
import { unprocessable } from '@/lib/errors';

const run = promisify(execFile);

/** Up to this many pixels a side, a raster without overviews is read as it is: a whole-raster tile decodes at most 4 MP. */
export const READ_AS_IS_SIDE = 2048;

/** Whether tiles can be read from the file as it is: it has overviews, or is small. */
export async function isTileable(path: string): Promise<boolean> {
  const tiff = await fromFile(path);
  try {
    const image = await tiff.getImage(0);
    if (Math.max(image.getWidth(), image.getHeight()) <= READ_AS_IS_SIDE) return true;
    if (!image.isTiled) return false;
    const count = await tiff.getImageCount();
    for (let i = 1; i < count; i++) {
      const subfile = Number((await tiff.getImage(i)).getFileDirectory().getValue('NewSubfileType') ?? 0);
      if ((subfile & 1) && !(subfile & 4)) return true;
    }
    return false;
  } finally {
    await tiff.close?.();
  }
}

// Which file each raster's tiles come from, by the raster's path and version: decided (and a copy
// made) once, two requests at once waiting for the same decision.
const decided = new LRUCache<string, Promise<string>>({ max: 1024 });

/**
 * The file tiles are read from: `path` itself when tileable, else its COG copy in `cacheDir`, made on
 * the first call. The copy is written under a temporary name and renamed, so a killed conversion
 * leaves no half file to be read; a copy older than its raster is made again.
 */
export async function tileablePath(path: string, cacheDir: string): Promise<string> {
  const source = await stat(path);
  const key = `${path}|${source.size}|${source.mtimeMs}`;
  let pending = decided.get(key);
  if (!pending) {
    pending = decideTileable(path, source.mtimeMs, join(cacheDir, `${basename(path).replace(/\.tiff?$/i, '')}.cog.tif`));
    decided.set(key, pending);
    pending.catch(() => decided.delete(key));
  }
  return pending;
}

async function decideTileable(path: string, mtimeMs: number, copy: string): Promise<string> {
  const made = await stat(copy).catch(() => null);
  if (made && made.mtimeMs >= mtimeMs) return copy;
  if (await isTileable(path)) return path;
  await convertToCog(path, copy);
  return copy;
}

/** gdal_translate -of COG: 256 px DEFLATE blocks (a tile touches a quarter of the bytes of 512 px ones), overviews averaged down to one block. */
export async function convertToCog(path: string, target: string): Promise<void> {
  await mkdir(join(target, '..'), { recursive: true });
  const temp = `${target}.${process.pid}.part`;
  try {
    // A file GDAL cannot copy is one the tiles cannot read either: 422, as an unreadable upload.
    await run('gdal_translate', ['-q', '-of', 'COG', '-co', 'COMPRESS=DEFLATE', '-co', 'PREDICTOR=YES', '-co', 'BLOCKSIZE=256', '-co', 'OVERVIEW_RESAMPLING=AVERAGE', '-co', 'NUM_THREADS=2', '-co', 'BIGTIFF=IF_SAFER', path, temp]).catch((err: Error & { stderr?: string }) => {
      throw unprocessable('raster_unreadable', { reason: (err.stderr || err.message).trim().slice(0, 200) });
    });
    await rename(temp, target);
  } finally {
    await rm(temp, { force: true });
  }
}
