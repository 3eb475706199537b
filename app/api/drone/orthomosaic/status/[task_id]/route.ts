// GET /api/drone/orthomosaic/status/{task_id} (spec 4.7): a drone task's state in the drone wording.
import { droneTaskStatus } from '@/lib/scans/drone-survey';
import { ok } from '@/lib/http/respond';
import { route } from '@/lib/http/route';

export const GET = route('GET /api/drone/orthomosaic/status/{task_id}', async ({ db, params, locale }) =>
  ok(await droneTaskStatus(db, typeof params.task_id === 'string' ? params.task_id : '', locale)),
);
