// Photos all of one spot with GPS only (a non-DJI drone hovering while it shoots): the GPS steps are
// noise, so no consecutive pair gives a heading, and the flight "track" points anywhere. The turns
// between consecutive photos show the camera kept one heading; the block must keep its shape and scale
// (it had shrunk to a 13th of its pixel, photos 90-180° apart) and the GPS fit turn it the right way.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readDroneExif } from '@/lib/drone/exif';
import { tieSurvey, type TiedSurvey } from '@/lib/drone/ortho';
import { makeHoverSurvey, type HoverSurvey } from '../../helpers/hover-survey';
import { missingShared, sharedPath } from '../../helpers/shared-data';
import { missingExiftool } from '../../helpers/synthetic-survey';
import { similarity2d } from '../../helpers/truth-survey';

const naip = ['raster', 'naip', 'm_4709963_se_14_1_20160816.tif'];
const skip = missingShared(...naip) ?? missingExiftool();
if (skip) console.warn(skip);

const angleDiff = (a: number, b: number) => Math.abs((((a - b) % 360) + 540) % 360 - 180);

describe.skipIf(skip)('photos of one spot with GPS only', () => {
  let survey: HoverSurvey;
  let tied: TiedSurvey;

  beforeAll(async () => {
    // The camera faces 200°: north, the guess for a fixed heading nothing names, is 160° off.
    survey = await makeHoverSurvey({ naipPath: sharedPath(...naip), dir: mkdtempSync(join(tmpdir(), 'drone-hover-')), photos: 30, headingDeg: 200 });
    tied = await tieSurvey(await Promise.all(survey.files.map(readDroneExif)));
  }, 300_000);

  it('keeps every photo at one heading and the GPS fit turns the block to the camera\'s', () => {
    const placed = tied.adjusted.placements.map((p) => (-Math.atan2(p.b, p.a) * 180) / Math.PI);
    const errors = placed.map((h, i) => angleDiff(h, survey.headingDeg[i]!));
    expect(Math.max(...errors)).toBeLessThan(3);
  });

  it('keeps the guessed scale and the photos\' layout', () => {
    const scales = tied.adjusted.placements.map((p) => Math.hypot(p.a, p.b) / survey.gsdM).sort((a, b) => a - b);
    expect(scales[0]).toBeGreaterThan(0.85);
    expect(scales.at(-1)).toBeLessThan(1.15);
    const at = tied.adjusted.placements.map((p): [number, number] => [p.tx, p.ty]);
    const fit = similarity2d(at, survey.trueEN);
    const misfit = at.map(([e, n], i) => Math.hypot(fit.a * e - fit.b * n + fit.t[0] - survey.trueEN[i]![0], fit.b * e + fit.a * n + fit.t[1] - survey.trueEN[i]![1]));
    expect(Math.sqrt(misfit.reduce((s, d) => s + d * d, 0) / misfit.length)).toBeLessThan(0.5);
  });
});
