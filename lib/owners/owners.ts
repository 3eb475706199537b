// Field owners: a list per company, names unique within the company.
import { config } from '../config';
import type { DriverTransaction } from '../db/driver-transaction';
import { SQLITE_LOCK_WAIT_MS } from '../db/sqlite-file-client';
import { dbTarget } from '../db/target';
import { type TenantDb, tenantCreate } from '../db/tenant';
import { conflict } from '../errors';
import { roundArea } from '../fields/fields';
import { ownerNameKey } from './name-key';

export async function listOwners(db: TenantDb) {
  const [owners, groups] = await Promise.all([
    db.owner.findMany({ orderBy: { name: 'asc' }, select: { id: true, name: true } }),
    db.field.groupBy({ by: ['ownerId'], where: { ownerId: { not: null } }, _count: { _all: true }, _sum: { area: true } }),
  ]);
  const totals = new Map(groups.map((g) => [g.ownerId!, g]));
  return owners.map((o) => ({
    id: o.id,
    name: o.name,
    fields_count: totals.get(o.id)?._count._all ?? 0,
    total_area: roundArea(totals.get(o.id)?._sum.area ?? 0),
  }));
}

/** The first key of PostgreSQL's advisory lock held while a company's owner names are checked and written (the second is the company). */
const OWNER_NAMES_LOCK = 0x46_4d_4f; // "FMO"

/**
 * Checks a name against the company's owners and writes it in one transaction that no other owner
 * write of the company runs beside: two requests for "Колос" and "КОЛОС" at once would each find the
 * other's name absent, and the unique index, on the exact name, lets both in. SQLite's transactions
 * are one at a time already (BEGIN IMMEDIATE); PostgreSQL's take the company's lock, which an import
 * creating owners holds too, so a request may wait for an import to end, as it does on SQLite.
 */
async function withNameFree<T>(db: TenantDb, companyId: number, name: string, exceptId: number | undefined, write: (tx: TenantDb) => Promise<T>): Promise<T> {
  const postgres = dbTarget(config()).kind === 'postgresql';
  return db.$transaction(
    async (tx) => {
      if (postgres) await tx.$executeRaw`SELECT pg_advisory_xact_lock(${OWNER_NAMES_LOCK}, ${companyId})`;
      const owners = await tx.owner.findMany({ select: { id: true, name: true } });
      if (owners.some((o) => o.id !== exceptId && ownerNameKey(o.name) === ownerNameKey(name))) throw conflict('owner_taken');
      return write(tx as unknown as TenantDb);
    },
    { timeout: SQLITE_LOCK_WAIT_MS + 5000 },
  );
}

export async function createOwner(db: TenantDb, companyId: number, name: string) {
  return withNameFree(db, companyId, name, undefined, (tx) =>
    tx.owner.create({ data: tenantCreate('owner', { name }), select: { id: true } }),
  );
}

export async function renameOwner(db: TenantDb, companyId: number, id: number, name: string) {
  return withNameFree(db, companyId, name, id, (tx) => tx.owner.update({ where: { id }, data: { name }, select: { id: true, name: true } }));
}

/**
 * The owner's fields stay, without an owner. Cleared here rather than by the foreign key alone, so
 * that their `updated_at` says they changed (a client syncing by it would miss the change).
 */
export async function deleteOwner(db: TenantDb, id: number) {
  await db.$transaction(async (tx) => {
    await tx.field.updateMany({ where: { ownerId: id }, data: { ownerId: null } });
    await tx.owner.delete({ where: { id } });
  });
}

/**
 * Finds owners by name or creates them, inside an import's driver transaction (which the tenant
 * extension does not see: the company is stated in each statement). Returns name -> id.
 */
export async function ensureOwners(tx: DriverTransaction, companyId: number, names: Iterable<string>): Promise<Map<string, number>> {
  const wanted = [...new Set(names)].filter(Boolean);
  if (wanted.length && tx.kind === 'postgresql') await tx.query('SELECT pg_advisory_xact_lock(?, ?)', [OWNER_NAMES_LOCK, companyId]);
  // Names compared as ownerNameKey does: a file's "ИВАНОВ И.И." is the owner already listed as Иванов И.И.
  const byKey = new Map<string, number>();
  if (wanted.length) {
    for (const r of await tx.query('SELECT "id", "name" FROM "owner" WHERE "company_id" = ?', [companyId])) byKey.set(ownerNameKey(String(r.name)), Number(r.id));
  }
  const found = new Map<string, number>();
  const now = new Date();
  for (const name of wanted) {
    let id = byKey.get(ownerNameKey(name));
    if (id === undefined) {
      // An owner of this very name created meanwhile (by POST /api/owners) is taken, not a 500.
      const [inserted] = await tx.query('INSERT INTO "owner" ("company_id", "name", "created_at", "updated_at") VALUES (?, ?, ?, ?) ON CONFLICT ("company_id", "name") DO NOTHING RETURNING "id"', [companyId, name, now, now]);
      const [row] = inserted ? [inserted] : await tx.query('SELECT "id" FROM "owner" WHERE "company_id" = ? AND "name" = ?', [companyId, name]);
      id = Number(row!.id);
      byKey.set(ownerNameKey(name), id);
    }
    found.set(name, id);
  }
  return found;
}
