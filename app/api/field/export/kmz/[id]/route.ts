import { runExportWork } from '@/lib/exports/export-work';
import { loadExportField } from '@/lib/exports/load';
import { flightHeaders, kmzFileName, validateFlightParams } from '@/lib/exports/wpml';
import { checkLimits, kmzLimits, rateLimitHeaders } from '@/lib/http/rate-limit';
import { fileResponse } from '@/lib/http/respond';
import { route } from '@/lib/http/route';
import { pathId } from '@/lib/http/validate';

export const GET = route('GET /api/field/export/kmz/{id}', async ({ db, user, params, url }) => {
  const limit = await checkLimits(kmzLimits(user.id, user.companyId));
  const opts = validateFlightParams(Object.fromEntries(url.searchParams));
  const field = await loadExportField(db, pathId(params.id));
  const { file, flight } = await runExportWork({ op: 'kmz', field: { geometry: field.geometry }, opts });
  return fileResponse(new Uint8Array(file), { name: kmzFileName(field.name), type: 'application/vnd.google-earth.kmz' }, { ...rateLimitHeaders(limit), ...flightHeaders(flight!) });
});
