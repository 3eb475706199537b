import { deleteField, fieldDetail, fieldDetailJson, getField, updateField } from '@/lib/fields/fields';
import { updateFieldBody } from '@/lib/fields/schemas';
import { jsonText, ok } from '@/lib/http/respond';
import { route } from '@/lib/http/route';
import { pathId, readJson } from '@/lib/http/validate';

export const GET = route('GET /api/fields/{id}', async ({ db, params }) => jsonText(fieldDetailJson(await getField(db, pathId(params.id)))));

export const PUT = route('PUT /api/fields/{id}', async ({ req, db, params }) => {
  const id = pathId(params.id);
  const field = await updateField(db, id, await readJson(req, updateFieldBody));
  return ok({ field: fieldDetail(field) });
});

export const DELETE = route('DELETE /api/fields/{id}', async ({ db, user, params }) => {
  await deleteField(db, user.companyId, pathId(params.id));
  return ok();
});
