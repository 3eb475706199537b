// Radiometric calibration of multispectral band photos (DJI P4 Multispectral / Mavic 3M guides).
import { describe, expect, it } from 'vitest';
import { calibrateBand, levelled, readRadiometry, UNCALIBRATED, vignettingFactor } from '@/lib/drone/radiometry';

/** The P4 Multispectral image processing guide's example values, as exifr hands XMP over (strings). */
const P4M = {
  BlackLevel: '4096', VignettingData: '0.000218235, 1.20722E-06, -2.8676E-09, 5.1742E-12, -4.16853E-15, 1.36962E-18',
  CalibratedOpticalCenterX: '800', CalibratedOpticalCenterY: '650', SensorGain: '1', ExposureTime: '1000', Irradiance: '2000.000',
  SensorGainAdjustment: '1.002', BandName: 'NIR',
};

describe('readRadiometry', () => {
  it('reads the P4 Multispectral tags: exposure in microseconds (XMP) or seconds (EXIF), the vignetting centre either way', () => {
    expect(readRadiometry(P4M)).toEqual({
      blackLevel: 4096, vignetting: [0.000218235, 1.20722e-6, -2.8676e-9, 5.1742e-12, -4.16853e-15, 1.36962e-18], vignettingCentre: [800, 650],
      sensorGain: 1, exposureS: 0.001, irradiance: 2000, gainAdjustment: 1.002,
    });
    expect(readRadiometry({ ...P4M, ExposureTime: 0.001 })!.exposureS).toBe(0.001);
    // Mavic 3M: black level as EXIF numbers, the centre as one "x,y" tag, the polynomial under its other name.
    const m3m = readRadiometry({ BlackLevel: [3200, 3200, 3200, 3200], VignettingPolynomial: '1e-4, 2e-7', VignettingCenter: '1296.5,972.3', Irradiance: 1500 });
    expect(m3m).toMatchObject({ blackLevel: 3200, vignetting: [1e-4, 2e-7], vignettingCentre: [1296.5, 972.3], sensorGain: 1, exposureS: 1, irradiance: 1500, gainAdjustment: 1 });
  });

  it('reads values no sensor records (a 1e308 irradiance, a 1e-308 gain) as absent, so that the survey\'s factor stays finite', () => {
    const forged = readRadiometry({ ...P4M, Irradiance: '1e308', SensorGain: '1e-308', ExposureTime: '1e308', BlackLevel: '1e308', SensorGainAdjustment: 'Infinity' });
    expect(forged).toMatchObject({ blackLevel: 0, sensorGain: 1, exposureS: 1, irradiance: 1, gainAdjustment: 1 });
  });

  it('finds nothing to calibrate in an ordinary photo', () => {
    expect(readRadiometry({ BandName: 'Red', ExposureTime: 0.002, Make: 'DJI' })).toBeNull();
  });
});

describe('vignettingFactor', () => {
  it('is the guide’s polynomial: 1 at the centre, brighter towards the corners', () => {
    const k = [0.000218235, 1.20722e-6, -2.8676e-9, 5.1742e-12, -4.16853e-15, 1.36962e-18];
    expect(vignettingFactor(k, 0)).toBe(1);
    const r = 1000;
    expect(vignettingFactor(k, r)).toBeCloseTo(1 + k.reduce((s, c, i) => s + c * r ** (i + 1), 0), 12);
    expect(vignettingFactor(k, 1000)).toBeGreaterThan(vignettingFactor(k, 500));
    expect(vignettingFactor([], 700)).toBe(1);
  });
});

describe('calibrateBand', () => {
  it('undoes black level, vignetting, gain, exposure and sunlight: equal reflectance, equal values, in any band', () => {
    const W = 40, H = 30, reflectance = 0.25;
    const bands = [
      { blackLevel: 4096, vignetting: [2e-3, 1e-5], vignettingCentre: [22, 14] as [number, number], sensorGain: 1, exposureS: 0.001, irradiance: 2100, gainAdjustment: 1 },
      { blackLevel: 4096, vignetting: [2e-3, 1e-5], vignettingCentre: null, sensorGain: 1.5, exposureS: 0.0015, irradiance: 1500, gainAdjustment: 0.98 },
    ];
    // Counts decoded at half size from a photo of 2W x 2H (positions scale back to full-size pixels),
    // all within 16 bits.
    const results = bands.map((cal) => {
      const [cx, cy] = cal.vignettingCentre ?? [W, H];
      const counts = new Uint16Array(W * H);
      for (let y = 0; y < H; y++) {
        for (let x = 0; x < W; x++) {
          const r = Math.hypot((x + 0.5) * 2 - 0.5 - cx, (y + 0.5) * 2 - 0.5 - cy);
          counts[y * W + x] = Math.round(cal.blackLevel + (reflectance * cal.irradiance * cal.sensorGain * cal.exposureS * 65535) / cal.gainAdjustment / vignettingFactor(cal.vignetting, r));
        }
      }
      return calibrateBand(counts, W, H, 2 * W, 2 * H, cal);
    });
    for (const values of results) for (const v of values) expect(v).toBeCloseTo(reflectance, 3);
  });
});

describe('levelled', () => {
  const base = { path: '/p.tif', widthPx: 40, heightPx: 30, radiometry: null, sixteenBit: false, bandName: null };
  const cal = readRadiometry(P4M)!;

  it('decodes 8-bit photos as they are, calibrated bands with their calibration, other 16-bit photos by their counts', () => {
    expect(levelled(base)).toBeNull();
    expect(levelled({ ...base, sixteenBit: true, bandName: 'NIR', radiometry: cal })).toMatchObject({ radiometry: cal, channels: 1 });
    expect(levelled({ ...base, sixteenBit: true, bandName: 'NIR' })).toMatchObject({ radiometry: UNCALIBRATED, channels: 1 });
    expect(levelled({ ...base, sixteenBit: true })).toMatchObject({ radiometry: UNCALIBRATED, channels: 3 });
  });

  it('keeps the ratios of uncalibrated counts, interleaved channels alike', () => {
    const counts = Uint16Array.from([100, 2000, 4095, 0, 65535, 300]);
    const values = calibrateBand(counts, 2, 1, 2, 1, UNCALIBRATED, 3);
    expect(Array.from(values, (v) => Math.round(v * 65535))).toEqual([100, 2000, 4095, 0, 65535, 300]);
  });
});
