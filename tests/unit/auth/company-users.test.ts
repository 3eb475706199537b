// Changes to a company's users are decided inside their transaction, on the rows as they are then.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteCompanyUser, updateCompanyUser } from '@/lib/auth/accounts';
import { type Db, createDb } from '@/lib/db/client';
import { migrate } from '@/lib/db/migrate';
import { type ScratchDb, scratchSqlite } from '@/lib/db/scratch';
import { tenantDb } from '@/lib/db/tenant';

let scratch: ScratchDb;
let db: Db;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'company-users-'));
  process.env.DATA_DIR = dataDir;
  process.env.SESSION_SECRET = 'test-secret-0123456789abcdef';
  scratch = scratchSqlite();
  await migrate(scratch.target);
  db = createDb(scratch.target);
});

afterAll(async () => {
  await db?.$disconnect();
  await scratch?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function company(roles: string[]) {
  const c = await db.company.create({ data: { name: `C ${Math.random()}`, slug: `c-${Math.random()}` } });
  const users = [];
  for (const [i, role] of roles.entries()) {
    users.push(await db.user.create({ data: { companyId: c.id, email: `${role}${i}-${c.id}@example.test`, passwordHash: 'x', passwordSalt: 'x', role } }));
  }
  return { tdb: tenantDb(db, c.id), users, actor: (u: { id: number }) => ({ id: u.id, companyId: c.id }) };
}

describe('a change to a company user', () => {
  it('is made with the role its actor has when it runs: one demoted meanwhile (while it waited for the lock) is refused', async () => {
    // B was an owner when its request was let in; the change before it made B a viewer.
    const { tdb, users: [, b, c], actor } = await company(['owner', 'viewer', 'owner']);
    await expect(updateCompanyUser(tdb, db, actor(b!), c!.id, { role: 'viewer' })).rejects.toMatchObject({ kind: 'forbidden' });
    await expect(deleteCompanyUser(tdb, actor(b!), c!.id)).rejects.toMatchObject({ kind: 'forbidden' });
    expect((await db.user.findUniqueOrThrow({ where: { id: c!.id } })).role).toBe('owner');
  });

  it('is refused to an actor deactivated meanwhile, and made by one who may', async () => {
    const { tdb, users: [a, b, c], actor } = await company(['owner', 'admin', 'operator']);
    await db.user.update({ where: { id: b!.id }, data: { isActive: false } });
    await expect(updateCompanyUser(tdb, db, actor(b!), c!.id, { role: 'viewer' })).rejects.toMatchObject({ kind: 'forbidden' });
    expect((await updateCompanyUser(tdb, db, actor(a!), c!.id, { role: 'viewer' })).role).toBe('viewer');
  });
});
