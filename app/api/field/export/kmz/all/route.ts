import { Readable } from 'node:stream';
import { allKmzExport } from '@/lib/exports/kmz-request';
import { checkLimits, kmzLimits, rateLimitHeaders } from '@/lib/http/rate-limit';
import { fileResponse } from '@/lib/http/respond';
import { route } from '@/lib/http/route';

export const GET = route('GET /api/field/export/kmz/all', async ({ db, user, url, locale, log }) => {
  const limit = await checkLimits(kmzLimits(user.id, user.companyId));
  const zip = await allKmzExport(db, url, locale, log);
  // Written as it is sent: its size is not known until the end.
  return fileResponse(Readable.toWeb(zip) as ReadableStream<Uint8Array>, { name: 'fields_kmz.zip', type: 'application/zip' }, rateLimitHeaders(limit));
});
