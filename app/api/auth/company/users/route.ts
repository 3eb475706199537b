import { companyUser, createCompanyUser } from '@/lib/auth/accounts';
import { newUserBody } from '@/lib/auth/schemas';
import { created, ok } from '@/lib/http/respond';
import { route } from '@/lib/http/route';
import { readJson } from '@/lib/http/validate';

export const GET = route('GET /api/auth/company/users', async ({ db }) => {
  const users = await db.user.findMany({ orderBy: { id: 'asc' } });
  return ok({ users: users.map(companyUser) });
});

export const POST = route('POST /api/auth/company/users', async ({ req, db, sessionDb, user }) => {
  const body = await readJson(req, newUserBody);
  const newUser = await createCompanyUser(db, sessionDb, user.role, body);
  return created(newUser.id, '/api/auth/company/users');
});
