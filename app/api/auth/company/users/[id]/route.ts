import { companyUser, deleteCompanyUser, updateCompanyUser } from '@/lib/auth/accounts';
import { userUpdateBody } from '@/lib/auth/schemas';
import { ok } from '@/lib/http/respond';
import { route } from '@/lib/http/route';
import { pathId, readJson } from '@/lib/http/validate';

export const PUT = route('PUT /api/auth/company/users/{id}', async ({ req, db, sessionDb, user, params }) => {
  const id = pathId(params.id);
  const body = await readJson(req, userUpdateBody);
  const updated = await updateCompanyUser(db, sessionDb, user, id, body);
  return ok({ user: companyUser(updated) });
});

export const DELETE = route('DELETE /api/auth/company/users/{id}', async ({ db, user, params }) => {
  await deleteCompanyUser(db, user, pathId(params.id));
  return ok();
});
