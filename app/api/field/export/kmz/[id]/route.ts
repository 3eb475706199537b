import { kmzExport } from '@/lib/exports/kmz-request';
import { checkLimits, kmzLimits, rateLimitHeaders } from '@/lib/http/rate-limit';
import { fileResponse } from '@/lib/http/respond';
import { route } from '@/lib/http/route';
import { pathId } from '@/lib/http/validate';

export const GET = route('GET /api/field/export/kmz/{id}', async ({ db, user, params, url }) => {
  const limit = await checkLimits(kmzLimits(user.id, user.companyId));
  const { kmz, fileName, headers } = await kmzExport(db, pathId(params.id), url);
  return fileResponse(new Uint8Array(kmz), { name: fileName, type: 'application/vnd.google-earth.kmz' }, { ...rateLimitHeaders(limit), ...headers });
});
