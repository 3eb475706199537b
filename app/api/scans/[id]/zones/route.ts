// POST /api/scans/{id}/zones: make a completed scan's zones again (lib/scans/rezone.ts).
import { rezoneScanBody } from '@/lib/scans/schemas';
import { submitRezoning } from '@/lib/scans/rezone';
import { ok } from '@/lib/http/respond';
import { route } from '@/lib/http/route';
import { pathId, readJson } from '@/lib/http/validate';

export const POST = route('POST /api/scans/{id}/zones', async ({ req, db, user, params }) =>
  ok(await submitRezoning(db, user.id, pathId(params.id), await readJson(req, rezoneScanBody)), { status: 202 }),
);
