// The raster reader on the layouts and compressions GIS tools write: the same NAIP window, made by
// GDAL as striped and tiled files with each compression, must give the same zoning statistics as the
// uncompressed file (JPEG within its loss).
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { computeZones } from '@/lib/raster/zones';
import { missingShared, sharedPath } from '../../helpers/shared-data';

const NAIP = ['raster', 'naip', 'm_4709963_se_14_1_20190904.tif'];
const missing = missingShared(...NAIP);
if (missing) console.warn(`skipping raster compression tests: ${missing}`);

// A field of about 76 ha inside the tile's footprint.
const FIELD = { type: 'Polygon' as const, coordinates: [[[-99.175, 47.015], [-99.165, 47.015], [-99.165, 47.025], [-99.175, 47.025], [-99.175, 47.015]]] };

describe.skipIf(!!missing)('raster layouts and compressions', () => {
  const dir = mkdtempSync(join(tmpdir(), 'raster-cmp-'));
  const make = (name: string, options: string[]) => {
    const out = join(dir, `${name}.tif`);
    execFileSync('gdal_translate', ['-q', '-srcwin', '0', '0', '934', '724', ...options.flatMap((o) => ['-co', o]), sharedPath(...NAIP), out]);
    return out;
  };
  const zonesOf = (path: string) => computeZones(path, FIELD, { zones: 4, method: 'quantile', minZoneAreaHa: 0.05 });

  it('reads striped and tiled files with none, deflate, LZW, PackBits, ZSTD and JPEG compression alike', async () => {
    const reference = await zonesOf(make('plain', ['COMPRESS=NONE']));
    const lossless: [string, string[]][] = [
      ['deflate striped', ['COMPRESS=DEFLATE']],
      ['deflate tiled, predictor', ['COMPRESS=DEFLATE', 'TILED=YES', 'PREDICTOR=2']],
      ['LZW tiled', ['COMPRESS=LZW', 'TILED=YES', 'BLOCKXSIZE=128', 'BLOCKYSIZE=128']],
      ['PackBits striped', ['COMPRESS=PACKBITS']],
      ['ZSTD tiled', ['COMPRESS=ZSTD', 'TILED=YES']],
    ];
    for (const [label, options] of lossless) {
      const r = await zonesOf(make(label.replace(/\W+/g, '_'), options));
      expect([label, r.stats, r.validAreaHa, r.zones.length]).toEqual([label, reference.stats, reference.validAreaHa, reference.zones.length]);
    }
    // JPEG (lossy, pixel-interleaved bands) only approximately.
    const jpeg = await zonesOf(make('jpeg', ['COMPRESS=JPEG', 'TILED=YES', 'PHOTOMETRIC=MINISBLACK', 'JPEG_QUALITY=95']));
    expect(Math.abs(jpeg.stats.mean - reference.stats.mean)).toBeLessThan(0.01);
    expect(Math.abs(jpeg.validAreaHa - reference.validAreaHa) / reference.validAreaHa).toBeLessThan(0.01);
  });
});
