import { isoxmlExport } from '@/lib/exports/isoxml-request';
import { checkLimits, documentLimits, rateLimitHeaders } from '@/lib/http/rate-limit';
import { fileResponse } from '@/lib/http/respond';
import { route } from '@/lib/http/route';
import { pathId } from '@/lib/http/validate';

export const GET = route('GET /api/field/export/isoxml/{id}', async ({ db, user, params, url }) => {
  const limit = await checkLimits(documentLimits(user.id, user.companyId));
  const { zip, fileName } = await isoxmlExport(db, user.companyId, { fieldId: pathId(params.id) }, url);
  return fileResponse(new Uint8Array(zip), { name: fileName, type: 'application/zip' }, rateLimitHeaders(limit));
});
