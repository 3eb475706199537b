// Drone photo metadata: position, height above take-off, camera attitude, optics and capture time,
// read with exifr. Dates are parsed here because exifr would read them in the server's time zone.
import { open, readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import exifr from 'exifr';
import pLimit from 'p-limit';
import { exifDateTime } from '../exif-date';
import type { Radiometry } from './radiometry';
import { readRadiometry } from './radiometry';
import { corruptImage } from './photo-decode';

export interface Attitude {
  yaw: number;
  pitch: number;
  roll: number;
}

/** DJI's lens calibration (XMP DewarpData): principal point offsets from the image centre (pixels) and radial distortion. */
export interface Dewarp {
  cx: number;
  cy: number;
  k1: number;
  k2: number;
}

export interface DronePhoto {
  path: string;
  file: string;
  make: string | null;
  model: string | null;
  /** WGS84 degrees and metres above mean sea level; null when the photo carries no GPS fix. */
  gps: { lat: number; lon: number; altM: number | null } | null;
  /** Height above the take-off point (DJI XMP RelativeAltitude). */
  relativeAltitudeM: number | null;
  gimbal: Attitude | null;
  flight: Attitude | null;
  /** Lens calibration when the XMP records it (DJI DewarpData). */
  dewarp?: Dewarp | null;
  focalLengthMm: number | null;
  focalLength35mm: number | null;
  widthPx: number;
  heightPx: number;
  /** Physical size of the imaged sensor area (mm); from EXIF resolution tags or the camera table. */
  sensorWidthMm: number | null;
  sensorHeightMm: number | null;
  /** Capture time as written by the camera ("2016-06-23T16:31:59", with its offset when known). */
  capturedAt: string | null;
  /** Milliseconds since epoch; the camera's local time read as UTC when no offset is recorded. */
  capturedAtMs: number | null;
  /** Multispectral band (XMP BandName, e.g. "NIR", "Red") and the capture it belongs to. */
  bandName: string | null;
  captureUuid: string | null;
  /** Radiometric calibration of a multispectral band photo (black level, vignetting, sunlight sensor), when recorded. */
  radiometry: Radiometry | null;
  /** 16 bits a sample (band photos, survey cameras' TIFFs): decoded in 16 bits, with the survey's common scale (radiometry.ts). */
  sixteenBit: boolean;
}

/** Sensor widths (mm) of common survey cameras; the 4:3 sensor height is derived from the image shape. */
const SENSOR_WIDTH_MM: Record<string, number> = {
  FC300S: 6.17, FC300X: 6.17, FC330: 6.17, FC220: 6.17, FC6310: 13.2, FC6310S: 13.2, FC6310R: 13.2,
  FC7203: 6.3, FC3170: 6.3, FC3411: 13.2, FC3582: 9.7, FC6360: 4.96, M3M: 17.3, L1D20C: 13.2,
  'ZenmuseP1': 35.9, FC220S: 6.17, FC2204: 6.3, FC2103: 6.17,
};

function num(v: unknown): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : null;
}

/**
 * A number the tag may physically hold, else null: a value no camera or aircraft records (1e308 m of
 * altitude, a yaw of 1e308°) is a damaged or forged tag, and would otherwise reach the geometry.
 */
function bounded(v: unknown, min: number, max: number): number | null {
  const n = num(v);
  return n !== null && n >= min && n <= max ? n : null;
}

/** What the tags may hold (bounded): metres of altitude, degrees of attitude, millimetres of focal length, DewarpData's pixels and coefficients. */
const TAG_RANGE = {
  altitudeM: [-1000, 10000],
  yawDeg: [-360, 360],
  tiltDeg: [-180, 180],
  focalMm: [0.5, 2000],
  focal35Mm: [1, 5000],
  dewarpPx: [-10000, 10000],
  dewarpK: [-10, 10],
} as const satisfies Record<string, readonly [number, number]>;

function dms(v: unknown, ref: unknown, negativeRef: string): number | null {
  const arr = Array.isArray(v) ? v.map(Number) : typeof v === 'number' ? [v] : null;
  if (!arr || arr.some((x) => !Number.isFinite(x))) return null;
  const deg = (arr[0] ?? 0) + (arr[1] ?? 0) / 60 + (arr[2] ?? 0) / 3600;
  return String(ref ?? '').toUpperCase().startsWith(negativeRef) ? -deg : deg;
}

/** "2016:06:23 16:31:59" + "+02:00" -> ISO text and epoch ms; a date that does not exist -> nulls. */
export function parseExifDate(value: unknown, offset: unknown): { iso: string | null; ms: number | null } {
  const at = exifDateTime(value);
  if (!at) return { iso: null, ms: null };
  const off = /^([+-])(\d{2}):?(\d{2})$/.exec(String(offset ?? '').trim());
  if (!off) return { iso: at.local, ms: at.utcMs };
  const sign = off[1] === '-' ? -1 : 1;
  return { iso: `${at.local}${off[1]}${off[2]}:${off[3]}`, ms: at.utcMs - sign * (+off[2]! * 60 + +off[3]!) * 60_000 };
}

function attitude(x: Record<string, unknown>, prefix: 'Gimbal' | 'Flight'): Attitude | null {
  const yaw = bounded(x[`${prefix}YawDegree`], ...TAG_RANGE.yawDeg);
  const pitch = bounded(x[`${prefix}PitchDegree`], ...TAG_RANGE.tiltDeg);
  const roll = bounded(x[`${prefix}RollDegree`], ...TAG_RANGE.tiltDeg);
  return yaw === null && pitch === null ? null : { yaw: yaw ?? 0, pitch: pitch ?? 0, roll: roll ?? 0 };
}

/**
 * Pix4D's camera tags (XMP Camera:Yaw, Camera:Pitch, Camera:Roll, as Parrot, Sentera and senseFly write
 * them) in DJI's gimbal terms, read as ODM reads them: yaw 0 puts the image's top to the north, pitch 0
 * is nadir (DJI's −90), and senseFly counts roll the other way.
 */
export function pix4dAttitude(camera: Record<string, unknown> | null, make: string | null): Attitude | null {
  if (!camera) return null;
  const yaw = bounded(camera.Yaw, ...TAG_RANGE.yawDeg);
  const pitch = bounded(camera.Pitch, ...TAG_RANGE.tiltDeg);
  const roll = bounded(camera.Roll, ...TAG_RANGE.tiltDeg);
  if (yaw === null || pitch === null) return null;
  const rollSign = make?.toLowerCase() === 'sensefly' ? -1 : 1;
  return { yaw, pitch: pitch - 90, roll: rollSign * (roll ?? 0) };
}

/** DJI's "date;fx,fy,cx,cy,k1,k2,p1,p2,k3"; null when absent or not of that form. */
export function dewarpData(v: unknown): Dewarp | null {
  if (typeof v !== 'string') return null;
  const values = (v.split(';')[1] ?? '').split(',').map(Number);
  if (values.length < 6 || values.slice(0, 6).some((k) => !Number.isFinite(k))) return null;
  const [, , cx, cy, k1, k2] = values as [number, number, number, number, number, number];
  if (![cx, cy].every((v) => bounded(v, ...TAG_RANGE.dewarpPx) !== null) || ![k1, k2].every((v) => bounded(v, ...TAG_RANGE.dewarpK) !== null)) return null;
  return { cx, cy, k1, k2 };
}

/** The photo's size from the JPEG/TIFF itself (EXIF may leave it out), and its sample depth. */
async function imageSize(path: string): Promise<{ width: number; height: number; sixteenBit: boolean }> {
  const sharp = (await import('sharp')).default;
  const meta = await sharp(path).metadata();
  return { width: meta.width ?? 0, height: meta.height ?? 0, sixteenBit: meta.depth === 'ushort' };
}

/** JPEG and TIFF files start with known signatures; anything else is not a photo. */
async function looksLikeImage(path: string): Promise<boolean> {
  const fh = await open(path, 'r');
  try {
    const { buffer, bytesRead } = await fh.read(Buffer.alloc(4), 0, 4, 0);
    if (bytesRead < 4) return false;
    const jpeg = buffer[0] === 0xff && buffer[1] === 0xd8;
    const tiff = (buffer[0] === 0x49 && buffer[1] === 0x49) || (buffer[0] === 0x4d && buffer[1] === 0x4d);
    return jpeg || tiff;
  } finally {
    await fh.close();
  }
}

const JPEG_HEAD_BYTES = 1024 * 1024;

async function readHead(path: string, bytes: number): Promise<{ bytes: Buffer; whole: boolean; jpeg: boolean }> {
  const fh = await open(path, 'r');
  try {
    const size = (await fh.stat()).size;
    const buf = Buffer.alloc(Math.min(size, bytes));
    await fh.read(buf, 0, buf.length, 0);
    return { bytes: buf, whole: buf.length === size, jpeg: buf[0] === 0xff && buf[1] === 0xd8 };
  } finally {
    await fh.close();
  }
}

/**
 * Reads one photo's metadata. A photo without GPS comes back with `gps: null` (checkSurvey reports it);
 * a file that is not a readable JPEG/TIFF throws AppError `drone_corrupt_image`.
 */
export async function readDroneExif(path: string): Promise<DronePhoto> {
  const file = basename(path);
  if (!(await looksLikeImage(path))) throw corruptImage(file);
  let x: Record<string, unknown>;
  let camera: Record<string, unknown> | null;
  let size: { width: number; height: number; sixteenBit: boolean };
  try {
    ({ tags: x, camera } = await readExifTags(path));
    // Decoding the header also proves the file is an image and not a truncated download.
    size = await imageSize(path);
  } catch {
    throw corruptImage(file);
  }
  // The pixels are the image's own: a copy reduced for sending keeps the camera's EXIF size. The
  // camera's size measures the sensor (its focal-plane resolution is per pixel of the original).
  const width = size.width || num(x.ExifImageWidth) || num(x.ImageWidth) || 0;
  const height = size.height || num(x.ExifImageHeight) || num(x.ImageHeight) || 0;
  if (!width || !height) throw corruptImage(file);
  const cameraWidth = num(x.ExifImageWidth) ?? num(x.ImageWidth) ?? width;
  const cameraHeight = num(x.ExifImageHeight) ?? num(x.ImageHeight) ?? height;
  const model = typeof x.Model === 'string' ? x.Model.trim() : null;
  const focal = bounded(x.FocalLength, ...TAG_RANGE.focalMm);
  const focal35 = bounded(x.FocalLengthIn35mmFormat, ...TAG_RANGE.focal35Mm);
  const sensor = sensorSize(x, model, cameraWidth, cameraHeight, focal, focal35);
  const date = parseExifDate(x.DateTimeOriginal ?? x.CreateDate, x.OffsetTimeOriginal ?? x.OffsetTime);
  return {
    path,
    file,
    make: text(x.Make),
    model,
    gps: gpsFix(x),
    relativeAltitudeM: bounded(x.RelativeAltitude, ...TAG_RANGE.altitudeM),
    gimbal: attitude(x, 'Gimbal') ?? pix4dAttitude(camera, text(x.Make)),
    flight: attitude(x, 'Flight'),
    dewarp: dewarpData(x.DewarpData),
    focalLengthMm: focal,
    focalLength35mm: focal35,
    widthPx: width,
    heightPx: height,
    sensorWidthMm: sensor?.[0] ?? null,
    sensorHeightMm: sensor?.[1] ?? null,
    capturedAt: date.iso,
    capturedAtMs: date.ms,
    bandName: text(x.BandName),
    captureUuid: text(x.CaptureUUID) ?? text(x.CaptureId),
    radiometry: text(x.BandName) ? readRadiometry(x) : null,
    sixteenBit: size.sixteenBit,
  };
}

/**
 * A photo's EXIF, GPS and XMP tags, merged, and Pix4D's camera namespace apart where it may be there.
 * exifr is given the bytes, not the path: its own file reader loads `fs` in a way bundlers break
 * (inside the Next.js server every photo came out "damaged"). A JPEG keeps EXIF and XMP in its first segments, so its head is enough (the upload reads
 * thousands of photos before answering); a TIFF may keep its directory anywhere, and a JPEG whose head
 * had nothing is read whole. (sharp's metadata() of a TIFF has its XMP but not its EXIF and GPS
 * directories, so it cannot stand in.)
 */
async function readExifTags(path: string): Promise<{ tags: Record<string, unknown>; camera: Record<string, unknown> | null }> {
  const head = await readHead(path, JPEG_HEAD_BYTES);
  let bytes = head.bytes;
  let tags = head.jpeg && !head.whole ? await parseTags(bytes, true) : undefined;
  if (!tags || (tags.GPSLatitude === undefined && tags.RelativeAltitude === undefined)) {
    bytes = head.whole ? head.bytes : await readFile(path);
    tags = (await parseTags(bytes, true)) ?? {};
  }
  // Merged, a MicaSense light sensor's DLS:Yaw stands for Camera:Yaw: the namespaces are read apart.
  const camera = tags.Yaw !== undefined && tags.GimbalYawDegree === undefined ? ((await parseTags(bytes, false))?.Camera ?? null) : null;
  return { tags, camera: camera && typeof camera === 'object' ? (camera as Record<string, unknown>) : null };
}

const parseTags = async (bytes: Buffer, mergeOutput: boolean) =>
  (await exifr.parse(bytes, { reviveValues: false, xmp: true, tiff: true, exif: true, gps: true, mergeOutput })) as Record<string, unknown> | undefined;

/** The GPS fix in the tags, or null when there is none (or the null island, or out of range). */
function gpsFix(x: Record<string, unknown>): DronePhoto['gps'] {
  const lat = dms(x.GPSLatitude, x.GPSLatitudeRef, 'S');
  const lon = dms(x.GPSLongitude, x.GPSLongitudeRef, 'W');
  const valid = lat !== null && lon !== null && !(lat === 0 && lon === 0) && Math.abs(lat) <= 90 && Math.abs(lon) <= 180;
  if (!valid) return null;
  const altRef = x.GPSAltitudeRef instanceof Uint8Array ? x.GPSAltitudeRef[0] : num(x.GPSAltitudeRef);
  const alt = bounded(x.GPSAltitude, ...TAG_RANGE.altitudeM);
  return { lat, lon, altM: alt === null ? null : altRef === 1 ? -alt : alt };
}

/** A tag's text, trimmed; null when absent or blank. */
const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : null);

/**
 * Photos whose metadata are read at once, at the upload and in the task alike. An archive may hold
 * 5,000 photos, and each read holds a 1 MB head off the V8 heap, or the whole file for a TIFF (its
 * directory may lie anywhere) or a JPEG with no GPS in its head: tens of MB for a 16-bit band photo.
 * Node's file reads share libuv's 4 threads, so more at once would hold more memory for no speed.
 */
export const EXIF_READS_AT_ONCE = 4;

/**
 * `fn` over `items`, at most `limit` calls in flight (p-limit), results in input order. The first
 * failure rejects, and no further item is started: the queue is emptied before its turn passes on.
 */
export function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const run = pLimit(Math.max(1, limit));
  return Promise.all(
    items.map((item) =>
      run(async () => {
        try {
          return await fn(item);
        } catch (err) {
          run.clearQueue();
          throw err;
        }
      }),
    ),
  );
}

/** Metadata of many photos, in order, EXIF_READS_AT_ONCE at a time. */
export const readDroneExifAll = (paths: readonly string[]): Promise<DronePhoto[]> => mapBounded(paths, EXIF_READS_AT_ONCE, readDroneExif);

/**
 * Sensor size in mm for the imaged area: focal-plane resolution tags first, then the camera table,
 * then the 35 mm equivalent (same diagonal field of view). The table comes before the equivalent
 * because makers state the equivalent for the whole 4:3 sensor: a DJI FC300S in 16:9 mode keeps the
 * sensor's 6.17 mm width, where the diagonal would say 6.8 mm and place the survey 10 % too wide.
 */
function sensorSize(
  x: Record<string, unknown>, model: string | null, width: number, height: number, focal: number | null, focal35: number | null,
): [number, number] | null {
  const xres = num(x.FocalPlaneXResolution);
  const unit = num(x.FocalPlaneResolutionUnit) ?? 2;
  const mmPerUnit = unit === 3 ? 10 : unit === 4 ? 1 : unit === 5 ? 0.001 : 25.4;
  if (xres && xres > 0) {
    const w = (width / xres) * mmPerUnit;
    if (w > 1 && w < 60) return [w, (w * height) / width];
  }
  const w = model ? SENSOR_WIDTH_MM[model] : undefined;
  if (w) return [w, (w * height) / width];
  if (focal && focal35) {
    const diag = (43.2666 * focal) / focal35;
    const d = Math.hypot(width, height);
    return [(diag * width) / d, (diag * height) / d];
  }
  return null;
}

/** Horizontal and vertical field of view (radians), or null when the optics are unknown. */
export function fieldOfView(p: DronePhoto): { h: number; v: number } | null {
  if (!p.focalLengthMm || !p.sensorWidthMm || !p.sensorHeightMm) return null;
  return { h: 2 * Math.atan(p.sensorWidthMm / 2 / p.focalLengthMm), v: 2 * Math.atan(p.sensorHeightMm / 2 / p.focalLengthMm) };
}
