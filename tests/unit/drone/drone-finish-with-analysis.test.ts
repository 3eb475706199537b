// The mosaic finished beside its analysis (finish-with-analysis.ts): the three steps' results, and a
// failure thrown only once the others have settled, so that none still writes into the work folder.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Polygon } from 'geojson';
import { afterAll, describe, expect, it } from 'vitest';
import { readDroneExif } from '@/lib/drone/exif';
import { finishWithAnalysis } from '@/lib/drone/finish-with-analysis';
import { compositeOrthomosaic } from '@/lib/drone/ortho';
import { missingShared, sharedPath } from '../../helpers/shared-data';

const skip = missingShared('drone', 'brighton_beach', 'images');
if (skip) console.warn(skip);
const tmp = mkdtempSync(join(tmpdir(), 'finish-with-analysis-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function composited(name: string) {
  const dir = sharedPath('drone', 'brighton_beach', 'images');
  const photos = await Promise.all(readdirSync(dir).sort().map((f) => readDroneExif(join(dir, f))));
  return compositeOrthomosaic(photos, { workDir: join(tmp, name), resolutionM: 0.1 });
}

describe.skipIf(skip)('finishWithAnalysis', () => {
  it('gives the finished mosaic with its seam figures, the index inside the field and the row pattern', async () => {
    const c = await composited('covered');
    const { mosaic, analysis, rowPattern } = await finishWithAnalysis(c, c.mosaic.footprintWgs84);
    expect(existsSync(mosaic.geotiffPath)).toBe(true);
    expect(mosaic.seams.matches).toBeGreaterThan(100);
    expect(mosaic.medianMisalignmentPx).toBeLessThan(3);
    expect(analysis.indexName).toBe('VARI');
    expect(existsSync(analysis.indexGeotiffPath)).toBe(true);
    expect(analysis.fieldCoverage).toBeGreaterThan(0.5);
    // 10 cm pixels show rows 0.3 m apart; null would mean the row pattern was never measured.
    expect(rowPattern).not.toBeNull();
  });

  it('throws the index\'s failure for a field the photos miss, once the COG is written', async () => {
    const c = await composited('missed');
    const [lon, lat] = c.mosaic.footprintWgs84.coordinates[0]![0]!;
    const away = (d: number) => [lon! + 0.01 + d, lat! + 0.01 + d];
    const field: Polygon = { type: 'Polygon', coordinates: [[away(0), away(0.001), [lon! + 0.011, lat! + 0.01], away(0)]] };
    await expect(finishWithAnalysis(c, field)).rejects.toMatchObject({ key: 'drone_field_not_covered' });
    expect(existsSync(c.mosaic.geotiffPath)).toBe(true);
  });
});
