import { Readable } from 'node:stream';
import { attachment, loadExportFields } from '@/lib/exports/load';
import { buildAllFlightPlansZip, validateFlightParams } from '@/lib/exports/wpml';
import { checkLimits, kmzLimits, rateLimitHeaders } from '@/lib/http/rate-limit';
import { route } from '@/lib/http/route';

export const GET = route('GET /api/field/export/kmz/all', async ({ db, user, url }) => {
  const limit = await checkLimits(kmzLimits(user.id, user.companyId));
  const opts = validateFlightParams(Object.fromEntries(url.searchParams));
  const zip = buildAllFlightPlansZip(await loadExportFields(db), opts);
  return new Response(Readable.toWeb(zip) as ReadableStream, { headers: { ...attachment('fields_kmz.zip', 'application/zip'), ...rateLimitHeaders(limit) } });
});
