// brighton_beach end to end: a real DJI survey (18 photos, 3 lines, headings logged 180° off on the
// return line) becomes a georeferenced GeoTIFF; its placement is checked against the GPS track and
// against the point cloud an established photogrammetry tool (ODM) made from it.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { booleanPointInPolygon, buffer, point } from '@turf/turf';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { readDroneExif, type DronePhoto } from '@/lib/drone/exif';
import { footprint, gpsPlacement, groundSampleM, heightM, utmFrame } from '@/lib/drone/frame';
import { buildOrthomosaic, decodeScale, type DroneStep, type Mosaic } from '@/lib/drone/ortho';
import { overviewSizes } from '@/lib/drone/overviews';
import { mosaicOnGrid } from '../../helpers/mosaic-grid';
import { agreementWithCloud, lasTopView } from '../../helpers/point-cloud';
import { missingShared, sharedPath } from '../../helpers/shared-data';

const skip = missingShared('drone', 'brighton_beach', 'images');
if (skip) console.warn(skip);

describe.skipIf(skip)('buildOrthomosaic on brighton_beach', () => {
  let photos: DronePhoto[];
  let mosaic: Mosaic;
  const steps: [number, DroneStep][] = [];

  beforeAll(async () => {
    const dir = sharedPath('drone', 'brighton_beach', 'images');
    photos = await Promise.all(readdirSync(dir).sort().map((f) => readDroneExif(join(dir, f))));
    // At 3.5 cm rather than the photos' own 1.7 cm (about 90 MP, the bench's run): the full seam check
    // re-draws every seam at the output's resolution, and the test must fit a busy machine.
    mosaic = await buildOrthomosaic(photos, { workDir: mkdtempSync(join(tmpdir(), 'drone-bb-')), onProgress: (p, s) => steps.push([p, s]), rematchSeams: true, resolutionM: 0.035 });
    mkdirSync('test-results', { recursive: true });
    await sharp(mosaic.previewPng).resize({ width: 1200 }).png().toFile('test-results/drone-brighton.png');
  }, 900_000);

  it('writes a Cloud-Optimized GeoTIFF (tiled, overviews, JPEG in YCbCr with a mask) in the UTM zone of the survey', () => {
    const info = JSON.parse(execFileSync('gdalinfo', ['-json', mosaic.geotiffPath], { maxBuffer: 1 << 26 }).toString());
    expect(mosaic.crs).toBe('EPSG:32615');
    expect(info.coordinateSystem.wkt).toContain('"EPSG",32615');
    expect(info.metadata.IMAGE_STRUCTURE.LAYOUT).toBe('COG');
    expect(info.metadata.IMAGE_STRUCTURE.COMPRESSION).toBe('YCbCr JPEG');
    expect(info.bands[0].block).toEqual([256, 256]);
    // The overviews made as the rows were composited (overviews.ts): GDAL's own would round their sizes down.
    expect(info.bands[0].overviews.map((o: { size: number[] }) => o.size)).toEqual(overviewSizes(mosaic.width, mosaic.height));
    expect(info.bands[0].overviews.length).toBeGreaterThanOrEqual(4);
    expect(info.bands[0].mask.flags).toEqual(['PER_DATASET']);
    expect(info.bands.map((b: { colorInterpretation: string }) => b.colorInterpretation)).toEqual(['Red', 'Green', 'Blue']);
    expect(info.size).toEqual([mosaic.width, mosaic.height]);
    info.geoTransform.forEach((v: number, k: number) => expect(v).toBeCloseTo(mosaic.geoTransform[k]!, 9));
    expect(mosaic.photoCount).toBe(18);
    // The grid spans the 18 footprints as GPS and the camera place them on flat ground (about 162 m
    // each way): none is cut short. The adjustment may move a photo by a few metres.
    const frame = utmFrame(photos[0]!.gps!.lon, photos[0]!.gps!.lat);
    const corners = photos.flatMap((p) => {
      const height = heightM(p, 40);
      return footprint(gpsPlacement(p, frame, height, groundSampleM(p, height)!), p.widthPx, p.heightPx);
    });
    const span = (k: 0 | 1) => Math.max(...corners.map((c) => c[k])) - Math.min(...corners.map((c) => c[k]));
    expect(mosaic.width * mosaic.gsdM).toBeGreaterThan(span(0) - 4);
    expect(mosaic.height * mosaic.gsdM).toBeGreaterThan(span(1) - 4);
    // resolution_cm coarsens the photos' own ground resolution (about 1.7 cm at 40 m) to what was asked.
    expect(mosaic.gsdM).toBeCloseTo(0.035, 9);
    expect(steps.at(-1)).toEqual([100, 'stitching']);
  });

  it('keeps every photo within a few metres of its GPS fix and covers the whole GPS track', () => {
    const zone = buffer(mosaic.footprintWgs84, 0)!;
    photos.forEach((p, i) => {
      expect(booleanPointInPolygon(point([p.gps!.lon, p.gps!.lat]), zone)).toBe(true);
      const frame = utmFrame(p.gps!.lon, p.gps!.lat);
      const [e1, n1] = frame.toUtm(p.gps!.lon, p.gps!.lat);
      const [e2, n2] = frame.toUtm(...mosaic.photoCentresWgs84[i]!);
      expect(Math.hypot(e1 - e2, n1 - n2)).toBeLessThan(10);
    });
  });

  it('shows what the ODM point cloud reconstructed where ODM puts it, within 5 m over its extent (model.laz, UTM 15N)', async () => {
    // ODM kept only what it could reconstruct (lawns, roads, the beach: not the forest canopy or the
    // lake), so the cloud covers part of the mosaic. Its top view and the mosaic, on one 20 cm grid,
    // are matched by features: the transform between them says how far apart the two put things.
    const cloud = await lasTopView(sharedPath('drone', 'brighton_beach', 'model.laz'), 0.2);
    const [gx, gsd, , gy] = mosaic.geoTransform;
    const { bounds } = cloud;
    expect(bounds.minX).toBeGreaterThan(gx);
    expect(bounds.maxY).toBeLessThan(gy);
    expect(bounds.maxX).toBeLessThan(gx + mosaic.width * gsd);
    expect(bounds.minY).toBeGreaterThan(gy - mosaic.height * gsd);
    const ours = mosaicOnGrid(readFileSync(mosaic.rawPath), mosaic, cloud);
    const { used, matches, scale, turnDeg, cornersM } = await agreementWithCloud(cloud, ours.rgb, ours.filled);
    console.log(`brighton_beach vs ODM: ${used} of ${matches} matches; scale ${scale.toFixed(4)}, turn ${turnDeg.toFixed(2)}°, extent corners moved ${cornersM.map((d) => d.toFixed(2)).join(', ')} m`);
    expect(used).toBeGreaterThan(100);
    expect(Math.max(...cornersM)).toBeLessThan(5);
    // Both are laid on the same GPS track: same size within 3 %, same orientation within 2°.
    expect(Math.abs(scale - 1)).toBeLessThan(0.03);
    expect(Math.abs(turnDeg)).toBeLessThan(2);
  });

  it('aligns neighbouring photos along the seams, as re-matched in the output', () => {
    // Issue 10's target, measured on the output: each pair drawn alone around its seam, features found
    // again and refined by correlation. The forest canopy, seen from two places 20 m apart, rarely
    // correlates; the lawns, roads and beach do.
    const check = mosaic.rematchedSeams!;
    console.log(`brighton_beach seams: re-matched ${check.medianPx.toFixed(2)} px over ${check.matches} features on ${check.pairs} seams; pipeline's estimate ${mosaic.medianMisalignmentPx.toFixed(2)} px (${(mosaic.gsdM * 100).toFixed(2)} cm pixels)`);
    expect(check.matches).toBeGreaterThan(1000);
    expect(check.pairs).toBeGreaterThanOrEqual(15);
    expect(check.medianPx).toBeGreaterThan(0);
    expect(check.medianPx).toBeLessThanOrEqual(3);
  });

  it('stores the sampled seam check measured on the output, in agreement with the full one', () => {
    // What the pipeline stores with each scan (one seam per photo, from quarter-size decodings).
    const { seams } = mosaic;
    console.log(`brighton_beach sampled seams: median ${seams.medianPx.toFixed(2)} px, p95 ${seams.p95Px.toFixed(2)} px, worst seam ${seams.worstSeamPx.toFixed(2)} px over ${seams.matches} features on ${seams.pairs} seams`);
    expect(mosaic.medianMisalignmentPx).toBe(seams.medianPx);
    expect(seams.pairs).toBeGreaterThanOrEqual(8);
    expect(seams.matches).toBeGreaterThan(200);
    expect(seams.medianPx).toBeGreaterThan(0);
    expect(seams.medianPx).toBeLessThanOrEqual(3);
    expect(Math.abs(seams.medianPx - mosaic.rematchedSeams!.medianPx)).toBeLessThan(1);
  });
});

describe('decodeScale', () => {
  it('decodes photos as coarsely as the output grid allows, never coarser than about 10 % past it', () => {
    expect(decodeScale(0.025, 0.025)).toBe(1);
    expect(decodeScale(0.025, 0.04)).toBe(1); // half-size pixels would be 0.05 m: too coarse for 0.04
    expect(decodeScale(0.025, 0.05)).toBe(0.5);
    expect(decodeScale(0.0247, 0.118)).toBe(0.25); // 200 photos of 20 MP under a 25 MP cap
    expect(decodeScale(0.01, 1)).toBe(0.125); // the decoder shrinks by 8 at most
    for (const [native, out] of [[0.02, 0.03], [0.02, 0.07], [0.03, 0.5]] as const) {
      expect(native / decodeScale(native, out)).toBeLessThanOrEqual(out / 0.9 + 1e-12);
    }
  });
});
