import { ownerBody } from '@/lib/fields/schemas';
import { ok } from '@/lib/http/respond';
import { route } from '@/lib/http/route';
import { pathId, readJson } from '@/lib/http/validate';
import { deleteOwner, renameOwner } from '@/lib/owners/owners';

export const PUT = route('PUT /api/owners/{id}', async ({ req, db, user, params }) => {
  const id = pathId(params.id);
  const { name } = await readJson(req, ownerBody);
  return ok({ owner: await renameOwner(db, user.companyId, id, name) });
});

export const DELETE = route('DELETE /api/owners/{id}', async ({ db, params }) => {
  await deleteOwner(db, pathId(params.id));
  return ok();
});
