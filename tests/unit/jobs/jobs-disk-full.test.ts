// A job that runs out of disk (lib/jobs/jobs.ts), or a program it runs: told as insufficient_storage,
// which ends its task rather than running it again to fill the disk again.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { INDEX_COG_OPTIONS, writeCog } from '@/lib/drone/cog';
import { AppError, isDiskFull } from '@/lib/errors';
import { runJob } from '@/lib/jobs/jobs';
import { fieldOver, NAIP_GRID } from '@/tests/helpers/raster-grids';
import { missingShared, sharedPath } from '../../helpers/shared-data';
import { onTmpfs } from '../../helpers/tmpfs';

const NAIP = ['raster', 'naip', 'm_4709963_se_14_1_20190904.tif'] as const;
const skip = missingShared(...NAIP);
if (skip) console.warn(skip);

describe.skipIf(skip)('a job whose work folder fills up', () => {
  // Two pages: too small for the zones' preview image.
  it('ends with insufficient_storage (final), not with the file system\'s error', (ctx) => onTmpfs('8k', ctx, async (dir) => {
    const payload = { rasterPath: sharedPath(...NAIP), fileName: 'naip.tif', capturedAt: null, fieldGeometry: fieldOver(NAIP_GRID, [[10, 10], [300, 12], [290, 280], [12, 290]]), options: { zones: 3 } };
    const failure = await runJob('raster_zones', payload, { workDir: dir, progress: () => {} }).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(AppError);
    expect((failure as AppError).key).toBe('insufficient_storage');
    // The preview began to be written, so the disk did fill: the refusal is not a check of our own.
    expect(readdirSync(dir)).toContain('preview.png');
  }));

  it('a program we run that fills it (GDAL writing a COG) is told as a full disk too', (ctx) => onTmpfs('64k', ctx, async (dir) => {
    const failure = await writeCog(sharedPath(...NAIP), join(dir, 'naip.tif'), INDEX_COG_OPTIONS).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(Error);
    expect(isDiskFull(failure), String(failure)).toBe(true);
  }));
});
