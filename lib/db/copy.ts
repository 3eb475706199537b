// Copies a whole database into an empty one of either kind: the embedded SQLite file into PostgreSQL
// to scale out (an upgraded v2026.2 file too), or back. Every table in the order its references
// need, ids kept, in one transaction on the target (a failed copy leaves it empty), the target's id
// sequences then moved past the copied ids. NUL characters are taken out of text: SQLite keeps them
// (a v2026.2 file could hold them), PostgreSQL refuses them, and the SQLite driver reads text only up
// to the first, which would have cut the value there without a word.
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
export async function copyDatabase(
  from: DbTarget,
  to: DbTarget,
  onTable: (table: string, rows: number, withoutNul: number) => void = () => undefined,
): Promise<Record<string, number>> {
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
          const { rows, withoutNul } = await copyTable(source, tx, model, from.kind === 'sqlite' ? await nulTexts(source, table) : new Map());
          copied[table] = rows;
          onTable(table, rows, withoutNul);
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

/** Rows copied, and those of them that had NUL characters taken out of their text. */
async function copyTable(source: Db, tx: unknown, model: string, nulFree: Map<string, Record<string, string>>): Promise<{ rows: number; withoutNul: number }> {
  const from = delegate(source, model);
  const to = delegate(tx, model);
  let copied = 0;
  let withoutNul = 0;
  let after: Row['id'] | undefined;
  for (;;) {
    const rows = await from.findMany({ orderBy: { id: 'asc' }, take: PAGE, ...(after === undefined ? {} : { where: { id: { gt: after } } }) });
    if (!rows.length) return { rows: copied, withoutNul };
    for (const row of rows) {
      const whole = nulFree.get(String(row.id));
      if (!whole) continue;
      Object.assign(row, whole);
      withoutNul++;
    }
    await to.createMany({ data: rows });
    copied += rows.length;
    after = rows.at(-1)!.id;
  }
}

/**
 * A SQLite table's text values that hold NUL characters, read whole as bytes and without them, by row
 * id and by field (columns are the fields' names in snake case). One scan of the table over its text
 * columns: most tables have none such, and the copy reads every row again anyway.
 */
async function nulTexts(source: Db, table: string): Promise<Map<string, Record<string, string>>> {
  const found = new Map<string, Record<string, string>>();
  const columns = (await source.$queryRawUnsafe<{ name: string; type: string }[]>(`PRAGMA table_info("${table}")`)).filter((c) => /TEXT/i.test(c.type)).map((c) => c.name);
  if (!columns.length) return found;
  const holdsNul = (c: string) => `(typeof("${c}") = 'text' AND instr(CAST("${c}" AS BLOB), x'00') > 0)`;
  const rows = await source.$queryRawUnsafe<Record<string, unknown>[]>(
    `SELECT "id" AS id, ${columns.map((c, i) => `CASE WHEN ${holdsNul(c)} THEN CAST("${c}" AS BLOB) END AS c${i}`).join(', ')} FROM "${table}" WHERE ${columns.map(holdsNul).join(' OR ')}`,
  );
  for (const r of rows) {
    const whole: Record<string, string> = {};
    columns.forEach((name, i) => {
      const bytes = r[`c${i}`];
      if (bytes instanceof Uint8Array) whole[name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())] = Buffer.from(bytes).toString('utf8').replaceAll('\0', '');
    });
    found.set(String(r.id), whole);
  }
  return found;
}
