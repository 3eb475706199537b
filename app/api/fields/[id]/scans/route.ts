import { listScans } from '@/lib/scans/scans';
import { ok } from '@/lib/http/respond';
import { route } from '@/lib/http/route';
import { pathId } from '@/lib/http/validate';

export const GET = route('GET /api/fields/{id}/scans', async ({ db, params, locale }) => ok({ scans: await listScans(db, pathId(params.id), locale) }));
