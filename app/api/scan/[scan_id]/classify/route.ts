// GET /api/scan/{scan_id}/classify (spec 2.6): the scan's crop, confidence, candidates and index stats.
import { scanClassification } from '@/lib/scans/scans';
import { ok } from '@/lib/http/respond';
import { route } from '@/lib/http/route';
import { pathId } from '@/lib/http/validate';

export const GET = route('GET /api/scan/{scan_id}/classify', async ({ db, params }) => ok(await scanClassification(db, pathId(params.scan_id))));
