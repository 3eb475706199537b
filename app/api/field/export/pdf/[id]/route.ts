import { pdfReport } from '@/lib/exports/pdf-request';
import { checkLimits, documentLimits, rateLimitHeaders } from '@/lib/http/rate-limit';
import { fileResponse } from '@/lib/http/respond';
import { route } from '@/lib/http/route';
import { pathId } from '@/lib/http/validate';

export const GET = route('GET /api/field/export/pdf/{id}', async ({ db, user, params, url, locale }) => {
  const limit = await checkLimits(documentLimits(user.id, user.companyId));
  const { pdf, fileName } = await pdfReport(db, user.companyId, { fieldId: pathId(params.id) }, url, locale);
  return fileResponse(new Uint8Array(pdf), { name: fileName, type: 'application/pdf' }, rateLimitHeaders(limit));
});
