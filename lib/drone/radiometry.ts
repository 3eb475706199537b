// Radiometric calibration of multispectral band photos, as the DJI P4 Multispectral and Mavic 3M
// image processing guides give it: a value proportional to reflectance is
//   (p - black level) / 65535 · vignetting(r) / (sensor gain · exposure time) · pCam / irradiance
// with vignetting(r) = 1 + k0·r + k1·r² + ... + k5·r⁶ (r: pixels from the vignetting centre), pCam the
// band's gain adjustment and the irradiance from the sunlight sensor. Every band of a survey is then
// written to 8 bits with one common factor, so that ratios between bands (NDVI) are kept.
import { basename } from 'node:path';
import sharp from 'sharp';
import { decodingPhoto } from './photo-decode';

export interface Radiometry {
  /** Sensor black level in raw counts (EXIF BlackLevel). */
  blackLevel: number;
  /** Vignetting polynomial k0..k5 (XMP VignettingData), empty: none. */
  vignetting: number[];
  /** Vignetting centre in full-resolution pixels (XMP CalibratedOpticalCenterX/Y or VignettingCenter); null: the image centre. */
  vignettingCentre: [number, number] | null;
  sensorGain: number;
  exposureS: number;
  /** Sunlight sensor reading (XMP Irradiance). */
  irradiance: number;
  /** Per-band sensitivity adjustment (XMP SensorGainAdjustment, pCam). */
  gainAdjustment: number;
}

const num = (v: unknown): number | null => {
  const first = Array.isArray(v) || ArrayBuffer.isView(v) ? (v as ArrayLike<unknown>)[0] : typeof v === 'string' ? v.trim().split(/[\s,]+/)[0] : v;
  const n = typeof first === 'number' ? first : typeof first === 'string' ? Number(first) : NaN;
  return Number.isFinite(n) ? n : null;
};
const list = (v: unknown): number[] =>
  (Array.isArray(v) ? v : typeof v === 'string' ? v.split(/[\s,]+/) : []).map(Number).filter((n) => Number.isFinite(n));

/** Calibration of one band photo from its merged EXIF/XMP, or null when it carries none. */
export function readRadiometry(x: Record<string, unknown>): Radiometry | null {
  const black = num(x.BlackLevel), irradiance = num(x.Irradiance), vignetting = list(x.VignettingData ?? x.VignettingPolynomial);
  if (black === null && irradiance === null && !vignetting.length) return null;
  const cx = num(x.CalibratedOpticalCenterX), cy = num(x.CalibratedOpticalCenterY);
  const centre = list(x.VignettingCenter);
  // DJI writes the exposure in microseconds in XMP and in seconds in EXIF; merged, either may remain.
  const exposure = num(x.ExposureTime);
  return {
    blackLevel: black ?? 0,
    vignetting: vignetting.slice(0, 6),
    vignettingCentre: cx !== null && cy !== null ? [cx, cy] : centre.length === 2 ? [centre[0]!, centre[1]!] : null,
    sensorGain: num(x.SensorGain) || 1,
    exposureS: exposure ? (exposure > 0.5 ? exposure / 1e6 : exposure) : 1,
    irradiance: irradiance || 1,
    gainAdjustment: num(x.SensorGainAdjustment) || 1,
  };
}

/** The vignetting correction at r pixels from its centre: 1 + k0·r + ... + k5·r⁶. */
export function vignettingFactor(k: number[], r: number): number {
  let f = 0;
  for (let i = k.length - 1; i >= 0; i--) f = (f + k[i]!) * r;
  return 1 + f;
}

/**
 * Calibrated values of one band whose raw counts `samples` were decoded at `width` x `height` from a
 * photo `fullWidth` x `fullHeight` pixels large.
 */
export function calibrateBand(samples: Uint16Array, width: number, height: number, fullWidth: number, fullHeight: number, cal: Radiometry): Float32Array {
  const k = cal.gainAdjustment / (65535 * cal.sensorGain * cal.exposureS * cal.irradiance);
  const [cx, cy] = cal.vignettingCentre ?? [fullWidth / 2, fullHeight / 2];
  const fx = fullWidth / width, fy = fullHeight / height;
  const out = new Float32Array(width * height);
  for (let y = 0; y < height; y++) {
    const dy = (y + 0.5) * fy - 0.5 - cy;
    for (let x = 0; x < width; x++) {
      const dx = (x + 0.5) * fx - 0.5 - cx;
      out[y * width + x] = (samples[y * width + x]! - cal.blackLevel) * vignettingFactor(cal.vignetting, Math.sqrt(dx * dx + dy * dy)) * k;
    }
  }
  return out;
}

/**
 * A band photo calibrated and written to 8 bits with the survey's common factor `scale`, decoded at
 * `width` x `height`.
 */
export async function calibratedBandBytes(
  photo: { path: string; widthPx: number; heightPx: number; radiometry: Radiometry }, width: number, height: number, scale: number,
): Promise<Uint8Array> {
  const values = calibrateBand(await readBandCounts(photo.path, width, height), width, height, photo.widthPx, photo.heightPx, photo.radiometry);
  const out = new Uint8Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i]! * scale;
    out[i] = v <= 0 ? 0 : v >= 255 ? 255 : Math.round(v);
  }
  return out;
}

/** Raw counts of a band photo, decoded at the given size (16 bits kept). */
async function readBandCounts(path: string, width: number, height: number): Promise<Uint16Array> {
  const { data } = await decodingPhoto(basename(path), () => sharp(path).extractChannel(0).resize(width, height, { fit: 'fill' }).toColourspace('grey16').raw({ depth: 'ushort' }).toBuffer({ resolveWithObject: true }));
  const bytes = data.byteOffset % 2 ? Uint8Array.from(data) : data;
  return new Uint16Array(bytes.buffer, bytes.byteOffset, bytes.length / 2);
}

/** Largest calibrated value the 8-bit output should hold: this part of the calibrated pixels lies below it. */
const SCALE_QUANTILE = 0.995;
const SCALE_TARGET = 240;

/**
 * The common factor for a survey's bands, from one capture's band photos (reduced): its 99.5th
 * percentile of calibrated values becomes 240 of 255, so that bright soil and canopy keep their
 * differences and little is clipped.
 */
export async function surveyScale(photos: { path: string; widthPx: number; heightPx: number; radiometry: Radiometry }[]): Promise<number> {
  const values: number[] = [];
  for (const p of photos) {
    const w = Math.max(1, Math.round(p.widthPx / 8)), h = Math.max(1, Math.round(p.heightPx / 8));
    for (const v of calibrateBand(await readBandCounts(p.path, w, h), w, h, p.widthPx, p.heightPx, p.radiometry)) values.push(v);
  }
  values.sort((a, b) => a - b);
  const top = values[Math.min(values.length - 1, Math.floor(SCALE_QUANTILE * values.length))] ?? 0;
  return top > 0 ? SCALE_TARGET / top : 1;
}
