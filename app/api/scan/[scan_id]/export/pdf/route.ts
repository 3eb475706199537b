import { attachment } from '@/lib/exports/load';
import { pdfReport } from '@/lib/exports/pdf-request';
import { route } from '@/lib/http/route';
import { pathId } from '@/lib/http/validate';

export const GET = route('GET /api/scan/{scan_id}/export/pdf', async ({ db, user, params, url, locale }) => {
  const { pdf, fileName } = await pdfReport(db, user.companyId, { scanId: pathId(params.scan_id) }, url, locale);
  return new Response(new Uint8Array(pdf), { headers: attachment(fileName, 'application/pdf') });
});
