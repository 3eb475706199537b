// Uploading the photos of one drone flight (spec 4.7): the ZIP is checked and unpacked safely, every
// photo's metadata is read and what can be checked cheaply is checked before answering (enough
// photos, GPS in each, one flight, a field under them), then a Scan row (status `processing`) and a
// `drone` task are made together and the task is dispatched. The heavy work runs in the background.
import { randomUUID } from 'node:crypto';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { booleanPointInPolygon, buffer, point } from '@turf/turf';
import type { MultiPolygon, Polygon } from 'geojson';
import { z } from 'zod';
import { config } from '../config';
import { type TenantDb, tenantCreate } from '../db/tenant';
import type { DronePhoto } from '../drone/exif';
import { groundSampleM, heightM } from '../drone/frame';
import { checkSurvey, estimateProcessingSeconds, FIELD_BUFFER_M, fieldNotFound, fieldUnderPhotos, groupCaptures, listNames, surveyCentroids } from '../drone/survey';
import { badRequest, insufficientStorage, isDiskFull, notFound, unprocessable } from '../errors';
import { freeBytes } from '../free-space';
import { refuseUnstorableText, validate } from '../http/validate';
import type { Locale } from '../i18n/locales';
import { submitTask } from '../tasks/queue';
import { currentStep, progressText, taskErrorText } from '../tasks/view';
import type { DroneJobPayload } from '../jobs/drone-job';
import { storeDataPath } from '../uploads/data-path';
import type { ReceivedFile } from '../uploads/multipart';
import { extractZipSafely, listZip, type ZipEntryInfo, type ZipLimits } from '../uploads/zip-archive';
import { fieldsMeetingBox } from '../fields/fields';
import { dronePhotosDir } from '../fields/files';
import { userCrop } from './schemas';
import { recordIdText } from '../http/record-id';
import { readPhotoMetadataBounded } from './upload-checks';

const GB = 1024 ** 3;
/** The upload limit of the `drone_images` part (issue 10: up to 10 GB). */
export const DRONE_ZIP_MAX_BYTES = 10 * GB;
/**
 * Photos barely compress, so a drone ZIP unpacks to about its own size: 12 GB leaves room for a few
 * text files; the per-entry ratio check (zip bombs) and the entry count stay as for every ZIP.
 */
export const DRONE_ZIP_LIMITS: Partial<ZipLimits> = { maxEntries: 5000, maxTotalBytes: 12 * GB };
/** Room kept free beside the photos for the mosaic, its index and previews. */
const WORK_MARGIN_BYTES = 512 * 1024 ** 2;

const PHOTO_NAME = /\.(jpe?g|tiff?)$/i;
/** macOS resource forks and hidden files ride along in many archives; they are not photos. */
const isJunk = (name: string) => name.split('/').some((part) => part === '__MACOSX' || (part.startsWith('.') && part !== '.'));

const fieldIdSchema = z.union([z.literal('auto'), z.null(), recordIdText]).optional();
/**
 * Bounds of the upload option `resolution_cm` (docs/drone.md): the mosaic is made at the photos' own
 * ground resolution, or coarser when asked; a finer value than the photos' is their own.
 */
export const RESOLUTION_CM = { min: 1, max: 50 };
export const droneUploadData = z.object({
  // A JSON `data` part carries the id as a number, a part of its own as text: both are read as text.
  field_id: z.preprocess((v) => (typeof v === 'string' ? v.trim().toLowerCase() || undefined : typeof v === 'number' ? String(v) : v), fieldIdSchema),
  crop_type: userCrop.optional(),
  // A part of its own carries the number as text.
  resolution_cm: z.preprocess(
    (v) => (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v),
    z.number().min(RESOLUTION_CM.min).max(RESOLUTION_CM.max),
  ).optional(),
});
export type DroneUploadData = z.infer<typeof droneUploadData>;

/** The `data` part (JSON text); without it, `field_id`, `crop_type` and `resolution_cm` may come as parts of their own. */
export function parseDroneData(parts: Record<string, string>): DroneUploadData {
  let input: unknown = { field_id: parts.field_id, crop_type: parts.crop_type, resolution_cm: parts.resolution_cm };
  if (parts.data !== undefined && parts.data.trim() !== '') {
    try {
      input = JSON.parse(parts.data);
    } catch {
      throw badRequest('invalid_json_part', { part: 'data' });
    }
  }
  refuseUnstorableText(input);
  return validate(droneUploadData, input);
}

export interface DroneSurveyAccepted {
  task_id: string;
  field_id: number;
  scan_id: number;
  /** Expected processing time in seconds (bench-measured speed of this pipeline). */
  estimated_seconds: number;
  photos: number;
  /** Entries of the archive that are not JPEG or TIFF photos: left out. */
  ignored_files: string[];
}


/** Half the ground diagonal of the largest photo: how far from its centre a photo still sees the ground. */
function reachM(photos: DronePhoto[]): number {
  let reach = 0;
  for (const p of photos) {
    const h = heightM(p, 100);
    const gsd = groundSampleM(p, h) ?? (2 * h * Math.tan((42 * Math.PI) / 180)) / p.widthPx;
    reach = Math.max(reach, (gsd * Math.hypot(p.widthPx, p.heightPx)) / 2);
  }
  return reach;
}

/** A field named by the user must at least be within sight of one photo. */
function photosSeeField(centroids: [number, number][], geometry: Polygon | MultiPolygon, photos: DronePhoto[]): boolean {
  const zone = buffer(geometry, (FIELD_BUFFER_M + reachM(photos)) / 1000, { units: 'kilometers' });
  return !!zone && centroids.some((c) => booleanPointInPolygon(point(c), zone));
}

async function chooseField(db: TenantDb, fieldId: number | undefined, photos: DronePhoto[]) {
  const centroids = surveyCentroids(photos);
  if (fieldId !== undefined) {
    const row = await db.field.findUnique({ where: { id: fieldId }, select: { id: true, geometry: true } });
    if (!row) throw notFound();
    const geometry = JSON.parse(row.geometry) as Polygon | MultiPolygon;
    if (!photosSeeField(centroids, geometry, photos)) throw unprocessable('drone_field_not_covered');
    return { id: row.id, geometry };
  }
  // Candidates: fields whose bounding box comes within about 500 m of the photo centres.
  const lons = centroids.map((c) => c[0]);
  const lats = centroids.map((c) => c[1]);
  const margin = 0.005;
  const rows = await db.field.findMany({
    where: fieldsMeetingBox({ minLon: Math.min(...lons) - margin, minLat: Math.min(...lats) - margin, maxLon: Math.max(...lons) + margin, maxLat: Math.max(...lats) + margin }),
    select: { id: true, geometry: true },
  });
  const found = fieldUnderPhotos(
    centroids,
    rows.map((r) => ({ id: r.id, geometry: JSON.parse(r.geometry) as Polygon | MultiPolygon })),
  );
  if (!found) throw fieldNotFound();
  return found;
}

async function ensureSpace(dir: string, bytes: number): Promise<void> {
  await mkdir(dir, { recursive: true });
  const free = await freeBytes(dir);
  if (free !== null && free < bytes + WORK_MARGIN_BYTES) throw insufficientStorage();
}

/**
 * Checks and accepts one flight's photos; throws AppError for every refusal (the photos are removed
 * again). The ZIP file itself is left to the caller (it discards the upload).
 */
export async function submitDroneSurvey(
  db: TenantDb,
  companyId: number,
  userId: number,
  zipFile: ReceivedFile,
  parts: Record<string, string>,
): Promise<DroneSurveyAccepted> {
  const data = parseDroneData(parts);
  const entries = await listZip(zipFile.path, DRONE_ZIP_LIMITS);
  const { photoEntries, ignored } = surveyEntries(entries);
  // Unpacked into a folder of the company's own, then moved to the field's files once the field is known.
  const taskId = randomUUID();
  const staging = join(config().dataDir, 'companies', String(companyId), 'uploads', taskId);
  await ensureSpace(dirname(staging), entries.reduce((s, e) => s + e.size, 0));
  let photosDir = staging;
  let submitted = false;
  try {
    const photos = await unpackSurveyPhotos(zipFile.path, staging, photoEntries, ignored);
    const field = await chooseField(db, data.field_id === 'auto' || data.field_id === null ? undefined : data.field_id, photos);
    // The photos stay with the field's files (removed with the field), one folder per survey.
    photosDir = dronePhotosDir(companyId, field.id, taskId);
    await mkdir(dirname(photosDir), { recursive: true });
    await rename(staging, photosDir);
    const payload: DroneJobPayload = {
      photoPaths: photos.map((p) => storeDataPath(join(photosDir, p.path.slice(staging.length + 1)))), photosDir: storeDataPath(photosDir),
      fileName: zipFile.filename || 'drone.zip', fieldGeometry: field.geometry,
      ...(data.resolution_cm !== undefined ? { resolutionM: data.resolution_cm / 100 } : {}),
    };
    const details = { photos: photos.length, captures: groupCaptures(photos).length, ignored_files: ignored };
    // From here the photos are the task's: submitTask removes them when its row cannot be written.
    submitted = true;
    const task = await submitTask(db, {
      id: taskId, kind: 'drone', payload, fileName: payload.fileName, fieldId: field.id, createdBy: userId, ownedFiles: [photosDir],
      announceScan: (tx) => tx.scan.create({ data: tenantCreate('scan', { source: 'drone', status: 'processing', fieldId: field.id, fileName: zipFile.filename || null, cropType: data.crop_type ?? null, detailsJson: JSON.stringify(details) }) }),
    });
    return { task_id: taskId, field_id: field.id, scan_id: task.scanId!, estimated_seconds: estimateProcessingSeconds(photos.length), photos: photos.length, ignored_files: ignored };
  } catch (err) {
    // Once the task row exists its photos belong to it (the local runner takes pending tasks up at start-up).
    if (!submitted) {
      await rm(photosDir, { recursive: true, force: true });
      if (photosDir !== staging) await rm(staging, { recursive: true, force: true });
    }
    throw isDiskFull(err) ? insufficientStorage() : err;
  }
}

/**
 * The archive's photos and the names of the files the survey leaves out; 422 for fewer than two
 * photos. The same photo twice (a folder zipped in twice, a copy beside its original) is one photo:
 * the others are ignored, named, as any other file the survey does not use.
 */
function surveyEntries(entries: ZipEntryInfo[]): { photoEntries: ZipEntryInfo[]; ignored: string[] } {
  const seen = new Set<string>();
  const photoEntries = entries.filter((e) => {
    if (!PHOTO_NAME.test(e.name) || isJunk(e.name)) return false;
    const content = `${e.crc32}:${e.size}`;
    if (seen.has(content)) return false;
    seen.add(content);
    return true;
  });
  const isPhoto = new Set(photoEntries);
  const ignored = entries.filter((e) => !isPhoto.has(e)).map((e) => e.name);
  if (photoEntries.length < 2) {
    throw ignored.length
      ? unprocessable('drone_too_few_images_found', { count: photoEntries.length, files: listNames(ignored) })
      : unprocessable('drone_too_few_images');
  }
  return { photoEntries, ignored };
}

/**
 * The photos unpacked into `staging` and checked as a survey (checkSurvey). Photos without GPS or of
 * another camera are named in `ignored` and removed, as no other file the survey leaves out is kept.
 */
async function unpackSurveyPhotos(zipPath: string, staging: string, photoEntries: ZipEntryInfo[], ignored: string[]): Promise<DronePhoto[]> {
  const photoNames = new Set(photoEntries.map((e) => e.name));
  const photoPaths = await extractZipSafely(zipPath, staging, DRONE_ZIP_LIMITS, (name) => photoNames.has(name));
  photoPaths.sort();
  const { located, withoutGps, otherCamera } = checkSurvey(await readPhotoMetadataBounded(photoPaths));
  const leftOut = [...withoutGps, ...otherCamera];
  ignored.push(...leftOut.map((p) => p.path.slice(staging.length + 1)));
  await Promise.all(leftOut.map((p) => rm(p.path, { force: true })));
  return located;
}

/** The drone status endpoint's words for the task states (spec 3: `processing` with a progress text). */
const DRONE_STATUS: Record<string, string> = { pending: 'queued', running: 'processing', completed: 'completed', error: 'error' };

/** `{task_id, status, progress, percent, error, scan_id, field_id, result}` of a drone task of the company; 404 otherwise. */
export async function droneTaskStatus(db: TenantDb, taskId: string, locale: Locale) {
  const task = /^[0-9a-f-]{36}$/.test(taskId) ? await db.task.findUnique({ where: { id: taskId } }) : null;
  if (!task || task.kind !== 'drone') throw notFound();
  const step = currentStep(task);
  return {
    task_id: task.id,
    status: DRONE_STATUS[task.status] ?? task.status,
    progress: progressText(step, locale),
    percent: task.percent,
    error: taskErrorText(task.error, locale),
    scan_id: task.scanId,
    field_id: task.fieldId,
    result: task.resultJson ? (JSON.parse(task.resultJson) as Record<string, unknown>) : null,
  };
}
