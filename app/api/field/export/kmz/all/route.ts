import { Readable } from 'node:stream';
import { loadExportFields } from '@/lib/exports/load';
import { buildAllFlightPlansZip, validateFlightParams } from '@/lib/exports/wpml';
import { notFound } from '@/lib/http/errors';
import { checkLimits, kmzLimits, rateLimitHeaders } from '@/lib/http/rate-limit';
import { fileResponse } from '@/lib/http/respond';
import { route } from '@/lib/http/route';

export const GET = route('GET /api/field/export/kmz/all', async ({ db, user, url }) => {
  const limit = await checkLimits(kmzLimits(user.id, user.companyId));
  const opts = validateFlightParams(Object.fromEntries(url.searchParams));
  const fields = await loadExportFields(db);
  if (!fields.length) throw notFound('export_no_fields');
  const zip = buildAllFlightPlansZip(fields, opts);
  // Written as it is sent: its size is not known until the end.
  return fileResponse(Readable.toWeb(zip) as ReadableStream<Uint8Array>, { name: 'fields_kmz.zip', type: 'application/zip' }, rateLimitHeaders(limit));
});
