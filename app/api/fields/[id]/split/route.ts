import { fieldDetail } from '@/lib/fields/fields';
import { splitFieldBody } from '@/lib/fields/schemas';
import { splitField } from '@/lib/fields/split';
import { ok } from '@/lib/http/respond';
import { route } from '@/lib/http/route';
import { pathId, readJson } from '@/lib/http/validate';

export const POST = route('POST /api/fields/{id}/split', async ({ req, db, params }) => {
  const id = pathId(params.id);
  const { line } = await readJson(req, splitFieldBody);
  const { field, created } = await splitField(db, id, line.coordinates);
  return ok({ field: fieldDetail(field), created });
});
