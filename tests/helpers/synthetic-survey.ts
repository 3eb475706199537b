// A drone survey with known truth, cut from a real 4-band image (NAIP: red, green, blue, NIR): a
// serpentine flight grid of multispectral captures (one TIFF per band, XMP BandName + CaptureUUID,
// like a DJI P4 Multispectral), each frame rotated a little off its logged heading, with a slight
// perspective tilt, its own exposure and GPS noise, and the EXIF/XMP a drone writes (exiftool); the
// bands are 16-bit counts with the black level, vignetting and sunlight reading of a real camera.
// Variants: the same bands without calibration tags, or one 16-bit RGB TIFF a capture (SurveyOptions.camera).
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromFile } from 'geotiff';
import { utmFrame } from '@/lib/drone/frame';

export interface SurveyTruth {
  dir: string;
  files: string[];
  /** True ground point under each capture's image centre, [lon, lat], in capture order. */
  centres: [number, number][];
  /** World raster (NAIP bands) and its placement: pixel (c, r) centre at E0 + (c + 0.5)·P, N0 - (r + 0.5)·P. */
  world: { width: number; height: number; bands: Uint8Array[]; E0: number; N0: number; P: number; epsg: number };
  /** NDVI stats of the world inside a field given in world pixels. */
  ndviInside(c0: number, r0: number, c1: number, r1: number): { mean: number; std: number; median: number };
  fieldWgs84(c0: number, r0: number, c1: number, r1: number): { type: 'Polygon'; coordinates: [number, number][][] };
}

export interface SurveyOptions {
  naipPath: string;
  dir: string;
  /** World metres per NAIP pixel (the tile is treated as a finer image of a smaller area). */
  pixelM?: number;
  gpsNoiseM?: number;
  seed?: number;
  /** Limit to these capture indices (broken-input cases). */
  only?: number[];
  /** Capture date per capture index (default all on 2024-06-15). */
  dateOf?: (k: number) => string;
  /**
   * What the camera writes: `p4m` (default) the calibrated P4 Multispectral bands; `uncalibrated` the
   * same band TIFFs with no calibration tags and 12-bit counts proportional to reflectance in 16-bit
   * files (as MicaSense or Sequoia bands read without their calibration); `rgb16` one 16-bit RGB TIFF
   * a capture (red, green, blue), 12-bit counts too.
   */
  camera?: 'p4m' | 'uncalibrated' | 'rgb16';
}

/** Why a synthetic survey cannot be written here (exiftool writes its EXIF/XMP), or undefined. */
export function missingExiftool(): string | undefined {
  try {
    execFileSync('exiftool', ['-ver']);
    return undefined;
  } catch {
    return 'exiftool not installed (apt-get install libimage-exiftool-perl): synthetic survey cannot be written';
  }
}

const W = 800, H = 600, HEIGHT_M = 100, GSD = 0.25;
const BANDS = ['Red', 'Green', 'Blue', 'NIR'];
/**
 * What each band's camera records, as a P4 Multispectral does (its image processing guide's example
 * vignetting polynomial): 16-bit counts above a black level of 4096, darker towards the edges, with
 * its own gain, exposure (µs), sunlight reading and sensitivity adjustment.
 */
const VIGNETTING = [0.000218235, 1.20722e-6, -2.8676e-9, 5.1742e-12, -4.16853e-15, 1.36962e-18];
const VIGNETTING_CENTRE = [W / 2 + 3, H / 2 - 2] as const;
const BLACK_LEVEL = 4096;
const CAMERA = [
  { gain: 1, exposureUs: 1000, irradiance: 2100, pCam: 1 },
  { gain: 1, exposureUs: 1200, irradiance: 2000, pCam: 1.02 },
  { gain: 2, exposureUs: 600, irradiance: 1800, pCam: 0.98 },
  { gain: 1, exposureUs: 2500, irradiance: 1500, pCam: 1 },
];
/** Reflectance of a world pixel value of 255. */
const REFLECTANCE_PER_DN = 0.2 / 255;

/** Raw counts a band's camera records for reflectance `ref` at pixel (u, v). */
function recordedCounts(band: number, ref: number, u: number, v: number): number {
  const c = CAMERA[band]!;
  const r = Math.hypot(u - VIGNETTING_CENTRE[0], v - VIGNETTING_CENTRE[1]);
  const vignetting = 1 + VIGNETTING.reduceRight((f, k) => (f + k) * r, 0);
  const counts = BLACK_LEVEL + (ref * c.irradiance * c.gain * (c.exposureUs / 1e6) * 65535) / c.pCam / vignetting;
  return Math.min(65535, Math.round(counts));
}

/** Counts per unit of reflectance of the uncalibrated cameras: 0.2 (a world value of 255) is 3400 of a 12-bit 4095. */
const COUNTS_PER_REFLECTANCE = 17_000;

/** A 16-bit TIFF of `bands` pixel-interleaved bands through GDAL (sharp writes 16 bits from raw input only scaled). */
function writeUint16Tiff(file: string, px: Uint16Array, bands = 1): void {
  writeFileSync(`${file}.raw`, Buffer.from(px.buffer, px.byteOffset, px.byteLength));
  const bandXml = Array.from({ length: bands }, (_, b) => `<VRTRasterBand dataType="UInt16" band="${b + 1}" subClass="VRTRawRasterBand">
<SourceFilename relativeToVRT="0">${file}.raw</SourceFilename><ImageOffset>${2 * b}</ImageOffset><PixelOffset>${2 * bands}</PixelOffset><LineOffset>${2 * bands * W}</LineOffset><ByteOrder>LSB</ByteOrder>
</VRTRasterBand>`).join('');
  writeFileSync(`${file}.vrt`, `<VRTDataset rasterXSize="${W}" rasterYSize="${H}">${bandXml}</VRTDataset>`);
  execFileSync('gdal_translate', ['-q', '-co', 'COMPRESS=DEFLATE', ...(bands === 3 ? ['-co', 'PHOTOMETRIC=RGB'] : []), `${file}.vrt`, file]);
  rmSync(`${file}.raw`);
  rmSync(`${file}.vrt`);
}

function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

export async function makeSyntheticSurvey(opts: SurveyOptions): Promise<SurveyTruth> {
  const P = opts.pixelM ?? 0.5;
  const camera = opts.camera ?? 'p4m';
  const counts = (b: number, ref: number, u: number, v: number) =>
    camera === 'p4m' ? recordedCounts(b, ref, u, v) : Math.min(65535, Math.round(ref * COUNTS_PER_REFLECTANCE));
  const noise = opts.gpsNoiseM ?? 3;
  const rand = rng(opts.seed ?? 7);
  const gauss = () => Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand());
  const tiff = await fromFile(opts.naipPath);
  const image = await tiff.getImage();
  const ww = image.getWidth(), wh = image.getHeight();
  const bands = (await image.readRasters()) as unknown as Uint8Array[];
  // The world sits in UTM 33N (western Slovakia), origin at its north-west corner.
  const frame = utmFrame(17.1, 48.1);
  const [E0, N0] = frame.toUtm(17.1, 48.1);
  mkdirSync(opts.dir, { recursive: true });

  const sample = (b: Uint8Array, x: number, y: number) => {
    const xi = Math.floor(x), yi = Math.floor(y);
    if (xi < 0 || yi < 0 || xi + 1 >= ww || yi + 1 >= wh) return 0;
    const fx = x - xi, fy = y - yi;
    return (b[yi * ww + xi]! * (1 - fx) + b[yi * ww + xi + 1]! * fx) * (1 - fy) + (b[(yi + 1) * ww + xi]! * (1 - fx) + b[(yi + 1) * ww + xi + 1]! * fx) * fy;
  };

  // Serpentine lines running east-west, 70 % forward and 65 % side overlap.
  const along = H * GSD * 0.3, across = W * GSD * 0.35;
  const worldW = ww * P, worldH = wh * P;
  const plan: { e: number; n: number; heading: number }[] = [];
  for (let line = 0, y = W * GSD * 0.5 + 5; y < worldH - W * GSD * 0.5 - 5; line++, y += across) {
    const xs: number[] = [];
    for (let x = H * GSD * 0.5 + 5; x < worldW - H * GSD * 0.5 - 5; x += along) xs.push(x);
    if (line % 2) xs.reverse();
    for (const x of xs) plan.push({ e: E0 + x, n: N0 - y, heading: line % 2 ? 270 : 90 });
  }

  const files: string[] = [];
  const centres: [number, number][] = [];
  const args: string[] = [];
  const indices = opts.only ?? plan.map((_, k) => k);
  for (const k of indices) {
    const { e, n, heading } = plan[k]!;
    const trueHeading = heading + 3 * gauss();
    const tilt = 0.02 * gauss(); // relative scale change from top to bottom of the frame
    const gain = 0.85 + 0.3 * rand();
    const th = (-trueHeading * Math.PI) / 180;
    const [ca, sa] = [Math.cos(th), Math.sin(th)];
    const uuid = `synthetic-${opts.seed ?? 7}-${k}`;
    const out = BANDS.map(() => new Uint16Array(W * H));
    for (let v = 0; v < H; v++) {
      const y = H / 2 - v - 0.5;
      const s = GSD * (1 + tilt * (y / (H / 2)));
      for (let u = 0; u < W; u++) {
        const x = u + 0.5 - W / 2;
        const ge = e + s * (ca * x - sa * y), gn = n + s * (sa * x + ca * y);
        const wx = (ge - E0) / P - 0.5, wy = (N0 - gn) / P - 0.5;
        for (let b = 0; b < 4; b++) out[b]![v * W + u] = counts(b, sample(bands[b]!, wx, wy) * gain * REFLECTANCE_PER_DN, u, v);
      }
    }
    const [lonT, latT] = frame.toWgs84(e, n);
    centres.push([lonT, latT]);
    const r = noise / Math.SQRT2;
    const [lon, lat] = frame.toWgs84(e + r * gauss(), n + r * gauss());
    const date = opts.dateOf?.(k) ?? '2024:06:15';
    const sec = String(k % 60).padStart(2, '0'), min = String(10 + Math.floor(k / 60)).padStart(2, '0');
    const tags = (file: string, xmp: string) => args.push(`-XMP<=${xmp}`, ...(camera === 'p4m' ? ['-Make=DJI', '-Model=P4 Multispectral'] : ['-Make=Generic', '-Model=Survey16']),
      `-DateTimeOriginal=${date} 10:${min}:${sec}`, '-OffsetTimeOriginal=+02:00',
      `-GPSLatitude=${Math.abs(lat)}`, `-GPSLatitudeRef=${lat < 0 ? 'S' : 'N'}`, `-GPSLongitude=${Math.abs(lon)}`, `-GPSLongitudeRef=${lon < 0 ? 'W' : 'E'}`,
      `-GPSAltitude=${(200 + HEIGHT_M).toFixed(1)}`, '-GPSAltitudeRef=0', '-FocalLength=4.0', '-FocalPlaneXResolution=100', '-FocalPlaneYResolution=100',
      '-FocalPlaneResolutionUnit#=4', '-overwrite_original', file, '-execute');
    const attitude = `drone-dji:RelativeAltitude="+${HEIGHT_M.toFixed(2)}" drone-dji:GimbalYawDegree="${heading.toFixed(1)}" drone-dji:GimbalPitchDegree="-90.0"
 drone-dji:GimbalRollDegree="0.0" drone-dji:FlightYawDegree="${heading.toFixed(1)}"`;
    const xmpPacket = (attrs: string) => `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:drone-dji="http://www.dji.com/drone-dji/1.0/" xmlns:Camera="http://pix4d.com/camera/1.0/"
 ${attrs}/>
</rdf:RDF></x:xmpmeta><?xpacket end="w"?>`;
    if (camera === 'rgb16') {
      const file = join(opts.dir, `IMG_${String(k).padStart(4, '0')}.tif`);
      const rgb = new Uint16Array(W * H * 3);
      for (let i = 0; i < W * H; i++) for (let b = 0; b < 3; b++) rgb[3 * i + b] = out[b]![i]!;
      writeUint16Tiff(file, rgb, 3);
      const xmp = join(opts.dir, `x${k}.xmp`);
      writeFileSync(xmp, xmpPacket(attitude));
      tags(file, xmp);
      files.push(file);
      continue;
    }
    for (const [b, name] of BANDS.entries()) {
      const file = join(opts.dir, `IMG_${String(k).padStart(4, '0')}_${b + 1}.tif`);
      writeUint16Tiff(file, out[b]!);
      const c = CAMERA[b]!;
      const xmp = join(opts.dir, `x${k}_${b}.xmp`);
      const calibration = camera === 'p4m' ? `
 drone-dji:BlackLevel="${BLACK_LEVEL}" drone-dji:VignettingData="${VIGNETTING.join(', ')}" drone-dji:CalibratedOpticalCenterX="${VIGNETTING_CENTRE[0]}"
 drone-dji:CalibratedOpticalCenterY="${VIGNETTING_CENTRE[1]}" drone-dji:SensorGain="${c.gain}" drone-dji:ExposureTime="${c.exposureUs}"
 drone-dji:Irradiance="${c.irradiance}" drone-dji:SensorGainAdjustment="${c.pCam}"` : '';
      writeFileSync(xmp, xmpPacket(`${attitude} drone-dji:CaptureUUID="${uuid}" Camera:BandName="${name}"${calibration}`));
      tags(file, xmp);
      files.push(file);
    }
  }
  const argfile = join(opts.dir, 'exiftool.args');
  writeFileSync(argfile, args.join('\n') + '\n');
  execFileSync('exiftool', ['-q', '-q', '-@', argfile], { stdio: 'pipe' });

  const ndvi = (c: number, r: number) => {
    const nir = bands[3]![r * ww + c]!, red = bands[0]![r * ww + c]!;
    return nir + red === 0 ? 0 : (nir - red) / (nir + red);
  };
  return {
    dir: opts.dir,
    files,
    centres,
    world: { width: ww, height: wh, bands, E0, N0, P, epsg: frame.epsg },
    ndviInside(c0, r0, c1, r1) {
      const v: number[] = [];
      for (let r = r0; r < r1; r++) for (let c = c0; c < c1; c++) v.push(ndvi(c, r));
      const mean = v.reduce((s, x) => s + x, 0) / v.length;
      const std = Math.sqrt(v.reduce((s, x) => s + (x - mean) ** 2, 0) / v.length);
      v.sort((a, b) => a - b);
      return { mean, std, median: v[v.length >> 1]! };
    },
    fieldWgs84(c0, r0, c1, r1) {
      const ring = [[c0, r0], [c1, r0], [c1, r1], [c0, r1], [c0, r0]].map(([c, r]) => frame.toWgs84(E0 + c! * P, N0 - r! * P));
      return { type: 'Polygon', coordinates: [ring] };
    },
  };
}
