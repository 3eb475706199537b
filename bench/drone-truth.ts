// The orthomosaic against known truth on larger surveys (issue 38, point 4): surveys rendered through
// a pinhole camera with unrecorded tilt over a hill and a tree line (tests/helpers/truth-survey.ts),
// the camera's long side across and along the track, each mosaic measured at its checkpoints
// (tests/helpers/truth-measure.ts). Writes bench/results/drone-truth.json and prints a table.
// Usage: npx tsx bench/drone-truth.ts  (DRONE_TRUTH_PHOTOS=50 for 5 lines of 10; DRONE_TRUTH_SIDE=2000 px photos)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readDroneExif } from '@/lib/drone/exif';
import { buildOrthomosaic } from '@/lib/drone/ortho';
import { checkSurvey } from '@/lib/drone/survey';
import { sharedPath } from '@/tests/helpers/shared-data';
import { floorNeighbourP95, measureMosaic } from '@/tests/helpers/truth-measure';
import { makeTruthSurvey } from '@/tests/helpers/truth-survey';
import { round, type Row, writeResults } from './lib';

/** Issue 38's targets (as in tests/unit/drone/drone-truth.test.ts). */
const RMSE_OVER_FLOOR_MAX = 1.2;
const RMSE_MAX_M = 1.5;
const NEIGHBOUR_P95_MAX_M = 0.5;

const NAIP = sharedPath('raster', 'naip', 'm_4709963_se_14_1_20160816.tif');
const PHOTOS = Number(process.env.DRONE_TRUTH_PHOTOS ?? 50);
const SIDE = Number(process.env.DRONE_TRUTH_SIDE ?? 2000);
const HEIGHT_M = 100;
const LINES = PHOTOS >= 200 ? 10 : PHOTOS >= 50 ? 5 : 3;

interface CaseResult {
  longSide: 'across' | 'along';
  photos: number;
  photoPx: [number, number];
  generateS: number;
  mosaicS: number;
  outputMp: number;
  gsdCm: number;
  checkpoints: number;
  found: number;
  rmseM: number;
  floorM: number;
  floorLevelM: number;
  floorTiltedM: number;
  ratio: number;
  neighbourP95M: number;
  floorNeighbourP95M: number;
  bendP95M: number;
  neighbourPairs: number;
  meanOffsetM: [number, number];
}

async function runCase(longSide: 'across' | 'along', root: string): Promise<CaseResult> {
  const truth = await makeTruthSurvey({
    naipPath: NAIP, dir: join(root, longSide), lines: LINES, photosPerLine: Math.ceil(PHOTOS / LINES),
    photoWidthPx: SIDE, photoHeightPx: Math.round(SIDE * 0.75), heightM: HEIGHT_M, longSide, seed: 138, checkpointSpacingM: 25,
  });
  const photos = await Promise.all(truth.files.map(readDroneExif));
  checkSurvey(photos);
  const t0 = performance.now();
  const mosaic = await buildOrthomosaic(photos, { workDir: join(root, `${longSide}-out`) });
  const mosaicS = (performance.now() - t0) / 1000;
  const m = measureMosaic(truth, mosaic);
  rmSync(join(root, longSide), { recursive: true, force: true });
  rmSync(join(root, `${longSide}-out`), { recursive: true, force: true });
  return {
    longSide, photos: photos.length, photoPx: [SIDE, Math.round(SIDE * 0.75)], generateS: round(truth.seconds, 1), mosaicS: round(mosaicS, 1),
    outputMp: round((mosaic.width * mosaic.height) / 1e6, 1), gsdCm: round(mosaic.gsdM * 100, 1), checkpoints: m.checkpoints, found: m.found.length,
    rmseM: round(m.rmseM, 2), floorM: round(truth.floor.horizontalM, 2), floorLevelM: round(truth.floorLevel.horizontalM, 2), floorTiltedM: round(truth.floorTilted.horizontalM, 2),
    ratio: round(m.rmseM / truth.floor.horizontalM, 2), neighbourP95M: round(m.neighbourP95M, 2), floorNeighbourP95M: round(floorNeighbourP95(truth), 2),
    bendP95M: round(m.bendP95M, 2), neighbourPairs: m.neighbourPairs,
    meanOffsetM: [round(m.meanOffsetM[0], 2), round(m.meanOffsetM[1], 2)],
  };
}

function printCases(cases: CaseResult[]): void {
  const head = ['long side', 'photos', 'output MP', 'GSD cm', 'mosaic s', 'found', 'RMSE m', 'floor m', 'ratio', 'bend p95 m', 'nbr p95 m', 'floor nbr p95 m'];
  const rows = cases.map((c) => [c.longSide, c.photos, c.outputMp, c.gsdCm, c.mosaicS, `${c.found}/${c.checkpoints}`, c.rmseM, c.floorM, c.ratio, c.bendP95M, c.neighbourP95M, c.floorNeighbourP95M].map(String));
  const w = head.map((h, k) => Math.max(h.length, ...rows.map((r) => r[k]!.length)));
  console.log(`\nOrthomosaic against truth (targets: RMSE ≤ ${RMSE_OVER_FLOOR_MAX} x floor and ≤ ${RMSE_MAX_M} m, neighbour p95 ≤ ${NEIGHBOUR_P95_MAX_M} m once the best similarity is out: bend)`);
  for (const r of [head, ...rows]) console.log('  ' + r.map((v, k) => v.padStart(w[k]!)).join('  '));
}

const root = mkdtempSync(join(tmpdir(), 'drone-truth-bench-'));
const cases: CaseResult[] = [];
for (const side of ['across', 'along'] as const) {
  const c = await runCase(side, root);
  console.log(JSON.stringify(c));
  cases.push(c);
}
rmSync(root, { recursive: true, force: true });
printCases(cases);
const rows: Row[] = cases.flatMap((c) => [
  { metric: `${c.photos} photos, long side ${c.longSide}: RMSE / floor`, value: c.ratio, unit: 'x', target: `≤ ${RMSE_OVER_FLOOR_MAX}`, ok: c.ratio <= RMSE_OVER_FLOOR_MAX },
  { metric: `${c.photos} photos, long side ${c.longSide}: RMSE`, value: c.rmseM, unit: 'm', target: `≤ ${RMSE_MAX_M}`, ok: c.rmseM <= RMSE_MAX_M },
  { metric: `${c.photos} photos, long side ${c.longSide}: neighbour p95, bend`, value: c.bendP95M, unit: 'm', target: `≤ ${NEIGHBOUR_P95_MAX_M}`, ok: c.bendP95M <= NEIGHBOUR_P95_MAX_M },
  { metric: `${c.photos} photos, long side ${c.longSide}: neighbour p95 as measured (the floor's own ${c.floorNeighbourP95M} m)`, value: c.neighbourP95M, unit: 'm' },
  { metric: `${c.photos} photos, long side ${c.longSide}: mosaic time`, value: c.mosaicS, unit: 's' },
]);
writeResults('drone-truth', rows, { cases });
