import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readdirSync } from 'node:fs';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { EXIF_READS_AT_ONCE, mapBounded, parseExifDate, readDroneExif, readDroneExifAll, type DronePhoto } from '@/lib/drone/exif';
import { recordedTilt } from '@/lib/drone/camera';
import { detectFeatures } from '@/lib/drone/features';
import { headingDeg, recordsHeading } from '@/lib/drone/frame';
import { checkSurvey, estimateProcessingSeconds, farFromSurvey, fieldUnderPhotos, groupCaptures, MAX_SURVEY_RADIUS_KM, otherCameras, otherFlights, surveyCentroids } from '@/lib/drone/survey';
import { AppError } from '@/lib/errors';
import { missingShared, sharedPath } from '../../helpers/shared-data';

const skip = missingShared('drone', 'brighton_beach', 'images');
if (skip) console.warn(skip);
const dir = sharedPath('drone', 'brighton_beach', 'images');
const tmp = mkdtempSync(join(tmpdir(), 'drone-survey-'));

const photo = (over: Partial<DronePhoto>): DronePhoto => ({
  path: '/x.jpg', file: 'x.jpg', make: 'DJI', model: 'FC300S', gps: { lat: 46.84, lon: -91.99, altM: 200 }, relativeAltitudeM: 40,
  gimbal: { yaw: 0, pitch: -90, roll: 0 }, flight: null, focalLengthMm: 3.61, focalLength35mm: 20, widthPx: 4000, heightPx: 2250,
  sensorWidthMm: 6.8, sensorHeightMm: 3.8, capturedAt: '2016-06-23T16:31:59', capturedAtMs: Date.UTC(2016, 5, 23, 16, 31, 59),
  bandName: null, captureUuid: null, radiometry: null, sixteenBit: false, ...over,
});

function keyOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return e instanceof AppError ? e.key : 'not-app-error';
  }
  return undefined;
}

describe('readDroneExif', () => {
  it.skipIf(skip)('reads GPS, DJI XMP attitude, optics and the camera-local time of a real DJI photo', async () => {
    const p = await readDroneExif(join(dir, 'DJI_0018.JPG'));
    expect(p.gps!.lat).toBeCloseTo(46.8426071, 6);
    expect(p.gps!.lon).toBeCloseTo(-91.9945599, 6);
    expect(p.gps!.altM).toBeCloseTo(198.309, 2);
    expect(p.relativeAltitudeM).toBe(39.8);
    expect(p.gimbal).toEqual({ yaw: 45, pitch: -89.9, roll: 0 });
    expect(p.flight).toEqual({ yaw: 46, pitch: 1.8, roll: 3 });
    expect([p.focalLengthMm, p.focalLength35mm, p.widthPx, p.heightPx]).toEqual([3.61, 20, 4000, 2250]);
    // A 16:9 crop of the FC300S's 1/2.3" sensor keeps its full 6.17 mm width (DJI's 35 mm
    // equivalent, 20 mm, is the whole 4:3 sensor's: its diagonal would say 6.8 mm).
    expect(p.sensorWidthMm!).toBeCloseTo(6.17, 2);
    expect(p.sensorHeightMm!).toBeCloseTo(3.47, 2);
    expect(p.capturedAt).toBe('2016-06-23T16:31:59');
    expect(p.bandName).toBeNull();
  });

  it.skipIf(skip)('takes a reduced copy\'s pixels from the image and its sensor from the camera\'s EXIF', async () => {
    // As a photo sent on at a quarter of its size keeps the camera's EXIF (ExifImageWidth 4000).
    const small = join(tmp, 'DJI_0018_small.JPG');
    await sharp(join(dir, 'DJI_0018.JPG')).resize(1000).jpeg().toFile(small);
    execFileSync('exiftool', ['-q', '-overwrite_original', '-tagsfromfile', join(dir, 'DJI_0018.JPG'), '-all:all', small]);
    const p = await readDroneExif(small);
    expect([p.widthPx, p.heightPx]).toEqual([1000, 563]);
    expect(p.sensorWidthMm!).toBeCloseTo(6.17, 2);
    expect(p.relativeAltitudeM).toBe(39.8);
  });

  it('fails a photo damaged past its head when its pixels are decoded, naming it', async () => {
    const whole = join(tmp, 'whole.jpg');
    await sharp({ create: { width: 800, height: 600, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 40 } } }).jpeg().toFile(whole);
    const cut = join(tmp, 'DJI_0022.JPG');
    const bytes = readFileSync(whole);
    writeFileSync(cut, bytes.subarray(0, bytes.length / 2));
    // The head reads as a photo (the upload accepts it); the decode in the task names it.
    expect((await readDroneExif(cut)).widthPx).toBe(800);
    await expect(detectFeatures(cut, 800, 600)).rejects.toMatchObject({ key: 'drone_corrupt_image', params: { file: 'DJI_0022.JPG' } });
  });

  it.skipIf(skip)('leaves out tag values no camera records (1e308 m of altitude, a yaw of 1e308°), so that they never reach the geometry', async () => {
    // As a forged or damaged photo sent to the upload had them: the field's buffer and the UTM frame threw (500).
    const forged = join(tmp, 'DJI_forged.JPG');
    writeFileSync(forged, readFileSync(join(dir, 'DJI_0018.JPG')));
    const xmp = join(tmp, 'forged.xmp');
    writeFileSync(xmp, `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:drone-dji="http://www.dji.com/drone-dji/1.0/" drone-dji:RelativeAltitude="1e308" drone-dji:GimbalYawDegree="1e308"
 drone-dji:GimbalPitchDegree="-90.0" drone-dji:GimbalRollDegree="0.0" drone-dji:FlightYawDegree="-1e308" drone-dji:FlightPitchDegree="NaN"
 drone-dji:DewarpData="2018-01-01;2000,2000,1e308,0,0,0,0,0,0"/></rdf:RDF></x:xmpmeta><?xpacket end="w"?>`);
    execFileSync('exiftool', ['-q', '-overwrite_original', '-XMP:all=', `-XMP<=${xmp}`, '-FocalLength=4294967295', forged]);
    const p = await readDroneExif(forged);
    expect(p.relativeAltitudeM).toBeNull();
    expect(p.gimbal).toEqual({ yaw: 0, pitch: -90, roll: 0 });
    expect(p.flight).toBeNull();
    expect(p.dewarp).toBeNull();
    expect(p.focalLengthMm).toBeNull();
    const second = await readDroneExif(join(dir, 'DJI_0019.JPG'));
    for (const c of surveyCentroids([p, second]).flat()) expect(Number.isFinite(c)).toBe(true);
  });

  it.skipIf(skip)('reads Pix4D\'s XMP camera tags as the gimbal (pitch 0 at nadir), not a MicaSense light sensor\'s DLS tags', async () => {
    // As Parrot, Sentera and senseFly cameras write them: no drone-dji namespace, the attitude in Camera:*,
    // and beside them a sunlight sensor's own Yaw/Pitch/Roll that exifr's merged output would give instead.
    const xmp = join(tmp, 'pix4d.xmp');
    writeFileSync(xmp, `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:Camera="http://pix4d.com/camera/1.0/" xmlns:DLS="http://micasense.com/DLS/1.0/"
 Camera:Yaw="-134.5" Camera:Pitch="0.3" Camera:Roll="-1.2" DLS:Yaw="2.1" DLS:Pitch="0.05" DLS:Roll="0.01"/></rdf:RDF></x:xmpmeta><?xpacket end="w"?>`);
    const read = async (make: string) => {
      const file = join(tmp, `pix4d-${make}.JPG`);
      writeFileSync(file, readFileSync(join(dir, 'DJI_0018.JPG')));
      execFileSync('exiftool', ['-q', '-overwrite_original', '-XMP:all=', `-XMP<=${xmp}`, `-Make=${make}`, file]);
      return readDroneExif(file);
    };
    const parrot = await read('Parrot');
    expect(parrot.gimbal).toEqual({ yaw: -134.5, pitch: -89.7, roll: -1.2 });
    expect(parrot.relativeAltitudeM).toBeNull();
    expect(parrot.gps!.lat).toBeCloseTo(46.8426071, 6);
    expect(recordsHeading(parrot) && headingDeg(parrot)).toBe(-134.5);
    expect(recordedTilt(parrot).pitch).toBeCloseTo((0.3 * Math.PI) / 180, 9);
    // senseFly counts roll the other way (as ODM reads it).
    expect((await read('senseFly')).gimbal).toEqual({ yaw: -134.5, pitch: -89.7, roll: 1.2 });
  });

  it('parses EXIF dates with and without an offset, independent of the server time zone', () => {
    expect(parseExifDate('2024:05:01 10:00:00', '+02:00')).toEqual({ iso: '2024-05-01T10:00:00+02:00', ms: Date.UTC(2024, 4, 1, 8) });
    expect(parseExifDate('2024:05:01 10:00:00', undefined)).toEqual({ iso: '2024-05-01T10:00:00', ms: Date.UTC(2024, 4, 1, 10) });
    expect(parseExifDate('garbage', '+02:00')).toEqual({ iso: null, ms: null });
    // Dates that do not exist (Date.UTC would roll them over into another day) are no dates.
    for (const bad of ['9999:99:99 99:99:99', '2024:02:30 10:00:00', '2024:05:01 24:00:00', '0000:00:00 00:00:00']) {
      expect(parseExifDate(bad, '+02:00')).toEqual({ iso: null, ms: null });
    }
    expect(parseExifDate('2024:02:29 23:59:59', undefined).iso).toBe('2024-02-29T23:59:59');
  });

  it('returns gps null for a JPEG without GPS and throws drone_corrupt_image for a broken file', async () => {
    const plain = join(tmp, 'plain.jpg');
    await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3a6' } }).jpeg().toFile(plain);
    const p = await readDroneExif(plain);
    expect(p.gps).toBeNull();
    expect([p.widthPx, p.heightPx]).toEqual([64, 48]);

    const broken = join(tmp, 'broken.jpg');
    writeFileSync(broken, Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(100, 7)]));
    await expect(readDroneExif(broken)).rejects.toMatchObject({ key: 'drone_corrupt_image', params: { file: 'broken.jpg' } });
    const text = join(tmp, 'notes.jpg');
    writeFileSync(text, 'not an image at all');
    await expect(readDroneExif(text)).rejects.toMatchObject({ key: 'drone_corrupt_image' });
  });
});

describe('readDroneExifAll', () => {
  it('never has more than its bound of reads in flight, keeps the order, and starts no read after a failure', async () => {
    let inFlight = 0, most = 0, started = 0;
    const read = async (k: number) => {
      started++;
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, k % 3));
      inFlight--;
      if (k === -1) throw new Error('damaged');
      return k * 2;
    };
    const items = Array.from({ length: 200 }, (_, k) => k);
    expect(await mapBounded(items, EXIF_READS_AT_ONCE, read)).toEqual(items.map((k) => k * 2));
    expect(most).toBe(EXIF_READS_AT_ONCE);
    started = 0;
    await expect(mapBounded([1, 2, -1, ...items], EXIF_READS_AT_ONCE, read)).rejects.toThrow('damaged');
    expect(started).toBeLessThan(10);
    expect(await mapBounded([], 4, read)).toEqual([]);
  });

  it('reads every photo in order', async () => {
    const files = await Promise.all([0, 1, 2, 3, 4, 5].map(async (k) => {
      const f = join(tmp, `all-${k}.jpg`);
      await sharp({ create: { width: 40 + k, height: 30, channels: 3, background: '#3a6' } }).jpeg().toFile(f);
      return f;
    }));
    expect((await readDroneExifAll(files)).map((p) => p.widthPx)).toEqual([40, 41, 42, 43, 44, 45]);
  });
});

describe('checkSurvey', () => {
  it('rejects one photo, photos without GPS and photos of two flights, with their keys', () => {
    expect(keyOf(() => checkSurvey([photo({})]))).toBe('drone_too_few_images');
    expect(keyOf(() => checkSurvey([]))).toBe('drone_too_few_images');
    expect(keyOf(() => checkSurvey([photo({ path: '/a' }), photo({ path: '/b', file: 'b.jpg', gps: null })]))).toBe('drone_no_gps');
    const t0 = Date.UTC(2016, 5, 23, 16);
    const day2 = photo({ path: '/c', file: 'c.jpg', capturedAt: '2016-06-24T16:00:00', capturedAtMs: t0 + 86_400_000 });
    const flight = [0, 5, 10].map((s) => photo({ path: `/${s}`, capturedAtMs: t0 + s * 1000 }));
    expect(keyOf(() => checkSurvey([...flight, day2]))).toBe('drone_mixed_flights');
    expect(otherFlights([...flight, day2])).toEqual([day2]);
    const late = photo({ path: '/d', file: 'd.jpg', capturedAtMs: t0 + 3 * 3_600_000 });
    expect(otherFlights([...flight, late])).toEqual([late]);
    expect(keyOf(() => checkSurvey(flight))).toBeUndefined();
  });

  it('refuses photos farther than MAX_SURVEY_RADIUS_KM from the others, naming them', () => {
    // One photo over the field and one in Sydney: the mosaic's frame would span the globe.
    const field = [0, 1, 2].map((k) => photo({ path: `/${k}`, file: `${k}.jpg`, gps: { lat: 46.84 + k * 1e-4, lon: -91.99, altM: 200 } }));
    const sydney = photo({ path: '/s', file: 'sydney.jpg', gps: { lat: -33.87, lon: 151.21, altM: 30 } });
    expect(farFromSurvey([...field, sydney])).toEqual([sydney]);
    let refused: AppError | undefined;
    try {
      checkSurvey([...field, sydney]);
    } catch (e) {
      refused = e as AppError;
    }
    expect([refused?.key, refused?.params]).toEqual(['drone_photos_far_apart', { files: 'sydney.jpg', count: 1, km: MAX_SURVEY_RADIUS_KM }]);
    // A neighbouring field of the same flight, 5 km on, is still one survey.
    const near = photo({ path: '/n', file: 'n.jpg', gps: { lat: 46.885, lon: -91.99, altM: 200 } });
    expect(keyOf(() => checkSurvey([...field, near]))).toBeUndefined();
  });

  it('leaves out, to be named, captures without GPS (a frame before the GPS fix) while two others have it', () => {
    const noFix = photo({ path: '/first', file: 'first.jpg', gps: null });
    const flight = [1, 2, 3].map((i) => photo({ path: `/${i}`, file: `${i}.jpg` }));
    expect(checkSurvey([noFix, ...flight])).toEqual({ located: flight, withoutGps: [noFix], otherCamera: [] });
    // A capture of bands is left out whole when one of its bands has no position.
    const bands = (id: string, gps?: null) => ['Red', 'NIR'].map((b, i) => photo({ path: `/${id}${b}`, bandName: b, captureUuid: id, ...(i === 1 && gps === null ? { gps: null } : {}) }));
    const result = checkSurvey([...bands('u1'), ...bands('u2'), ...bands('u3', null)]);
    expect(result.located.map((p) => p.path)).toEqual(['/u1Red', '/u1NIR', '/u2Red', '/u2NIR']);
    expect(result.withoutGps.map((p) => p.path)).toEqual(['/u3Red', '/u3NIR']);
    // Fewer than two located: refused, naming the photos without.
    expect(keyOf(() => checkSurvey([noFix, photo({ path: '/b', file: 'b.jpg', gps: null }), flight[0]!]))).toBe('drone_no_gps');
  });

  it('leaves out, to be named, the photos of a drone\'s other cameras: the survey\'s took the most captures, then has the widest view', () => {
    // As a DJI enterprise drone stores them: wide 4.5 mm, zoom 21 mm and thermal 9.1 mm shots of one model, side by side.
    const cam = (lens: string, focal: number, width: number, height: number, sensor: number) => (k: number) =>
      photo({ path: `/${k}_${lens}.jpg`, file: `${k}_${lens}.jpg`, model: 'M30T', focalLengthMm: focal, widthPx: width, heightPx: height, sensorWidthMm: sensor, sensorHeightMm: (sensor * height) / width });
    const wide = cam('W', 4.5, 4000, 3000, 6.4), zoom = cam('Z', 21, 8000, 6000, 7.6), thermal = cam('T', 9.1, 640, 512, 7.7);
    const ks = [1, 2, 3];
    const all = ks.flatMap((k) => [wide(k), zoom(k), thermal(k)]);
    const result = checkSurvey(all);
    expect(result.located.map((p) => p.file)).toEqual(['1_W.jpg', '2_W.jpg', '3_W.jpg']);
    expect(result.otherCamera.map((p) => p.file).sort()).toEqual(['1_T.jpg', '1_Z.jpg', '2_T.jpg', '2_Z.jpg', '3_T.jpg', '3_Z.jpg']);
    // Short of a shot, the wide camera still sees the most ground; a camera of as wide a view with more shots wins.
    expect(otherCameras(all.filter((p) => p.file !== '3_W.jpg')).map((p) => p.file).sort()).toEqual(['1_T.jpg', '1_Z.jpg', '2_T.jpg', '2_Z.jpg', '3_T.jpg', '3_Z.jpg']);
    const other = (k: number) => ({ ...wide(k), file: `${k}_O.jpg`, path: `/${k}_O.jpg`, model: 'FC6310' });
    expect(otherCameras([wide(1), wide(2), other(1), other(2), other(3)]).map((p) => p.file)).toEqual(['1_W.jpg', '2_W.jpg']);
    // A copy reduced for sending keeps its camera's EXIF: it is the same camera.
    expect(otherCameras([wide(1), { ...wide(2), widthPx: 1000, heightPx: 750 }])).toEqual([]);
    // Fired together under one CaptureUUID, the wide photo is the capture's main one, whatever the file order.
    const together = ks.flatMap((k) => [thermal(k), wide(k)].map((p) => ({ ...p, captureUuid: `c${k}` })));
    expect(groupCaptures(together).map((c) => c.main.file)).toEqual(['1_W.jpg', '2_W.jpg', '3_W.jpg']);
    expect(checkSurvey(together).otherCamera).toEqual([]);
    // A multispectral camera's band captures beside an RGB camera's photos (as Parrot's Sequoia stores
    // them): the bands give NDVI, and are kept over the RGB's wider view.
    const bandSet = (k: number) => ['Green', 'Red', 'NIR'].map((b) => ({ ...thermal(k), file: `${k}_${b}.tif`, path: `/${k}_${b}.tif`, bandName: b, captureUuid: `m${k}` }));
    expect(otherCameras([...ks.map(wide), ...ks.flatMap(bandSet)]).map((p) => p.file)).toEqual(['1_W.jpg', '2_W.jpg', '3_W.jpg']);
    // One photo of each camera is not a survey of any.
    expect(keyOf(() => checkSurvey([wide(1), thermal(1)]))).toBe('drone_too_few_images');
  });

  it('counts a multispectral capture (same CaptureUUID, one file per band) once', () => {
    const bands = ['Red', 'NIR', 'Green'].map((b) => photo({ path: `/${b}`, bandName: b, captureUuid: 'u1' }));
    expect(groupCaptures(bands)).toHaveLength(1);
    expect(groupCaptures(bands)[0]!.main.bandName).toBe('Green');
    expect(keyOf(() => checkSurvey(bands))).toBe('drone_too_few_images');
    expect(keyOf(() => checkSurvey([...bands, ...bands.map((p) => ({ ...p, path: p.path + '2', captureUuid: 'u2' }))]))).toBeUndefined();
  });

  it.skipIf(skip)('finds the field under the majority of photo centres (15 m buffer) and no field elsewhere', async () => {
    const photos = await Promise.all(readdirSync(dir).map((f) => readDroneExif(join(dir, f))));
    expect(() => checkSurvey(photos)).not.toThrow();
    const centres = surveyCentroids(photos);
    expect(centres).toHaveLength(18);
    const lons = centres.map((c) => c[0]), lats = centres.map((c) => c[1]);
    const box = (w: number, s: number, e: number, n: number) => ({ type: 'Polygon' as const, coordinates: [[[w, s], [e, s], [e, n], [w, n], [w, s]]] });
    const [w, e, s, n] = [Math.min(...lons), Math.max(...lons), Math.min(...lats), Math.max(...lats)];
    // A field 10 m (about 0.00013° lon) short of the centres on the west side still holds them thanks to the buffer.
    const near = { id: 1, geometry: box(w + 0.00013, s, e, n) };
    const far = { id: 2, geometry: box(w + 0.01, s, e + 0.01, n) };
    expect(fieldUnderPhotos(centres, [far, near])?.id).toBe(1);
    expect(fieldUnderPhotos(centres, [far])).toBeNull();
    // Only a third of the centres inside: not a majority.
    const third = { id: 3, geometry: box(w - 0.001, s - 0.001, w + (e - w) / 3, n + 0.001) };
    expect(fieldUnderPhotos(centres, [third])).toBeNull();
  });

  it('estimates more time for more photos, no less than the bench measured and at most half again', () => {
    expect(estimateProcessingSeconds(200)).toBeGreaterThan(estimateProcessingSeconds(18));
    // bench/drone.ts at native resolution, load average about 6: brighton_beach 70.1 s (18 photos, 89.7 MP).
    for (const [photos, measured] of [[18, 70.1]] as const) {
      expect(estimateProcessingSeconds(photos)).toBeGreaterThanOrEqual(measured);
      expect(estimateProcessingSeconds(photos)).toBeLessThanOrEqual(1.5 * measured);
    }
  });
});
