import { fieldStats } from '@/lib/fields/stats';
import { ok } from '@/lib/http/respond';
import { route } from '@/lib/http/route';

export const GET = route('GET /api/stats', async ({ db }) => ok(await fieldStats(db)));
