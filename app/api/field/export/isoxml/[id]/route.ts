import { isoxmlExport } from '@/lib/exports/isoxml-request';
import { attachment } from '@/lib/exports/load';
import { route } from '@/lib/http/route';
import { pathId } from '@/lib/http/validate';

export const GET = route('GET /api/field/export/isoxml/{id}', async ({ db, user, params, url }) => {
  const { zip, fileName } = await isoxmlExport(db, user.companyId, { fieldId: pathId(params.id) }, url);
  return new Response(new Uint8Array(zip), { headers: attachment(fileName, 'application/zip') });
});
