import { fieldDetail } from '@/lib/fields/fields';
import { unmergeFieldBody } from '@/lib/fields/schemas';
import { unmergeField } from '@/lib/fields/unmerge';
import { ok } from '@/lib/http/respond';
import { route } from '@/lib/http/route';
import { pathId, readJson } from '@/lib/http/validate';

export const POST = route('POST /api/fields/{id}/unmerge', async ({ req, db, params }) => {
  const id = pathId(params.id);
  const { merged_id } = await readJson(req, unmergeFieldBody);
  const { field, restored } = await unmergeField(db, id, merged_id);
  return ok({ field: fieldDetail(field), restored });
});
