// Photos all of one spot with GPS and nothing else (no DJI XMP, no lens data): a drone hovering while
// it shoots, drifting a few metres, its GPS noisier than its moves. Each photo is a window of a real
// NAIP tile (red, green, blue; each tile pixel taken as `gsdM` metres) around the true position,
// turned to the camera's true heading. The pipeline guesses such photos' height (100 m) and field of
// view (84°), so `gsdM` defaults to what that guess gives a 640 px photo.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { seededRandom } from '@/lib/drone/crop-set';
import { utmFrame } from '@/lib/drone/frame';

export interface HoverSurveyOptions {
  naipPath: string;
  dir: string;
  photos: number;
  /** Camera heading, degrees clockwise from north, the same for every photo but for `headingJitterDeg`. */
  headingDeg: number;
  headingJitterDeg?: number;
  /** Standard deviation of each step of the hover's random walk (m). */
  driftStepM?: number;
  gpsNoiseM?: number;
  gsdM?: number;
  seed?: number;
}

export interface HoverSurvey {
  files: string[];
  /** True position of each photo's centre, metres east and north of the first photo's. */
  trueEN: [number, number][];
  /** True heading of each photo (degrees clockwise from north). */
  headingDeg: number[];
  gsdM: number;
}

const W = 640, H = 480;
/** 100 m and 84° over 640 px: what the pipeline guesses for photos with no height or lens data. */
const GUESSED_GSD_M = (2 * 100 * Math.tan((42 * Math.PI) / 180)) / W;

/** The tile's red, green and blue enlarged twice (a photo must fit in it whichever way it turns), with fine texture for features to hold on. */
async function texturedWorld(naipPath: string): Promise<{ data: Buffer; width: number; height: number }> {
  const naip = await sharp(naipPath).raw().toBuffer({ resolveWithObject: true });
  const { width: nw, height: nh, channels } = naip.info;
  const rgb = Buffer.alloc(nw * nh * 3);
  for (let i = 0; i < nw * nh; i++) for (let b = 0; b < 3; b++) rgb[i * 3 + b] = naip.data[i * channels + b]!;
  const [width, height] = [2 * nw, 2 * nh];
  const enlarged = await sharp(rgb, { raw: { width: nw, height: nh, channels: 3 } }).resize(width, height, { kernel: 'cubic' }).png().toBuffer();
  const texture = await sharp({ create: { width, height, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 40 } } }).blur(1).png().toBuffer();
  const data = await sharp(enlarged).composite([{ input: texture, blend: 'overlay' }]).removeAlpha().raw().toBuffer();
  return { data, width, height };
}

export async function makeHoverSurvey(o: HoverSurveyOptions): Promise<HoverSurvey> {
  const gsd = o.gsdM ?? GUESSED_GSD_M;
  const { uniform: rand, normal: gauss } = seededRandom(o.seed ?? 5);
  const rgb = await texturedWorld(o.naipPath);
  const { width: ww, height: wh } = rgb;
  const frame = utmFrame(17.1, 48.1);
  const [E0, N0] = frame.toUtm(17.1, 48.1);
  mkdirSync(o.dir, { recursive: true });
  const windowPx = Math.ceil(Math.hypot(W, H)) + 8;
  const files: string[] = [], trueEN: [number, number][] = [], headingDeg: number[] = [], args: string[] = [];
  let [e, n] = [0, 0];
  for (let k = 0; k < o.photos; k++) {
    if (k) [e, n] = [e + (o.driftStepM ?? 0.7) * gauss(), n + (o.driftStepM ?? 0.7) * gauss()];
    const heading = o.headingDeg + (o.headingJitterDeg ?? 1) * gauss();
    // The tile's centre is the first photo's; image rows run south.
    const cx = ww / 2 + e / gsd, cy = wh / 2 - n / gsd;
    const { data, info } = await sharp(rgb.data, { raw: { width: ww, height: wh, channels: 3 } })
      .extract({ left: Math.round(cx - windowPx / 2), top: Math.round(cy - windowPx / 2), width: windowPx, height: windowPx })
      .rotate(-heading, { background: '#000000' })
      .raw()
      .toBuffer({ resolveWithObject: true });
    const file = join(o.dir, `IMG_${String(k + 1).padStart(4, '0')}.JPG`);
    await sharp(data, { raw: { width: info.width, height: info.height, channels: 3 } })
      .extract({ left: Math.round((info.width - W) / 2), top: Math.round((info.height - H) / 2), width: W, height: H })
      .modulate({ brightness: 0.95 + 0.1 * rand() })
      .jpeg({ quality: 90 })
      .toFile(file);
    const noise = (o.gpsNoiseM ?? 1.5) / Math.SQRT2;
    const [lon, lat] = frame.toWgs84(E0 + e + noise * gauss(), N0 + n + noise * gauss());
    const sec = String(k % 60).padStart(2, '0'), min = String(10 + Math.floor(k / 60)).padStart(2, '0');
    args.push('-Make=Generic', '-Model=Hover', `-DateTimeOriginal=2024:06:15 10:${min}:${sec}`,
      `-GPSLatitude=${lat}`, '-GPSLatitudeRef=N', `-GPSLongitude=${lon}`, '-GPSLongitudeRef=E',
      `-GPSAltitude=${(250 + 0.5 * gauss()).toFixed(1)}`, '-GPSAltitudeRef=0', '-overwrite_original', file, '-execute');
    files.push(file);
    trueEN.push([e, n]);
    headingDeg.push(heading);
  }
  writeFileSync(join(o.dir, 'exiftool.args'), args.join('\n') + '\n');
  execFileSync('exiftool', ['-q', '-q', '-@', join(o.dir, 'exiftool.args')], { stdio: 'pipe' });
  return { files, trueEN, headingDeg, gsdM: gsd };
}
