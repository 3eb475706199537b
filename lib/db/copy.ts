// Copies a whole database into an empty one of either kind: the embedded SQLite file into PostgreSQL
// to scale out (an upgraded v2026.2 file too), or back. Every table in the order its references
// need, ids kept, in one transaction on the target (a failed copy leaves it empty), the target's id
// sequences then moved past the copied ids.
import { type Db, createDb } from './client';
import { migrate } from './migrate';
import type { DbTarget } from './target';

/** Models in the order their references need, and their tables. */
const TABLES = [
  ['company', 'company'],
  ['user', 'user'],
  ['session', 'session'],
  ['loginAttempt', 'login_attempt'],
  ['owner', 'owner'],
  ['field', 'field'],
  ['scan', 'scan'],
  ['zone', 'zone'],
  ['task', 'task'],
] as const;

/** Rows read and written at a time: a page of 10,000-field rows is tens of megabytes. */
const PAGE = 500;

type Row = { id: number | string };
interface Delegate {
  count(): Promise<number>;
  findMany(args: object): Promise<Row[]>;
  createMany(args: { data: Row[] }): Promise<unknown>;
}
const delegate = (db: unknown, model: string) => (db as Record<string, Delegate>)[model]!;

export class TargetNotEmptyError extends Error {
  constructor(what: string) {
    super(`${what} already holds data (companies): the copy goes into an empty database only, never merged into one`);
    this.name = 'TargetNotEmptyError';
  }
}

export const describeTarget = (t: DbTarget) => (t.kind === 'sqlite' ? t.file : new URL(t.url).pathname.slice(1) || 'PostgreSQL');

/** Rows copied per table. The source is brought to the current schema first (a v2026.2 file is refused, naming its upgrade). */
export async function copyDatabase(from: DbTarget, to: DbTarget, onTable: (table: string, rows: number) => void = () => undefined): Promise<Record<string, number>> {
  await migrate(from);
  await migrate(to);
  const source = createDb(from);
  const target = createDb(to);
  try {
    if ((await target.company.count()) > 0) throw new TargetNotEmptyError(describeTarget(to));
    const copied: Record<string, number> = {};
    await target.$transaction(
      async (tx) => {
        for (const [model, table] of TABLES) {
          copied[table] = await copyTable(source, tx, model);
          onTable(table, copied[table]);
        }
        if (to.kind === 'postgresql') {
          for (const [, table] of TABLES) {
            // Tasks are named by UUIDs, not numbered.
            if (table === 'task') continue;
            await tx.$executeRawUnsafe(`SELECT setval(pg_get_serial_sequence('"${table}"', 'id'), (SELECT COALESCE(MAX("id"), 0) + 1 FROM "${table}"), false)`);
          }
        }
      },
      { maxWait: 30_000, timeout: 60 * 60_000 },
    );
    return copied;
  } finally {
    await Promise.all([source.$disconnect(), target.$disconnect()]);
  }
}

async function copyTable(source: Db, tx: unknown, model: string): Promise<number> {
  const from = delegate(source, model);
  const to = delegate(tx, model);
  let copied = 0;
  let after: Row['id'] | undefined;
  for (;;) {
    const rows = await from.findMany({ orderBy: { id: 'asc' }, take: PAGE, ...(after === undefined ? {} : { where: { id: { gt: after } } }) });
    if (!rows.length) return copied;
    await to.createMany({ data: rows });
    copied += rows.length;
    after = rows.at(-1)!.id;
  }
}
