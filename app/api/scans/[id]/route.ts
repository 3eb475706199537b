import { deleteScan, getScan, scanDetail } from '@/lib/fields/scans';
import { ok } from '@/lib/http/respond';
import { route } from '@/lib/http/route';
import { pathId } from '@/lib/http/validate';

export const GET = route('GET /api/scans/{id}', async ({ db, params }) => ok({ scan: scanDetail(await getScan(db, pathId(params.id))) }));

export const DELETE = route('DELETE /api/scans/{id}', async ({ db, params }) => {
  await deleteScan(db, pathId(params.id));
  return ok();
});
