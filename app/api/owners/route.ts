import { ownerBody } from '@/lib/fields/schemas';
import { created, json } from '@/lib/http/respond';
import { route } from '@/lib/http/route';
import { readJson } from '@/lib/http/validate';
import { createOwner, listOwners } from '@/lib/owners/owners';

export const GET = route('GET /api/owners', async ({ db }) => json(await listOwners(db)));

export const POST = route('POST /api/owners', async ({ req, db, user }) => {
  const { name } = await readJson(req, ownerBody);
  const owner = await createOwner(db, user.companyId, name);
  return created(owner.id, '/api/owners');
});
