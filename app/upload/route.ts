// POST /upload (spec 4.4): the part name says what is uploaded. Files stream to disk first.
import { join } from 'node:path';
import { config } from '@/lib/config';
import { importShapefile, parseColumnMapping } from '@/lib/fields/import';
import { submitRasterZoning } from '@/lib/scans/zoning';
import { unprocessable } from '@/lib/errors';
import { ok } from '@/lib/http/respond';
import { route } from '@/lib/http/route';
import { translate } from '@/lib/i18n/messages';
import { recordImport } from '@/lib/tasks/import-record';
import { receiveMultipart } from '@/lib/uploads/multipart';

const MB = 1024 * 1024;
const UPLOAD_LIMITS = { shapefile_zip: 50 * MB, raster_file: 1024 * MB };

export const POST = route('POST /upload', async ({ req, db, user, locale, log }) => {
  const tmp = join(config().dataDir, 'tmp');
  const received = await receiveMultipart(req, { dir: tmp, files: UPLOAD_LIMITS });
  try {
    const { shapefile_zip: shapefile, raster_file: raster } = received.files;
    if (shapefile && raster) throw unprocessable('upload_two_parts');
    if (shapefile) {
      const record = { kind: 'shapefile' as const, fileName: shapefile.filename || null, createdBy: user.id, startedAt: new Date() };
      let result: Awaited<ReturnType<typeof importShapefile>>;
      try {
        result = await importShapefile(user.companyId, shapefile.path, { workRoot: tmp, mapping: parseColumnMapping(received.fields.mapping) });
      } catch (err) {
        // Kept as a failed task for the recent tasks list, then answered as it was (a record that
        // cannot be written, the database away, must not hide the refusal).
        await recordImport(db, { ...record, outcome: { error: err } }).catch((recordErr: unknown) => log.error({ err: recordErr }, 'shapefile import not recorded as a task'));
        throw err;
      }
      const skipped = result.skipped.map((s) => ({ feature: s.feature, reason: translate(locale, `errors.${s.key}`, s.params) }));
      await recordImport(db, { ...record, outcome: { result: { fields_created: result.fields_created, skipped: result.skipped.length } } });
      return ok({ ...result, skipped });
    }
    if (raster) return ok(await submitRasterZoning(db, user.companyId, user.id, raster, received.fields), { status: 202 });
    throw unprocessable('upload_missing_part', { part: 'shapefile_zip | raster_file' });
  } finally {
    await received.discard();
  }
});
