// Many rows in few statements. Prisma's createMany spends about 0.5 ms per row on rows with large
// text columns (a field's geometry); one multi-row INSERT through the same connection, inside the
// caller's transaction, costs a fifth of that. Used by imports of tens of thousands of rows.
import { config } from '../config';

interface RawExecutor {
  $executeRawUnsafe(sql: string, ...values: unknown[]): Promise<number>;
}

/** Bound parameters per statement, under SQLite's 32,766 and PostgreSQL's 65,535. */
const MAX_PARAMS = { sqlite: 30_000, postgresql: 60_000 } as const;
// And at most this many rows per statement: bigger statements only add to the peak memory.
const MAX_ROWS = 250;

export async function insertRows(db: RawExecutor, table: string, columns: readonly string[], rows: readonly unknown[][]): Promise<void> {
  const kind = config().databaseKind;
  const perStatement = Math.max(1, Math.min(MAX_ROWS, Math.floor(MAX_PARAMS[kind] / columns.length)));
  const head = `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES `;
  for (let i = 0; i < rows.length; i += perStatement) {
    const chunk = rows.slice(i, i + perStatement);
    let n = 0;
    const tuples = chunk.map(() => `(${columns.map(() => (kind === 'postgresql' ? `$${++n}` : '?')).join(', ')})`);
    await db.$executeRawUnsafe(head + tuples.join(', '), ...chunk.flat());
  }
}
