// Surveys whose photos have GPS but no DJI XMP (no heading, no height above take-off): non-DJI drones,
// or DJI photos re-saved by software that drops XMP. brighton_beach's photos are stripped of their XMP
// segment here, shuffled as a ZIP may hold them, and turned as a camera mounted across or against the
// track would see the ground; each mosaic must lie where the one made with XMP lies.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { readDroneExif, type DronePhoto } from '@/lib/drone/exif';
import { detectFeatures, guidedMatches, orbFeatures } from '@/lib/drone/features';
import { utmFrame } from '@/lib/drone/frame';
import { openCv } from '@/lib/drone/opencv';
import { buildOrthomosaic, type Mosaic } from '@/lib/drone/ortho';
import { mosaicOnGrid } from '../../helpers/mosaic-grid';
import { baselineFactors, factorHeadingDeg, flightOrder, headingsDeg, isNadirMotion, motionTurnDeg, spreadPairs, trackPriors } from '@/lib/drone/track';
import { lasTopView, type TopView } from '../../helpers/point-cloud';
import { missingShared, sharedPath } from '../../helpers/shared-data';

const skip = missingShared('drone', 'brighton_beach', 'images') ?? missingShared('drone', 'brighton_beach', 'model.laz');
if (skip) console.warn(skip);
const dir = sharedPath('drone', 'brighton_beach', 'images');
const tmp = mkdtempSync(join(tmpdir(), 'drone-noxmp-'));

const XMP_ID = Buffer.from('http://ns.adobe.com/xap/1.0/\0');

/** The JPEG without its XMP segment (APP1 starting with Adobe's XMP namespace); EXIF and pixels untouched. */
function withoutXmp(jpeg: Buffer): Buffer {
  const kept: Buffer[] = [jpeg.subarray(0, 2)];
  let at = 2;
  // Header segments (marker, 2-byte length) up to the start of scan, which runs to the end.
  while (at + 4 <= jpeg.length && jpeg[at] === 0xff && jpeg[at + 1] !== 0xda) {
    const end = at + 2 + jpeg.readUInt16BE(at + 2);
    const isXmp = jpeg[at + 1] === 0xe1 && jpeg.subarray(at + 4, at + 4 + XMP_ID.length).equals(XMP_ID);
    if (!isXmp) kept.push(jpeg.subarray(at, end));
    at = end;
  }
  kept.push(jpeg.subarray(at));
  return Buffer.concat(kept);
}

/** The same photo with its pixels turned clockwise (90 or 180°): what a camera mounted that much to the left would see. */
async function turnedPhoto(p: DronePhoto, degrees: 90 | 180, folder: string): Promise<DronePhoto> {
  const path = join(folder, p.file);
  await sharp(p.path).rotate(degrees).jpeg({ quality: 92 }).toFile(path);
  return degrees === 180 ? { ...p, path }
    : { ...p, path, widthPx: p.heightPx, heightPx: p.widthPx, sensorWidthMm: p.sensorHeightMm, sensorHeightMm: p.sensorWidthMm };
}

/** The photo with DJI's XMP traded for Pix4D's camera tags of the same attitude (pitch 0 at nadir), as Parrot or Sentera write. */
async function pix4dPhoto(p: DronePhoto, folder: string): Promise<DronePhoto> {
  const path = join(folder, p.file);
  writeFileSync(path, withoutXmp(readFileSync(p.path)));
  const xmp = `${path}.xmp`;
  writeFileSync(xmp, `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:Camera="http://pix4d.com/camera/1.0/" Camera:Yaw="${p.gimbal!.yaw}" Camera:Pitch="${p.gimbal!.pitch + 90}" Camera:Roll="${p.gimbal!.roll}"/></rdf:RDF></x:xmpmeta><?xpacket end="w"?>`);
  execFileSync('exiftool', ['-q', '-overwrite_original', `-XMP<=${xmp}`, path]);
  const read = await readDroneExif(path);
  expect([read.gimbal, read.relativeAltitudeM]).toEqual([p.gimbal, null]);
  return read;
}

/** A fixed shuffle (not flight order, not reversed). */
const shuffled = <T>(xs: T[]) => xs.map((x, k) => ({ x, key: (k * 7) % xs.length })).sort((a, b) => a.key - b.key).map((o) => o.x);

const angleDiff = (a: number, b: number) => Math.abs((((a - b) % 360) + 540) % 360 - 180);
/** Difference of two directions as axes (a heading and its reverse are the same axis). */
const axisDiff = (a: number, b: number) => Math.min(angleDiff(a, b), 180 - angleDiff(a, b));

describe('track priors (pure parts)', () => {
  it('reads heading and ground size from an image motion and its GPS baseline', () => {
    // Photo j seen 400 px above i's centre (image up), 10 m to the east: the camera looks east, 2.5 cm a pixel.
    const [zi, zj] = baselineFactors([1, 0, 0, 0, 1, 400], [2000, 1500], [2000, 1500], [10, 0])!;
    expect(factorHeadingDeg(zi)).toBeCloseTo(90, 6);
    expect(factorHeadingDeg(zj)).toBeCloseTo(90, 6);
    expect(Math.hypot(...zi)).toBeCloseTo(0.025, 9);
    // The same with j turned 180° against i (a camera facing back on the return line).
    const [, back] = baselineFactors([-1, 0, 4000, 0, -1, 3000 - 400], [2000, 1500], [2000, 1500], [10, 0])!;
    expect(factorHeadingDeg(back)).toBeCloseTo(-90, 6);
    expect(baselineFactors([1, 0, 5, 0, 1, 5], [2000, 1500], [2000, 1500], [10, 0])).toBeNull();
  });

  it('accepts a turn and shift at about one scale as the motion between nadir photos, nothing skewed or mirrored', () => {
    const turn = (deg: number, s = 1) => [s * Math.cos((deg * Math.PI) / 180), -s * Math.sin((deg * Math.PI) / 180), 30, s * Math.sin((deg * Math.PI) / 180), s * Math.cos((deg * Math.PI) / 180), -40];
    expect([turn(3), turn(180), turn(-90, 1.1)].every(isNadirMotion)).toBe(true);
    expect(isNadirMotion(turn(10, 1.5))).toBe(false);
    expect(isNadirMotion([1, 0, 0, 0, -1, 0])).toBe(false);
    expect(isNadirMotion([1, 0.3, 0, 0, 1, 0])).toBe(false);
  });

  it('gives unmatched photos the heading the others keep to the track, or their fixed heading', () => {
    const track = [0, 0, 180, 180, 0, 0];
    const z = (deg: number): [number, number] => [Math.cos((-deg * Math.PI) / 180), Math.sin((-deg * Math.PI) / 180)];
    // Camera 90° right of the track on lines both ways: the unmatched photos 1 and 3 follow that.
    const across = headingsDeg([[z(90)], [], [z(270)], [], [z(90)], [z(90)]], track);
    expect(angleDiff(across[1]!, 90)).toBeLessThan(1e-9);
    expect(angleDiff(across[3]!, 270)).toBeLessThan(1e-9);
    // The aircraft keeping one heading whichever way it flies.
    const fixed = headingsDeg([[z(30)], [], [z(30)], [], [z(30)], []], track);
    expect(angleDiff(fixed[3]!, 30)).toBeLessThan(1e-9);
    expect(headingsDeg([[], []], [45, 45])).toEqual([45, 45]);
  });

  it('reads the turn between two photos\' headings from their image motion, as the ground factors give it', () => {
    const turn = (deg: number) => [Math.cos((deg * Math.PI) / 180), -Math.sin((deg * Math.PI) / 180), 100, Math.sin((deg * Math.PI) / 180), Math.cos((deg * Math.PI) / 180), 400];
    for (const deg of [20, -75, 170]) {
      const [zi, zj] = baselineFactors(turn(deg), [2000, 1500], [2000, 1500], [10, 3])!;
      expect(angleDiff(motionTurnDeg(turn(deg)), factorHeadingDeg(zj) - factorHeadingDeg(zi))).toBeLessThan(1e-9);
    }
  });

  it('holds photos of one spot at one heading when their turns show it, whichever way GPS noise points the track, and counts no turn along a straight line', () => {
    // A hover: the track points anywhere, the camera did not turn between consecutive photos.
    const track = [10, -150, 95, 170, -60, 30];
    const still = headingsDeg(track.map(() => []), track, [{ i: 0, j: 1, deg: 0.4 }, { i: 3, j: 4, deg: -0.8 }]);
    expect(still).toEqual([0, 0, 0, 0, 0, 0]);
    // A camera that turned as the track did keeps to the track, as with nothing measured.
    const along = headingsDeg(track.map(() => []), track, [{ i: 0, j: 1, deg: -160 }, { i: 3, j: 4, deg: 131 }]);
    expect(along).toEqual(track);
    // Lines flown both ways at a low height (GPS steps under 3 m), the camera turning with the aircraft:
    // turns of about 0° along a line fit either way and are not counted; the turn at the line's end is.
    const lines = [90, 92, 88, 91, -90, -88, -91, -89];
    expect(headingsDeg(lines.map(() => []), lines, [{ i: 0, j: 1, deg: 0.5 }, { i: 1, j: 2, deg: -0.3 }, { i: 5, j: 6, deg: 0.2 }])).toEqual(lines);
    const atEnd = headingsDeg(lines.map(() => []), lines, [{ i: 0, j: 1, deg: 0.5 }, { i: 3, j: 4, deg: 178 }, { i: 5, j: 6, deg: 0.2 }]);
    expect(atEnd).toEqual(lines);
    // A measured heading sets which fixed heading.
    const z = (deg: number): [number, number] => [Math.cos((-deg * Math.PI) / 180), Math.sin((-deg * Math.PI) / 180)];
    const named = headingsDeg([[z(200)], [], [], [], [], []], track, [{ i: 2, j: 3, deg: 0 }, { i: 4, j: 5, deg: 1 }]);
    named.forEach((h) => expect(angleDiff(h, 200)).toBeLessThan(1e-9));
  });

  it('spreads the matched pairs over the flight and orders photos by capture time', () => {
    expect(spreadPairs(5, 10)).toEqual([0, 1, 2, 3, 4]);
    expect(spreadPairs(199, 10)).toEqual([0, 22, 44, 66, 88, 110, 132, 154, 176, 198]);
    const at = (file: string, ms: number | null) => ({ path: `/z/${file}`, capturedAtMs: ms }) as DronePhoto;
    expect(flightOrder([at('c.jpg', 3000), at('b.jpg', 1000), at('a.jpg', 3000)])).toEqual([1, 2, 0]);
  });
});

describe.skipIf(skip)('brighton_beach without XMP', () => {
  const files = skip ? [] : readdirSync(dir).sort();
  let withXmp: DronePhoto[];
  let stripped: DronePhoto[];

  beforeAll(async () => {
    mkdirSync(join(tmp, 'stripped'));
    for (const f of files) writeFileSync(join(tmp, 'stripped', f), withoutXmp(readFileSync(join(dir, f))));
    withXmp = await Promise.all(files.map((f) => readDroneExif(join(dir, f))));
    stripped = await Promise.all(files.map((f) => readDroneExif(join(tmp, 'stripped', f))));
  }, 60_000);

  it('keeps GPS, optics and time when the XMP segment is gone, and nothing of XMP', () => {
    stripped.forEach((p, i) => {
      const ref = withXmp[i]!;
      expect([p.relativeAltitudeM, p.gimbal, p.flight]).toEqual([null, null, null]);
      expect(p.gps).toEqual(ref.gps);
      expect([p.focalLengthMm, p.sensorWidthMm, p.widthPx, p.capturedAtMs]).toEqual([ref.focalLengthMm, ref.sensorWidthMm, ref.widthPx, ref.capturedAtMs]);
    });
  });

  it('finds each photo\'s heading and the flying height from consecutive matches, in any ZIP order', async () => {
    const order = shuffled(files.map((_, i) => i));
    const photos = order.map((i) => stripped[i]!);
    const features = [];
    for (const p of photos) features.push(await detectFeatures(p.path, p.widthPx, p.heightPx));
    const frame = utmFrame(photos[0]!.gps!.lon, photos[0]!.gps!.lat);
    const priors = await trackPriors(photos, features, photos.map((p) => frame.toUtm(p.gps!.lon, p.gps!.lat)));
    photos.forEach((p, k) => {
      const ref = withXmp[order[k]!]!;
      // DJI logged the return line 180° off (the camera kept facing north-east): compare the axis.
      expect(axisDiff(priors.headingDeg[k]!, ref.gimbal!.yaw)).toBeLessThan(10);
      expect(priors.headingDeg[k]).toBeGreaterThan(30);
      expect(priors.headingDeg[k]).toBeLessThan(60);
      expect(Math.abs(priors.heightM![k]! / ref.relativeAltitudeM! - 1)).toBeLessThan(0.06);
    });
  }, 120_000);

  describe('mosaics', () => {
    // Output at 6 cm pixels (about 7 MP): placement is compared in metres, and four builds must fit the run.
    const build = async (name: string, photos: DronePhoto[]) => {
      const started = Date.now();
      const mosaic = await buildOrthomosaic(photos, { workDir: join(tmp, name), resolutionM: 0.06 });
      return { mosaic, seconds: (Date.now() - started) / 1000 };
    };
    let ref: Awaited<ReturnType<typeof build>>;

    let refView: GridView;
    let cloud: TopView;

    beforeAll(async () => {
      ref = await build('xmp', withXmp);
      refView = onGrid(ref.mosaic, gridOf(ref.mosaic));
      cloud = await lasTopView(sharedPath('drone', 'brighton_beach', 'model.laz'), CELL_M);
      const odm = await placementBetween(cloud, onGrid(ref.mosaic, cloud));
      console.log(`brighton_beach with XMP: ${ref.seconds.toFixed(1)} s, ${(ref.mosaic.gsdM * 100).toFixed(2)} cm, seams ${ref.mosaic.medianMisalignmentPx.toFixed(2)} px; against ODM: ${describePlacement(odm)}`);
    }, 600_000);

    const variants: [string, () => Promise<DronePhoto[]>][] = [
      ['without XMP, shuffled', async () => shuffled(stripped)],
      ['without XMP, camera turned 90°', async () => {
        mkdirSync(join(tmp, 'turned90'));
        return Promise.all(stripped.map((p) => turnedPhoto(p, 90, join(tmp, 'turned90'))));
      }],
      ['without XMP, camera turned 180°', async () => {
        mkdirSync(join(tmp, 'turned180'));
        return Promise.all(stripped.map((p) => turnedPhoto(p, 180, join(tmp, 'turned180'))));
      }],
      ['with Pix4D\'s camera tags instead (no height above take-off)', async () => {
        mkdirSync(join(tmp, 'pix4d'));
        return Promise.all(withXmp.map((p) => pix4dPhoto(p, join(tmp, 'pix4d'))));
      }],
    ];
    it.each(variants)('%s lies where the XMP mosaic lies', async (name, photos) => {
      const { mosaic, seconds } = await build(name.replace(/\W+/g, '-'), await photos());
      const agreement = await placementBetween(refView, onGrid(mosaic, refView));
      const odm = await placementBetween(cloud, onGrid(mosaic, cloud));
      const centres = centreOffsetsM(ref.mosaic, mosaic);
      console.log(`brighton_beach ${name}: ${seconds.toFixed(1)} s, seams ${mosaic.medianMisalignmentPx.toFixed(2)} px; against XMP: ${describePlacement(agreement)}, photo centres median ${centres.median.toFixed(2)} m, max ${centres.max.toFixed(2)} m; against ODM: ${describePlacement(odm)}`);
      expect(mosaic.photoCount).toBe(18);
      expect(agreement.used).toBeGreaterThan(100);
      expect(agreement.centreM).toBeLessThan(1.5);
      expect(Math.max(...agreement.cornersM)).toBeLessThan(3);
      expect(Math.abs(agreement.scale - 1)).toBeLessThan(0.03);
      expect(Math.abs(agreement.turnDeg)).toBeLessThan(1.5);
      expect(mosaic.medianMisalignmentPx).toBeLessThanOrEqual(3);
      // As the XMP mosaic does against the point cloud ODM made from these photos (drone-ortho.test.ts).
      expect(Math.max(...odm.cornersM)).toBeLessThan(5);
      expect(Math.abs(odm.scale - 1)).toBeLessThan(0.03);
      expect(Math.abs(odm.turnDeg)).toBeLessThan(2);
    }, 600_000);
  });
});

/** Distances from each photo centre of `other` to the nearest of `ref` (the shuffled survey lists its photos in another order). */
function centreOffsetsM(ref: Mosaic, other: Mosaic): { median: number; max: number } {
  const frame = utmFrame(...ref.photoCentresWgs84[0]!);
  const refs = ref.photoCentresWgs84.map((c) => frame.toUtm(...c));
  const d = other.photoCentresWgs84.map((c) => {
    const [e, n] = frame.toUtm(...c);
    return Math.min(...refs.map(([re, rn]) => Math.hypot(e - re, n - rn)));
  }).sort((a, b) => a - b);
  return { median: d[d.length >> 1]!, max: d.at(-1)! };
}

const CELL_M = 0.2;

/** A north-up grid of CELL_M cells and what an image shows in each (`filled`: 255 where it shows something). */
interface GridView { x0: number; y0: number; width: number; height: number; rgb: Uint8Array; filled: Uint8Array }

/** A mosaic's colours averaged into the cells of a grid (only cells it covers entirely). */
const onGrid = (m: Mosaic, grid: Pick<GridView, 'x0' | 'y0' | 'width' | 'height'>): GridView => ({ ...grid, ...mosaicOnGrid(readFileSync(m.rawPath), m, { ...grid, cell: CELL_M }) });

/** The XMP mosaic's extent as a grid. */
const gridOf = (m: Mosaic) => {
  const [x0, gsd, , y0] = m.geoTransform;
  return { x0, y0, width: Math.floor((m.width * gsd) / CELL_M), height: Math.floor((m.height * gsd) / CELL_M) };
};

interface Placement { used: number; centreM: number; cornersM: number[]; scale: number; turnDeg: number }

const describePlacement = (p: Placement) =>
  `centre ${p.centreM.toFixed(2)} m, extent corners ${p.cornersM.map((d) => d.toFixed(2)).join(', ')} m, scale ${p.scale.toFixed(4)}, turn ${p.turnDeg.toFixed(2)}° (${p.used} matches)`;

/**
 * Where `b` shows what `a` shows, both on one grid, matched by features: the affine transform between
 * them carries the grid's centre and corners (distances in metres), with its scale and turn.
 */
async function placementBetween(a: GridView, b: GridView): Promise<Placement> {
  const [fa, fb] = await Promise.all([orbFeatures(a.rgb, a.width, a.height, 3, 1, a.filled), orbFeatures(b.rgb, b.width, b.height, 3, 1, b.filled)]);
  const identity = { a: 1, b: 0, tx: 0, ty: 0 };
  const found = guidedMatches(fa, identity, [0, 0], fb, identity, [0, 0], 10 / CELL_M);
  const { cv } = await openCv();
  const from = cv.matFromArray(found.length, 1, cv.CV_32FC2, found.flatMap(([p]) => [fa.points[2 * p]!, fa.points[2 * p + 1]!]));
  const to = cv.matFromArray(found.length, 1, cv.CV_32FC2, found.flatMap(([, q]) => [fb.points[2 * q]!, fb.points[2 * q + 1]!]));
  const inliers = new cv.Mat();
  const affine = cv.estimateAffine2D(from, to, inliers, cv.RANSAC, 1 / CELL_M, 2000, 0.995, 10);
  try {
    const [m00, m01, m02, m10, m11, m12] = Array.from(affine.data64F as Float64Array) as number[];
    const moved = ([c, r]: [number, number]) => Math.hypot(m00! * c + m01! * r + m02! - c, m10! * c + m11! * r + m12! - r) * CELL_M;
    return {
      used: (inliers.data as Uint8Array).reduce((s, v) => s + v, 0),
      centreM: moved([a.width / 2, a.height / 2]),
      cornersM: ([[0, 0], [a.width, 0], [0, a.height], [a.width, a.height]] as [number, number][]).map(moved),
      scale: Math.sqrt(m00! * m11! - m01! * m10!),
      turnDeg: (Math.atan2(m10! - m01!, m00! + m11!) * 180) / Math.PI,
    };
  } finally {
    [from, to, inliers, affine].forEach((m) => m.delete());
  }
}
