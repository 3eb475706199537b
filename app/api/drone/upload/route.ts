// POST /api/drone/upload (spec 4.7): part `drone_images` (ZIP of the flight's photos, streamed to
// disk, up to 10 GB) and part `data` (JSON {field_id, crop_type}). Answers 202 at once.
import { join } from 'node:path';
import { requireFeature } from '@/lib/capabilities';
import { config } from '@/lib/config';
import { DRONE_ZIP_MAX_BYTES, submitDroneSurvey } from '@/lib/scans/drone-survey';
import { unprocessable } from '@/lib/errors';
import { ok } from '@/lib/http/respond';
import { route } from '@/lib/http/route';
import { translate } from '@/lib/i18n/messages';
import { receiveMultipart } from '@/lib/uploads/multipart';

export const POST = route('POST /api/drone/upload', async ({ req, db, user, locale }) => {
  // Before a byte of the archive is stored: without GDAL the survey would fail after minutes of work.
  requireFeature('drone');
  const received = await receiveMultipart(req, { dir: join(config().dataDir, 'tmp'), files: { drone_images: DRONE_ZIP_MAX_BYTES } });
  try {
    const zip = received.files.drone_images;
    if (!zip) throw unprocessable('upload_missing_part', { part: 'drone_images' });
    const accepted = await submitDroneSurvey(db, user.companyId, user.id, zip, received.fields);
    return ok(
      {
        message: translate(locale, 'drone.accepted'),
        task_id: accepted.task_id,
        field_id: accepted.field_id,
        scan_id: accepted.scan_id,
        estimated_time: translate(locale, 'drone.estimated', { minutes: Math.max(1, Math.ceil(accepted.estimated_seconds / 60)) }),
        estimated_seconds: accepted.estimated_seconds,
        photos: accepted.photos,
        ignored_files: accepted.ignored_files,
      },
      { status: 202 },
    );
  } finally {
    await received.discard();
  }
});
