// A generated multispectral survey with known truth (tests/helpers/synthetic-survey.ts): placement
// accuracy under 3 m GPS noise, NDVI against the source image, and the broken inputs the route reports.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { readDroneExif, type DronePhoto } from '@/lib/drone/exif';
import { utmFrame } from '@/lib/drone/frame';
import { measureRowPattern } from '@/lib/drone/classify';
import { analyseIndex, fieldSpans } from '@/lib/drone/index';
import { mosaicWorkBytes } from '@/lib/drone/mosaic-files';
import { buildOrthomosaic, StitchError, type Mosaic } from '@/lib/drone/ortho';
import { AppError } from '@/lib/errors';
import { checkSurvey, groupCaptures } from '@/lib/drone/survey';
import { makeSyntheticSurvey, missingExiftool, type SurveyTruth } from '../../helpers/synthetic-survey';
import { missingShared, sharedPath } from '../../helpers/shared-data';
import { onTmpfs } from '../../helpers/tmpfs';

const naip = ['raster', 'naip', 'm_4709963_se_14_1_20160816.tif'];
const skip = missingShared(...naip) ?? missingExiftool();
if (skip) console.warn(skip);
const root = mkdtempSync(join(tmpdir(), 'drone-syn-'));

async function stitchReason(photos: DronePhoto[], dir: string): Promise<string> {
  try {
    await buildOrthomosaic(photos, { workDir: dir });
    return 'built';
  } catch (e) {
    return e instanceof StitchError ? e.reason : String(e);
  }
}

describe.skipIf(skip)('synthetic multispectral survey with truth', () => {
  let truth: SurveyTruth;
  let mosaic: Mosaic;

  beforeAll(async () => {
    truth = await makeSyntheticSurvey({ naipPath: sharedPath(...naip), dir: join(root, 'survey'), gpsNoiseM: 3, seed: 7 });
    const photos = await Promise.all(truth.files.map(readDroneExif));
    checkSurvey(photos);
    mosaic = await buildOrthomosaic(photos, { workDir: join(root, 'out'), rematchSeams: true });
  }, 600_000);

  it('recognises the band photos of each capture and places the captures within 1.5 m RMSE', () => {
    expect(mosaic.bands).toEqual(['blue', 'green', 'red', 'nir']);
    // At the photos' own ground resolution (25 cm at 100 m), as no resolution_cm coarsens it.
    expect(Math.abs(mosaic.gsdM / 0.25 - 1)).toBeLessThan(0.03);
    expect(mosaic.photoCount).toBe(truth.centres.length);
    const frame = utmFrame(17.1, 48.1);
    const errors = mosaic.photoCentresWgs84.map((c, i) => {
      const [e1, n1] = frame.toUtm(...c);
      const [e2, n2] = frame.toUtm(...truth.centres[i]!);
      return Math.hypot(e1 - e2, n1 - n2);
    });
    const rmse = Math.sqrt(errors.reduce((s, e) => s + e * e, 0) / errors.length);
    const seams = mosaic.rematchedSeams!;
    console.log(`synthetic: ${errors.length} captures, ${(mosaic.gsdM * 100).toFixed(1)} cm, position RMSE ${rmse.toFixed(2)} m, sampled seams ${mosaic.medianMisalignmentPx.toFixed(2)} px (p95 ${mosaic.seams.p95Px.toFixed(2)}, worst seam ${mosaic.seams.worstSeamPx.toFixed(2)}), all re-matched ${seams.medianPx.toFixed(2)} px over ${seams.matches} features on ${seams.pairs} seams`);
    expect(rmse).toBeLessThan(1.5);
    expect(mosaic.medianMisalignmentPx).toBeLessThan(3);
    expect(seams.matches).toBeGreaterThan(100);
    expect(seams.pairs).toBeGreaterThanOrEqual(10);
    expect(seams.medianPx).toBeLessThanOrEqual(3);
  });

  it('a band photo cut short (a download stopped) leaves its capture out and names it, where it failed the task', async () => {
    const dir = join(root, 'cut-band');
    mkdirSync(dir);
    for (const f of truth.files) copyFileSync(f, join(dir, basename(f)));
    const photos = await Promise.all(truth.files.map((f) => readDroneExif(join(dir, basename(f)))));
    const capture = groupCaptures(photos)[3]!;
    const band = capture.photos.find((p) => p !== capture.main && /\.tif$/i.test(p.path))!;
    truncateSync(band.path, Math.round(statSync(band.path).size * 0.6));
    const m = await buildOrthomosaic(photos, { workDir: join(root, 'cut-band-out') });
    expect(m.photoCount).toBe(truth.centres.length - 1);
    expect(m.leftOut.sort()).toEqual(capture.photos.map((p) => p.path).sort());
    expect(m.bands).toEqual(['blue', 'green', 'red', 'nir']);
  }, 600_000);

  it('composites in strips of columns, to the same bytes, when the photos a band of rows needs exceed the cache', async () => {
    // A one-byte cache and strips of at most 512 columns: each photo is decoded once for every strip it spans.
    const photos = await Promise.all(truth.files.map(readDroneExif));
    const stripped = await buildOrthomosaic(photos, { workDir: join(root, 'strips'), cacheBytes: 1, maxStripColumns: 512 });
    expect(mosaic.compositedStrips).toBe(1);
    expect(stripped.compositedStrips).toBe(Math.ceil(mosaic.width / 512));
    expect(stripped.compositedStrips).toBeGreaterThan(1);
    expect([stripped.width, stripped.height]).toEqual([mosaic.width, mosaic.height]);
    expect(readFileSync(stripped.rawPath).equals(readFileSync(mosaic.rawPath))).toBe(true);
    expect(readFileSync(stripped.previewPng).equals(readFileSync(mosaic.previewPng))).toBe(true);
  }, 600_000);

  it('a disk too small for the mosaic: drone_mosaic_no_space before anything is written', (ctx) => onTmpfs('1m', ctx, async (dir) => {
    const photos = await Promise.all(truth.files.map(readDroneExif));
    const refusal = await buildOrthomosaic(photos, { workDir: dir }).catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(AppError);
    const { key, params } = refusal as AppError;
    expect(key).toBe('drone_mosaic_no_space');
    // What the mosaic built above needs (its raw copy of bands and alpha, overviews and COG), in GB
    // rounded up to a tenth; none of the megabyte free.
    expect(params!.need_gb).toBe(Math.ceil(mosaicWorkBytes(mosaic.width, mosaic.height, mosaic.bands.length + 1) / 1e8) / 10);
    expect(params!.free_gb).toBe(0);
    expect(readdirSync(dir)).toEqual([]);
  }), 120_000);

  it('computes NDVI inside the field within 0.02 of the source image and writes the index GeoTIFF', async () => {
    const field = [200, 150, 700, 550] as const;
    const result = await analyseIndex(mosaic, truth.fieldWgs84(...field));
    const expected = truth.ndviInside(...field);
    expect(result.indexName).toBe('NDVI');
    expect(Math.abs(result.stats.mean - expected.mean)).toBeLessThan(0.02);
    expect(Math.abs(result.stats.std - expected.std)).toBeLessThan(0.02);
    expect(Math.abs(result.stats.median - expected.median)).toBeLessThan(0.02);
    expect(result.histogram).toHaveLength(64);
    expect(result.histogram.reduce((s, v) => s + v, 0)).toBe(result.pixelCount);
    expect(result.fieldCoverage).toBeGreaterThan(0.99);
    const info = JSON.parse(execFileSync('gdalinfo', ['-json', '-stats', result.indexGeotiffPath]).toString());
    expect(info.bands[0].type).toBe('Float32');
    expect(info.bands[0].noDataValue).toBe(-9999);
    expect(info.coordinateSystem.wkt).toContain(`"EPSG",${truth.world.epsg}`);
    expect(Math.abs(info.bands[0].mean - expected.mean)).toBeLessThan(0.03);
  });

  it('reports the share of the whole field the photos show, not of its part within the mosaic', async () => {
    // Two parts of one size: one under the photos, one far from them.
    const near = truth.fieldWgs84(200, 150, 700, 550);
    const far = truth.fieldWgs84(-3000, -3000, -2500, -2600);
    const result = await analyseIndex(mosaic, { type: 'MultiPolygon', coordinates: [near.coordinates, far.coordinates] });
    expect(result.fieldCoverage).toBeGreaterThan(0.48);
    expect(result.fieldCoverage).toBeLessThan(0.52);
  });

  it('does not guess a row pattern from a mosaic too coarse to show rows (25 cm pixels)', async () => {
    expect(await measureRowPattern(mosaic)).toBeNull();
  });

  it('masks exactly the field: a field outside the photos is reported, not averaged', async () => {
    const area = spannedCells(fieldSpans(mosaic, truth.fieldWgs84(200, 150, 700, 550))) * mosaic.gsdM ** 2;
    expect(area / (500 * 400 * truth.world.P ** 2)).toBeCloseTo(1, 2);
    const far = truth.fieldWgs84(-3000, -3000, -2000, -2000);
    await expect(analyseIndex(mosaic, far)).rejects.toMatchObject({ key: 'drone_field_not_covered' });
  });
});

/** Cells the spans of columns cover, all rows together. */
const spannedCells = (spans: Int32Array[]) => spans.reduce((s, row) => {
  for (let k = 0; k < row.length; k += 2) s += row[k + 1]! - row[k]! + 1;
  return s;
}, 0);

describe('fieldSpans', () => {
  it('gives each row the columns whose centres lie in the field, two spans where a hole splits it', () => {
    const frame = utmFrame(17.1, 48.1);
    const [e0, n0] = frame.toUtm(17.1, 48.1);
    const grid = { width: 100, height: 100, geoTransform: [e0, 1, 0, n0, 0, -1] as [number, number, number, number, number, number], crs: `EPSG:${frame.epsg}` };
    const ring = (x0: number, y0: number, x1: number, y1: number) => [[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]].map(([x, y]) => frame.toWgs84(e0 + x!, n0 - y!));
    const spans = fieldSpans(grid, { type: 'Polygon', coordinates: [ring(10, 10, 90, 90), ring(40, 40, 60, 60)] });
    expect([...spans[5]!]).toEqual([]);
    expect([...spans[20]!]).toEqual([10, 89]);
    expect([...spans[50]!]).toEqual([10, 39, 60, 89]);
    expect(spannedCells(spans)).toBe(80 * 80 - 20 * 20);
  });
});

describe.skipIf(skip)('16-bit photos without calibration tags', () => {
  // 12-bit counts in 16-bit files: decoded to 8 bits as sharp does by default (÷256) they had kept
  // 0-16, so that NDVI came out in coarse steps and an RGB survey hardly stitched.
  const field = [200, 150, 700, 550] as const;

  it('band TIFFs (as MicaSense or Sequoia record them): stitched, NDVI within 0.02 of the source image', async () => {
    const t = await makeSyntheticSurvey({ naipPath: sharedPath(...naip), dir: join(root, 'uncal'), gpsNoiseM: 3, seed: 7, camera: 'uncalibrated' });
    const photos = await Promise.all(t.files.map(readDroneExif));
    expect(photos.every((p) => p.sixteenBit && p.bandName && !p.radiometry)).toBe(true);
    const m = await buildOrthomosaic(photos, { workDir: join(root, 'uncal-out') });
    expect(m.bands).toEqual(['blue', 'green', 'red', 'nir']);
    expect(m.photoCount).toBe(t.centres.length);
    const result = await analyseIndex(m, t.fieldWgs84(...field));
    const expected = t.ndviInside(...field);
    expect(result.indexName).toBe('NDVI');
    expect(Math.abs(result.stats.mean - expected.mean)).toBeLessThan(0.02);
    expect(Math.abs(result.stats.std - expected.std)).toBeLessThan(0.02);
    expect(Math.abs(result.stats.median - expected.median)).toBeLessThan(0.02);
    expect(m.medianMisalignmentPx).toBeLessThan(3);
  }, 600_000);

  it('RGB TIFFs: stitched where GPS and the pictures say, in the 8-bit range as a whole', async () => {
    const t = await makeSyntheticSurvey({ naipPath: sharedPath(...naip), dir: join(root, 'rgb16'), gpsNoiseM: 3, seed: 7, camera: 'rgb16' });
    const photos = await Promise.all(t.files.map(readDroneExif));
    expect(photos.every((p) => p.sixteenBit && !p.bandName)).toBe(true);
    const m = await buildOrthomosaic(photos, { workDir: join(root, 'rgb16-out') });
    expect(m.bands).toEqual(['red', 'green', 'blue']);
    expect(m.photoCount).toBe(t.centres.length);
    const frame = utmFrame(17.1, 48.1);
    const errors = m.photoCentresWgs84.map((c, i) => {
      const [e1, n1] = frame.toUtm(...c);
      const [e2, n2] = frame.toUtm(...t.centres[i]!);
      return Math.hypot(e1 - e2, n1 - n2);
    });
    expect(Math.sqrt(errors.reduce((s, e) => s + e * e, 0) / errors.length)).toBeLessThan(1.5);
    expect(m.medianMisalignmentPx).toBeLessThan(3);
    // One factor for the survey: its brightest pixels near 240, not 16 (÷256) nor each photo its own.
    const px = readFileSync(m.rawPath);
    let top = 0;
    for (let i = 0; i < px.length; i += 4) if (px[i + 3]) top = Math.max(top, px[i]!, px[i + 1]!, px[i + 2]!);
    expect(top).toBeGreaterThan(200);
    const result = await analyseIndex(m, t.fieldWgs84(...field));
    expect(result.indexName).toBe('VARI');
    expect(result.fieldCoverage).toBeGreaterThan(0.99);
  }, 600_000);
});

describe.skipIf(skip)('broken surveys', () => {
  it('photos that do not overlap: too_little_overlap', async () => {
    const t = await makeSyntheticSurvey({ naipPath: sharedPath(...naip), dir: join(root, 'apart'), only: [0, 4] });
    const photos = await Promise.all(t.files.map(readDroneExif));
    expect(() => checkSurvey(photos)).not.toThrow();
    expect(await stitchReason(photos, join(root, 'apart-out'))).toBe('too_little_overlap');
  }, 120_000);

  it('two flights mixed: checkSurvey and the stitcher both refuse', async () => {
    const t = await makeSyntheticSurvey({ naipPath: sharedPath(...naip), dir: join(root, 'mixed'), only: [0, 1, 2, 3], dateOf: (k) => (k < 2 ? '2024:06:15' : '2024:07:02') });
    const photos = await Promise.all(t.files.map(readDroneExif));
    expect(() => checkSurvey(photos)).toThrow(expect.objectContaining({ key: 'drone_mixed_flights' }));
    expect(await stitchReason(photos, join(root, 'mixed-out'))).toBe('mixed_flights');
  }, 120_000);

  it('overlapping positions but unrelated pictures: no_matches; one photo: too_little_overlap', async () => {
    const dir = join(root, 'noise');
    mkdirSync(dir, { recursive: true });
    const files = [0, 1].map((k) => join(dir, `n${k}.jpg`));
    for (const [k, f] of files.entries()) {
      const px = Buffer.alloc(800 * 600 * 3);
      let s = 99 + k * 7;
      for (let i = 0; i < px.length; i++) px[i] = (s = (s * 1103515245 + 12345) >>> 0) >>> 24;
      await sharp(px, { raw: { width: 800, height: 600, channels: 3 } }).jpeg().toFile(f);
      execFileSync('exiftool', ['-q', '-overwrite_original', `-GPSLatitude=48.1`, '-GPSLatitudeRef=N', `-GPSLongitude=${17.1 + k * 0.0002}`, '-GPSLongitudeRef=E',
        '-FocalLength=4', '-FocalLengthIn35mmFormat=24', '-DateTimeOriginal=2024:06:15 10:00:0' + k, f]);
    }
    const photos = await Promise.all(files.map(readDroneExif));
    expect(await stitchReason(photos, join(dir, 'out'))).toBe('no_matches');
    expect(await stitchReason(photos.slice(0, 1), join(dir, 'out1'))).toBe('too_little_overlap');
  }, 120_000);
});
