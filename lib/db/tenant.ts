// Tenant isolation, in one place: a client extension that confines every query on a tenant model to
// one company. Reads, counts and aggregates get `company_id = ?` added to their filter; updates and
// deletes too, so another company's id fails exactly like an id that does not exist (P2025 -> 404);
// creates are stamped with the company. Route code never filters by company by hand, and neither do
// background writes (`scopeTransaction`).
import type { Db } from './client';

/** Models that belong to a company, and the column that names it. */
const TENANT_KEY: Record<string, 'companyId' | 'id'> = {
  Company: 'id',
  User: 'companyId',
  Owner: 'companyId',
  Field: 'companyId',
  Task: 'companyId',
  Scan: 'companyId',
  Zone: 'companyId',
};

const FILTERED = new Set([
  'findUnique',
  'findUniqueOrThrow',
  'findFirst',
  'findFirstOrThrow',
  'findMany',
  'count',
  'aggregate',
  'groupBy',
  'update',
  'updateMany',
  'updateManyAndReturn',
  'delete',
  'deleteMany',
]);

type Args = Record<string, unknown> & { where?: object; data?: unknown; create?: object };

export function scopeArgs(model: string, operation: string, args: Args, companyId: number): Args {
  const key = TENANT_KEY[model];
  if (!key) return args;
  if (FILTERED.has(operation)) return { ...args, where: { ...args.where, [key]: companyId } };
  if (operation === 'upsert') {
    return { ...args, where: { ...args.where, [key]: companyId }, create: { ...args.create, [key]: companyId } };
  }
  if (operation === 'create') return { ...args, data: { ...(args.data as object), [key]: companyId } };
  if (operation === 'createMany' || operation === 'createManyAndReturn') {
    const rows = Array.isArray(args.data) ? args.data : [args.data];
    return { ...args, data: rows.map((r: object) => ({ ...r, [key]: companyId })) };
  }
  throw new Error(`tenant scope: unhandled operation ${model}.${operation}`);
}

export function scopeToCompany(db: Db, companyId: number) {
  return db.$extends({
    name: 'tenant',
    query: {
      $allModels: {
        $allOperations({ model, operation, args, query }) {
          return query(scopeArgs(model, operation, args as Args, companyId) as typeof args);
        },
      },
    },
  });
}

export type TenantDb = ReturnType<typeof scopeToCompany>;

const TENANT_MODEL_BY_PROPERTY = new Map(Object.keys(TENANT_KEY).map((m) => [m[0]!.toLowerCase() + m.slice(1), m]));

/**
 * A transaction's client confined to one company by the same rules (`scopeArgs`). It is how work done
 * outside a request writes (a task's finisher, in the transaction that ends the task): a transaction
 * cannot be extended like a client. Raw SQL passes through unscoped.
 */
export function scopeTransaction<T extends object>(tx: T, companyId: number): T {
  return new Proxy(tx, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      const model = typeof property === 'string' ? TENANT_MODEL_BY_PROPERTY.get(property) : undefined;
      if (!model || typeof value !== 'object' || value === null) return value;
      return new Proxy(value, {
        get(delegate, operation) {
          const method: unknown = Reflect.get(delegate, operation);
          if (typeof operation !== 'string' || typeof method !== 'function') return method;
          return (args: Args = {}) => (method as (a: Args) => unknown).call(delegate, scopeArgs(model, operation, args, companyId));
        },
      });
    },
  });
}

type TenantModel = 'user' | 'owner' | 'field' | 'task' | 'scan' | 'zone';
type CreateData<M extends TenantModel> = Parameters<TenantDb[M]['create']>[0]['data'];
type WithoutCompany<T> = T extends unknown ? Omit<T, 'companyId' | 'company'> : never;
/** What a create through the tenant client is given: a row of the model without its company, which the extension stamps on. */
export type TenantCreate<M extends TenantModel> = WithoutCompany<CreateData<M>>;
/** `data` for `db.<model>.create` on the tenant client, checked as `TenantCreate` (Prisma's own type asks for the company too). */
export const tenantCreate = <M extends TenantModel>(_model: M, data: TenantCreate<M>) => data as unknown as CreateData<M>;

/** A row written through `scopeTransaction`, typed with the company that the scope stamps on (the transaction's types ask for it). */
export const scopedRow = <R extends object>(row: R) => row as R & { companyId: number };

// Building an extended client per request costs more than the query it serves: keep one per company.
const scopedClients = new WeakMap<Db, Map<number, TenantDb>>();

export function tenantDb(db: Db, companyId: number): TenantDb {
  let perCompany = scopedClients.get(db);
  if (!perCompany) scopedClients.set(db, (perCompany = new Map()));
  let client = perCompany.get(companyId);
  if (!client) {
    if (perCompany.size >= 1000) perCompany.delete(perCompany.keys().next().value!);
    perCompany.set(companyId, (client = scopeToCompany(db, companyId)));
  }
  return client;
}
