// Radiometric calibration of multispectral band photos, as the DJI P4 Multispectral and Mavic 3M
// image processing guides give it: a value proportional to reflectance is
//   (p - black level) / 65535 · vignetting(r) / (sensor gain · exposure time) · pCam / irradiance
// with vignetting(r) = 1 + k0·r + k1·r² + ... + k5·r⁶ (r: pixels from the vignetting centre), pCam the
// band's gain adjustment and the irradiance from the sunlight sensor. Every band of a survey is then
// written to 8 bits with one common factor, so that ratios between bands (NDVI) are kept. A 16-bit
// photo that records no calibration (MicaSense, Sequoia, any 16-bit TIFF) takes the same path with
// its counts as they are: 8-bit decoding would divide them by 256, which leaves a 12-bit camera's
// counts 16 levels.
import { basename } from 'node:path';
import sharp from 'sharp';
import type { DronePhoto } from './exif';
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

/**
 * A calibration value within what a sensor records (`max` a ceiling far above any real one), else
 * null: a forged 1e308 irradiance or 1e-308 gain would make the survey's common factor 0 or infinite.
 */
const recorded = (v: unknown, min: number, max: number): number | null => {
  const n = num(v);
  return n !== null && n >= min && n <= max ? n : null;
};

/** Calibration of one band photo from its merged EXIF/XMP, or null when it carries none. */
export function readRadiometry(x: Record<string, unknown>): Radiometry | null {
  const black = recorded(x.BlackLevel, 0, 65535), irradiance = recorded(x.Irradiance, 1e-6, 1e6), vignetting = list(x.VignettingData ?? x.VignettingPolynomial);
  if (black === null && irradiance === null && !vignetting.length) return null;
  const cx = num(x.CalibratedOpticalCenterX), cy = num(x.CalibratedOpticalCenterY);
  const centre = list(x.VignettingCenter);
  // DJI writes the exposure in microseconds in XMP and in seconds in EXIF; merged, either may remain.
  const exposure = recorded(x.ExposureTime, 1e-7, 1e7);
  return {
    blackLevel: black ?? 0,
    vignetting: vignetting.slice(0, 6),
    vignettingCentre: cx !== null && cy !== null ? [cx, cy] : centre.length === 2 ? [centre[0]!, centre[1]!] : null,
    sensorGain: recorded(x.SensorGain, 1e-3, 1e4) || 1,
    exposureS: exposure ? (exposure > 0.5 ? exposure / 1e6 : exposure) : 1,
    irradiance: irradiance || 1,
    gainAdjustment: recorded(x.SensorGainAdjustment, 1e-3, 1e4) || 1,
  };
}

/** A 16-bit photo's counts as they are, for one that records no calibration. */
export const UNCALIBRATED: Radiometry = {
  blackLevel: 0, vignetting: [], vignettingCentre: null, sensorGain: 1, exposureS: 1, irradiance: 1, gainAdjustment: 1,
};

/** A photo decoded in 16 bits and written to 8 with the survey's common factor; `channels` 1 for a band photo, 3 for RGB. */
export interface LevelledPhoto {
  path: string;
  widthPx: number;
  heightPx: number;
  radiometry: Radiometry;
  channels: 1 | 3;
}

/**
 * How a photo is decoded: with its calibration, or its counts alone when it has 16 bits and no
 * calibration (so that its whole range counts); null: an 8-bit photo, decoded as it is.
 */
export function levelled(p: Pick<DronePhoto, 'path' | 'widthPx' | 'heightPx' | 'radiometry' | 'sixteenBit' | 'bandName'>): LevelledPhoto | null {
  const radiometry = p.radiometry ?? (p.sixteenBit ? UNCALIBRATED : null);
  return radiometry ? { path: p.path, widthPx: p.widthPx, heightPx: p.heightPx, radiometry, channels: p.bandName ? 1 : 3 } : null;
}

/** The vignetting correction at r pixels from its centre: 1 + k0·r + ... + k5·r⁶. */
export function vignettingFactor(k: number[], r: number): number {
  let f = 0;
  for (let i = k.length - 1; i >= 0; i--) f = (f + k[i]!) * r;
  return 1 + f;
}

/**
 * Calibrated values of one band (or of `channels` interleaved ones) whose raw counts `samples` were
 * decoded at `width` x `height` from a photo `fullWidth` x `fullHeight` pixels large.
 */
export function calibrateBand(
  samples: Uint16Array, width: number, height: number, fullWidth: number, fullHeight: number, cal: Radiometry, channels = 1,
): Float32Array {
  const k = cal.gainAdjustment / (65535 * cal.sensorGain * cal.exposureS * cal.irradiance);
  const [cx, cy] = cal.vignettingCentre ?? [fullWidth / 2, fullHeight / 2];
  const fx = fullWidth / width, fy = fullHeight / height;
  const out = new Float32Array(width * height * channels);
  for (let y = 0; y < height; y++) {
    const dy = (y + 0.5) * fy - 0.5 - cy;
    for (let x = 0; x < width; x++) {
      const dx = (x + 0.5) * fx - 0.5 - cx;
      const f = cal.vignetting.length ? vignettingFactor(cal.vignetting, Math.sqrt(dx * dx + dy * dy)) * k : k;
      for (let c = 0, o = (y * width + x) * channels; c < channels; c++, o++) out[o] = (samples[o]! - cal.blackLevel) * f;
    }
  }
  return out;
}

/**
 * A photo calibrated and written to 8 bits with the survey's common factor `scale`, decoded at
 * `width` x `height` (`photo.channels` interleaved).
 */
export async function levelledBytes(photo: LevelledPhoto, width: number, height: number, scale: number): Promise<Uint8Array> {
  const values = calibrateBand(await readCounts(photo, width, height), width, height, photo.widthPx, photo.heightPx, photo.radiometry, photo.channels);
  const out = new Uint8Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i]! * scale;
    out[i] = v <= 0 ? 0 : v >= 255 ? 255 : Math.round(v);
  }
  return out;
}

/** Raw counts of a photo, decoded at the given size (16 bits kept): its first band, or RGB. */
async function readCounts(photo: LevelledPhoto, width: number, height: number): Promise<Uint16Array> {
  const { path, channels } = photo;
  const { data } = await decodingPhoto(basename(path), () => {
    const img = channels === 1 ? sharp(path).extractChannel(0) : sharp(path).removeAlpha();
    return img.resize(width, height, { fit: 'fill' }).toColourspace(channels === 1 ? 'grey16' : 'rgb16').raw({ depth: 'ushort' }).toBuffer({ resolveWithObject: true });
  });
  const bytes = data.byteOffset % 2 ? Uint8Array.from(data) : data;
  return new Uint16Array(bytes.buffer, bytes.byteOffset, bytes.length / 2);
}

/** Largest calibrated value the 8-bit output should hold: this part of the calibrated pixels lies below it. */
const SCALE_QUANTILE = 0.995;
const SCALE_TARGET = 240;

/**
 * The common factor for a survey's bands, from one capture's photos (reduced): its 99.5th percentile
 * of calibrated values, over all its bands, becomes 240 of 255, so that bright soil and canopy keep
 * their differences and little is clipped.
 */
export async function surveyScale(photos: LevelledPhoto[]): Promise<number> {
  const values: number[] = [];
  for (const p of photos) {
    const w = Math.max(1, Math.round(p.widthPx / 8)), h = Math.max(1, Math.round(p.heightPx / 8));
    for (const v of calibrateBand(await readCounts(p, w, h), w, h, p.widthPx, p.heightPx, p.radiometry, p.channels)) values.push(v);
  }
  values.sort((a, b) => a - b);
  const top = values[Math.min(values.length - 1, Math.floor(SCALE_QUANTILE * values.length))] ?? 0;
  return top > 0 ? SCALE_TARGET / top : 1;
}
