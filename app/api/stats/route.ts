import { statsQuery } from '@/lib/fields/schemas';
import { fieldStats } from '@/lib/fields/stats';
import { ok } from '@/lib/http/respond';
import { route } from '@/lib/http/route';
import { readQuery } from '@/lib/http/validate';

export const GET = route('GET /api/stats', async ({ db, url }) => ok(await fieldStats(db, readQuery(url, statsQuery).year)));
