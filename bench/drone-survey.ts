// Generated DJI surveys of 20 MP photos for the drone bench (50 and 200 photos): a serpentine flight
// at 90 m over a world made from a real NAIP tile (RGB, each 5 m pixel taken as 0.85 m) enlarged to
// 10 cm and given fine texture (blurred noise, the same for every photo that sees a spot, so that
// features match as on a real field). Each photo is the world turned to the logged heading (plus
// 2° of error), cut to a Phantom 4 Pro frame (FC6310: 8.8 mm lens, 13.2 mm sensor, 5472 x 3648) and
// written as a JPEG with the EXIF GPS (3 m of noise) and DJI XMP that a Phantom writes. Surveys are
// cached in the system temp folder: they take a minute or two to make.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { seededRandom } from '@/lib/drone/crop-set';
import { utmFrame } from '@/lib/drone/frame';

const PHOTO_W = 5472, PHOTO_H = 3648;
const FOCAL_MM = 8.8, SENSOR_W_MM = 13.2;
const HEIGHT_M = 90;
const GSD = (SENSOR_W_MM / PHOTO_W) * (HEIGHT_M / FOCAL_MM); // 2.47 cm
const WORLD_M_PER_NAIP_PX = 0.85;
const WORLD_P = 0.1; // metres per world pixel

interface World {
  raw: Buffer;
  width: number;
  height: number;
}

async function makeWorld(naipPath: string): Promise<World> {
  // NAIP's fourth band (NIR) would read as alpha: keep red, green and blue.
  const naip = await sharp(naipPath).raw().toBuffer({ resolveWithObject: true });
  const { width: nw, height: nh, channels } = naip.info;
  const rgb = Buffer.alloc(nw * nh * 3);
  for (let i = 0; i < nw * nh; i++) for (let b = 0; b < 3; b++) rgb[i * 3 + b] = naip.data[i * channels + b]!;
  const base = await sharp(rgb, { raw: { width: nw, height: nh, channels: 3 } }).png().toBuffer();
  const width = Math.round((nw * WORLD_M_PER_NAIP_PX) / WORLD_P);
  const height = Math.round((nh * WORLD_M_PER_NAIP_PX) / WORLD_P);
  const enlarged = await sharp(base).resize(width, height, { kernel: 'cubic' }).png().toBuffer();
  const texture = await sharp({ create: { width, height, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 60 } } }).blur(1.5).png().toBuffer();
  const raw = await sharp(enlarged).composite([{ input: texture, blend: 'overlay' }]).removeAlpha().raw().toBuffer();
  return { raw, width, height };
}

/** Lines and photos per line for a survey of about `photos` photos. */
function grid(photos: number): [number, number] {
  return photos >= 200 ? [10, 20] : photos >= 50 ? [5, 10] : [2, Math.ceil(photos / 2)];
}

export async function generatedSurvey(naipPath: string, photos: number, seed = 11): Promise<string> {
  const dir = join(tmpdir(), `fieldmap-bench-survey-${photos}-${seed}`);
  const done = `${dir}.complete`;
  if (existsSync(done)) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const world = await makeWorld(naipPath);
  const { uniform: rand, normal: gauss } = seededRandom(seed);
  const frame = utmFrame(17.1, 48.1);
  const [E0, N0] = frame.toUtm(17.1, 48.1);

  // Lines run east-west; 70 % forward and 65 % side overlap. The photo's long side lies across the line.
  const footW = PHOTO_W * GSD, footH = PHOTO_H * GSD;
  const along = footH * 0.3, across = footW * 0.35;
  const [lines, perLine] = grid(photos);
  const spanE = (perLine - 1) * along, spanN = (lines - 1) * across;
  const worldW = world.width * WORLD_P, worldH = world.height * WORLD_P;
  const startE = (worldW - spanE) / 2, startN = (worldH - spanN) / 2;
  const args: string[] = [];
  const cropW = Math.round((PHOTO_W * GSD) / WORLD_P), cropH = Math.round((PHOTO_H * GSD) / WORLD_P);
  const windowPx = Math.ceil(Math.hypot(cropW, cropH)) + 8;
  let k = 0;
  for (let line = 0; line < lines; line++) {
    for (let i = 0; i < perLine; i++, k++) {
      const x = startE + (line % 2 ? perLine - 1 - i : i) * along;
      const y = startN + line * across;
      const heading = line % 2 ? 270 : 90;
      const trueHeading = heading + 2 * gauss();
      // The world window around the photo centre, turned so that the heading points up.
      const left = Math.round(x / WORLD_P - windowPx / 2), top = Math.round(y / WORLD_P - windowPx / 2);
      const { data, info } = await sharp(world.raw, { raw: { width: world.width, height: world.height, channels: 3 } })
        .extract({ left, top, width: windowPx, height: windowPx })
        .rotate(-trueHeading, { background: '#000000' })
        .raw()
        .toBuffer({ resolveWithObject: true });
      const file = join(dir, `DJI_${String(k + 1).padStart(4, '0')}.JPG`);
      await sharp(data, { raw: { width: info.width, height: info.height, channels: 3 } })
        .extract({ left: Math.round((info.width - cropW) / 2), top: Math.round((info.height - cropH) / 2), width: cropW, height: cropH })
        .resize(PHOTO_W, PHOTO_H, { kernel: 'cubic' })
        .modulate({ brightness: 0.9 + 0.2 * rand() })
        .jpeg({ quality: 88 })
        .toFile(file);
      const noise = 3 / Math.SQRT2;
      const [lon, lat] = frame.toWgs84(E0 + x + noise * gauss(), N0 - y + noise * gauss());
      const xmp = join(dir, `x${k}.xmp`);
      writeFileSync(xmp, `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:drone-dji="http://www.dji.com/drone-dji/1.0/"
 drone-dji:RelativeAltitude="+${HEIGHT_M.toFixed(2)}" drone-dji:GimbalYawDegree="${heading.toFixed(1)}" drone-dji:GimbalPitchDegree="-90.0"
 drone-dji:GimbalRollDegree="0.0" drone-dji:FlightYawDegree="${heading.toFixed(1)}"/>
</rdf:RDF></x:xmpmeta><?xpacket end="w"?>`);
      const sec = String(k % 60).padStart(2, '0'), min = String(10 + Math.floor(k / 60)).padStart(2, '0');
      args.push(`-XMP<=${xmp}`, '-Make=DJI', '-Model=FC6310', `-DateTimeOriginal=2024:06:15 10:${min}:${sec}`,
        `-GPSLatitude=${lat}`, '-GPSLatitudeRef=N', `-GPSLongitude=${lon}`, '-GPSLongitudeRef=E',
        `-GPSAltitude=${(150 + HEIGHT_M).toFixed(1)}`, '-GPSAltitudeRef=0', `-FocalLength=${FOCAL_MM}`, '-FocalLengthIn35mmFormat=24',
        '-overwrite_original', file, '-execute');
    }
  }
  writeFileSync(join(dir, 'exiftool.args'), args.join('\n') + '\n');
  execFileSync('exiftool', ['-q', '-q', '-@', join(dir, 'exiftool.args')], { stdio: 'pipe' });
  for (const f of readdirSync(dir)) if (!f.endsWith('.JPG')) rmSync(join(dir, f));
  writeFileSync(done, '');
  return dir;
}
