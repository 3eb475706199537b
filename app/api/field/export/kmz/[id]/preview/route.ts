import { kmzPreview } from '@/lib/exports/kmz-request';
import { ok } from '@/lib/http/respond';
import { route } from '@/lib/http/route';
import { pathId } from '@/lib/http/validate';

// The plan GET /api/field/export/kmz/{id} writes for the same query, as GeoJSON and its summary.
export const GET = route('GET /api/field/export/kmz/{id}/preview', async ({ db, params, url }) => ok({ ...(await kmzPreview(db, pathId(params.id), url)) }));
