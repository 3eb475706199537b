import { deleteScan, getScan, scanDetail, updateScan } from '@/lib/scans/scans';
import { updateScanBody } from '@/lib/scans/schemas';
import { ok } from '@/lib/http/respond';
import { route } from '@/lib/http/route';
import { pathId, readJson } from '@/lib/http/validate';

export const GET = route('GET /api/scans/{id}', async ({ db, params }) => ok({ scan: scanDetail(await getScan(db, pathId(params.id))) }));

export const PUT = route('PUT /api/scans/{id}', async ({ req, db, params }) => {
  const id = pathId(params.id);
  return ok({ scan: scanDetail(await updateScan(db, id, await readJson(req, updateScanBody))) });
});

export const DELETE = route('DELETE /api/scans/{id}', async ({ db, params }) => {
  await deleteScan(db, pathId(params.id));
  return ok();
});
