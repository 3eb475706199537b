// Cheap checks on a set of drone photos, run before the upload is answered: enough photos, GPS in
// each, one flight; and where the photos are, so the route can find the field under them.
import { booleanPointInPolygon, buffer, distance, point } from '@turf/turf';
import type { MultiPolygon, Polygon } from 'geojson';
import { AppError, unprocessable } from '@/lib/errors';
import { quotedName } from '@/lib/uploads/zip-archive';
import { fieldOfView, type DronePhoto } from './exif';
import { centreGround, heightM, TYPICAL_FOV_H, utmFrame } from './frame';

/** One exposure: a single RGB photo, or the band photos of a multispectral capture (same CaptureUUID). */
export interface Capture {
  id: string;
  photos: DronePhoto[];
  /** The photo used for placement and matching (the RGB one, else Green, else the first band). */
  main: DronePhoto;
}

/**
 * Groups band photos by CaptureUUID (not by file name); photos without one are captures on their own.
 * Where one capture holds photos of several cameras without band names (a wide, a zoom and a thermal
 * camera firing together), the widest view is its main photo.
 */
export function groupCaptures(photos: DronePhoto[]): Capture[] {
  const byId = new Map<string, DronePhoto[]>();
  for (const p of photos) {
    const id = p.captureUuid ?? `file:${p.path}`;
    byId.set(id, [...(byId.get(id) ?? []), p]);
  }
  return [...byId.entries()].map(([id, ps]) => {
    const unbanded = ps.filter((p) => !p.bandName).sort((x, y) => groundShare(y) - groundShare(x) || y.widthPx * y.heightPx - x.widthPx * x.heightPx);
    const main = unbanded[0] ?? ps.find((p) => /green/i.test(p.bandName ?? '')) ?? ps[0]!;
    return { id, photos: ps, main };
  });
}

/**
 * The camera a photo was taken with, as far as its tags tell: maker, model and focal length. A wide and
 * a thermal camera of one drone share the model but not the lens; a reduced copy keeps its camera's.
 */
export const cameraOf = (p: DronePhoto) => JSON.stringify([p.make, p.model, p.focalLengthMm === null ? null : Math.round(p.focalLengthMm * 10)]);

/** How much ground a photo sees from a given height, in squared heights (a typical drone lens when its optics are unknown). */
function groundShare(p: DronePhoto): number {
  const fov = fieldOfView(p);
  const tanH = Math.tan((fov?.h ?? TYPICAL_FOV_H) / 2);
  return 4 * tanH * (fov ? Math.tan(fov.v / 2) : (tanH * p.heightPx) / p.widthPx);
}

/**
 * Photos of cameras other than the survey's. A drone with wide, zoom and thermal cameras may store
 * all their shots in one folder; the mosaic is made of one camera's. The survey's camera is a
 * multispectral one where there is one (its bands give NDVI), then the one whose captures see the
 * most ground (so the wide camera, even short of a shot or two, over the zoom or the thermal), then
 * the one with the most pixels.
 */
export function otherCameras(photos: DronePhoto[]): DronePhoto[] {
  const captures = groupCaptures(photos);
  const byCamera = new Map<string, Capture[]>();
  for (const c of captures) byCamera.set(cameraOf(c.main), [...(byCamera.get(cameraOf(c.main)) ?? []), c]);
  if (byCamera.size < 2) return [];
  const multispectral = (c: Capture) => c.photos.filter((p) => p.bandName).length >= 2;
  const rank = (cs: Capture[]) => [multispectral(cs[0]!) ? 1 : 0, cs.length * groundShare(cs[0]!.main), cs[0]!.main.widthPx * cs[0]!.main.heightPx];
  const best = [...byCamera.values()].reduce((a, b) => {
    const [ra, rb] = [rank(a), rank(b)];
    const k = ra.findIndex((v, i) => v !== rb[i]);
    return k >= 0 && rb[k]! > ra[k]! ? b : a;
  });
  const kept = new Set(best);
  return captures.filter((c) => !kept.has(c)).flatMap((c) => c.photos);
}

/** Gap between consecutive photos that means a different flight (battery swaps take minutes, not hours). */
export const MAX_FLIGHT_GAP_MS = 60 * 60 * 1000;

const dayOf = (p: DronePhoto) => p.capturedAt?.slice(0, 10) ?? null;

/** Files whose photos come from another flight than the first group (different day or a long pause). */
export function otherFlights(photos: DronePhoto[]): DronePhoto[] {
  const dated = photos.filter((p) => p.capturedAtMs !== null).sort((x, y) => x.capturedAtMs! - y.capturedAtMs!);
  if (dated.length < 2) return [];
  const flights: DronePhoto[][] = [[dated[0]!]];
  for (let i = 1; i < dated.length; i++) {
    const prev = dated[i - 1]!;
    const cur = dated[i]!;
    if (cur.capturedAtMs! - prev.capturedAtMs! > MAX_FLIGHT_GAP_MS || dayOf(cur) !== dayOf(prev)) flights.push([]);
    flights.at(-1)!.push(cur);
  }
  if (flights.length === 1) return [];
  const largest = flights.reduce((m, f) => (f.length > m.length ? f : m));
  return flights.filter((f) => f !== largest).flat();
}

/**
 * How far (km) a photo may lie from the survey's median position. A field's flight spans a few
 * kilometres at most; a photo of another place (a copied file, a GPS fix gone wrong) would stretch
 * the mosaic's frame across the whole distance, at centimetres a pixel.
 */
export const MAX_SURVEY_RADIUS_KM = 10;

/** Photos farther than MAX_SURVEY_RADIUS_KM from the median latitude and longitude of the located ones. */
export function farFromSurvey(photos: DronePhoto[]): DronePhoto[] {
  const located = photos.filter((p) => p.gps);
  const median = (v: number[]) => v.sort((a, b) => a - b)[v.length >> 1]!;
  const centre = point([median(located.map((p) => p.gps!.lon)), median(located.map((p) => p.gps!.lat))]);
  return located.filter((p) => distance(centre, point([p.gps!.lon, p.gps!.lat]), { units: 'kilometers' }) > MAX_SURVEY_RADIUS_KM);
}

/** Names for a message: the first five, each quoted safely (quotedName), and how many more. */
export function listNames(names: string[]): string {
  const quoted = names.slice(0, 5).map((n) => quotedName(n));
  return names.length > 5 ? `${quoted.join(', ')} … (+${names.length - 5})` : quoted.join(', ');
}

const listFiles = (ps: DronePhoto[]) => listNames(ps.map((p) => p.file));

/**
 * The photos a survey is made of, and those left out: a capture with a photo without GPS (a frame
 * taken before the GPS fix, often a flight's first) is left out, to be named with the other files the
 * survey does not use, rather than refusing the survey; so are the photos of another camera
 * (otherCameras). Throws AppError (422) for the first problem:
 * `drone_too_few_images` (under 2 captures), `drone_no_gps` (under 2 captures with GPS; params.files
 * lists the photos without), `drone_mixed_flights` (params.files: the odd ones out), `drone_photos_far_apart`
 * (params.files: those farther than MAX_SURVEY_RADIUS_KM from the others).
 */
export function checkSurvey(photos: DronePhoto[]): { located: DronePhoto[]; withoutGps: DronePhoto[]; otherCamera: DronePhoto[] } {
  const captures = groupCaptures(photos);
  if (captures.length < 2) throw unprocessable('drone_too_few_images');
  const isLocated = (c: Capture) => c.photos.every((p) => p.gps);
  const withGps = captures.filter(isLocated);
  const withoutGps = captures.filter((c) => !isLocated(c)).flatMap((c) => c.photos);
  if (withGps.length < 2) {
    const noGps = photos.filter((p) => !p.gps);
    throw unprocessable('drone_no_gps', { files: listFiles(noGps), count: noGps.length });
  }
  // otherCameras leaves out whole captures, the same as grouped here.
  const otherCamera = otherCameras(withGps.flatMap((c) => c.photos));
  const other = new Set(otherCamera);
  const ofCamera = withGps.filter((c) => !other.has(c.main));
  if (ofCamera.length < 2) throw unprocessable('drone_too_few_images');
  const located = ofCamera.flatMap((c) => c.photos);
  const odd = otherFlights(located);
  if (odd.length) throw unprocessable('drone_mixed_flights', { files: listFiles(odd), count: odd.length });
  const far = farFromSurvey(located);
  if (far.length) throw unprocessable('drone_photos_far_apart', { files: listFiles(far), count: far.length, km: MAX_SURVEY_RADIUS_KM });
  return { located, withoutGps, otherCamera };
}

/** Ground point under the centre of each capture, [lon, lat] (photos without GPS are left out). */
export function surveyCentroids(photos: DronePhoto[]): [number, number][] {
  const located = groupCaptures(photos).map((c) => c.main).filter((p) => p.gps);
  if (!located.length) return [];
  const frame = utmFrame(located[0]!.gps!.lon, located[0]!.gps!.lat);
  return located.map((p) => {
    const [e, n] = centreGround(p, frame, heightM(p, 100));
    return frame.toWgs84(e, n);
  });
}

export const FIELD_BUFFER_M = 15;

/**
 * The field under the photos: the one holding the majority of the centres, its polygon buffered by
 * 15 m (GPS error, headlands). Null when none does; the route then answers `drone_field_not_found`.
 */
export function fieldUnderPhotos<T extends { id: number; geometry: Polygon | MultiPolygon }>(
  centroids: [number, number][],
  fields: T[],
): T | null {
  if (!centroids.length) return null;
  let best: { field: T; count: number } | null = null;
  for (const field of fields) {
    const zone = buffer(field.geometry, FIELD_BUFFER_M / 1000, { units: 'kilometers' });
    if (!zone) continue;
    const count = centroids.filter((c) => booleanPointInPolygon(point(c), zone)).length;
    if (count * 2 > centroids.length && (!best || count > best.count)) best = { field, count };
  }
  return best?.field ?? null;
}

export const fieldNotFound = () => new AppError('unprocessable', 'drone_field_not_found');

/**
 * Expected processing time in seconds, from the measured speed of this pipeline on 2 cores at the
 * photos' native resolution (bench/drone.ts, brighton_beach's 18 photos, 89.7 MP of output, on a
 * load average about 6, 70.1 s; bench/HISTORY.md): now that the output is not capped, compositing and writing grow
 * with the photos like decoding, features and matching, so nearly all of it is a per-photo cost.
 */
export const SECONDS_FIXED = 5;
export const SECONDS_PER_PHOTO = 3.8;
export function estimateProcessingSeconds(photoCount: number): number {
  return Math.ceil(SECONDS_FIXED + SECONDS_PER_PHOTO * Math.max(0, photoCount));
}
