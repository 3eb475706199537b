// The seam figure every mosaic stores is measured on the output (sampledSeamCheck): a generated
// survey tied as the pipeline ties it, then one photo moved off its place, must show the broken seams
// in the figure (its worst seam and 95th percentile), where the intact block shows none.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readDroneExif } from '@/lib/drone/exif';
import { outputGrid, sampledSeamCheck, tieSurvey, type TiedSurvey } from '@/lib/drone/ortho';
import { makeSyntheticSurvey, missingExiftool } from '../../helpers/synthetic-survey';
import { missingShared, sharedPath } from '../../helpers/shared-data';

const naip = ['raster', 'naip', 'm_4709963_se_14_1_20160816.tif'];
const skip = missingShared(...naip) ?? missingExiftool();
if (skip) console.warn(skip);

describe.skipIf(skip)('sampled seam check on the output', () => {
  let survey: TiedSurvey;

  beforeAll(async () => {
    const root = mkdtempSync(join(tmpdir(), 'drone-seams-'));
    const truth = await makeSyntheticSurvey({ naipPath: sharedPath(...naip), dir: join(root, 'survey'), gpsNoiseM: 3, seed: 7, camera: 'rgb16' });
    survey = await tieSurvey(await Promise.all(truth.files.map(readDroneExif)));
  }, 600_000);

  it('rises when one photo is displaced by 2 m (8 output pixels) after the adjustment', async () => {
    const { adjusted, placed } = survey;
    const intact = await sampledSeamCheck(survey, adjusted, outputGrid(placed, adjusted));
    // A photo in the middle of the block, so that all its seams are with neighbours.
    const k = Math.floor(placed.length / 2);
    const moved = { ...adjusted, placements: adjusted.placements.map((p, i) => (i === k ? { ...p, tx: p.tx + 1.6, ty: p.ty - 1.2 } : p)) };
    const broken = await sampledSeamCheck(survey, moved, outputGrid(placed, moved));
    console.log(`seam check: intact median ${intact.medianPx.toFixed(2)} px, p95 ${intact.p95Px.toFixed(2)} px, worst seam ${intact.worstSeamPx.toFixed(2)} px over ${intact.matches} matches on ${intact.pairs} seams; photo ${k} moved 2 m: median ${broken.medianPx.toFixed(2)}, p95 ${broken.p95Px.toFixed(2)}, worst seam ${broken.worstSeamPx.toFixed(2)} px`);
    // One sampled seam per photo at least (each photo's best-matched neighbour).
    expect(intact.pairs).toBeGreaterThanOrEqual(10);
    expect(intact.matches).toBeGreaterThan(300);
    expect(intact.medianPx).toBeLessThan(2);
    // The intact block's worst seam is at the survey's first photo (about 1 m, 4 px): under 5 px.
    expect(intact.worstSeamPx).toBeLessThan(5);
    // 2 m is 8 pixels of 25 cm: the moved photo's seam shows about that, and is now the worst.
    expect(broken.worstSeamPx).toBeGreaterThan(6.5);
    expect(broken.worstSeamPx).toBeLessThan(9.5);
    expect(broken.worstSeamPx).toBeGreaterThan(1.5 * intact.worstSeamPx);
    expect(broken.p95Px).toBeGreaterThan(intact.p95Px);
  }, 300_000);
});
