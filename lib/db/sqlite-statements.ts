// Statements on one libsql connection, prepared once and kept: @libsql/client's own execute prepares
// every statement again and reads its column list twice, which costs more than running a small query.
// Values and errors are converted exactly as @libsql/client does (integer mode "number"), so Prisma's
// libsql adapter, the migration runner and the import's driver transaction see the same results.
import { createRequire } from 'node:module';
import { type InStatement, type InValue, LibsqlError, type ResultSet, type Row } from '@libsql/client';
import type { Database as DatabaseType, Statement } from 'libsql';

const nodeRequire = createRequire(import.meta.url);
const { SqliteError } = nodeRequire('libsql') as { SqliteError: new (...args: never[]) => Error & { code: string; rawCode?: number } };

/** Enough for every statement the service writes; a new one past it evicts the oldest. */
const MAX_STATEMENTS = 500;

interface Prepared {
  statement: Statement;
  /** Undefined for statements that return no rows (libsql refuses raw mode for them). */
  columns?: string[];
  columnTypes?: string[];
}

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_INT64 = -(2n ** 63n);
const MAX_INT64 = 2n ** 63n - 1n;

function valueToSql(value: InValue | undefined): unknown {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError('Only finite numbers (not Infinity or NaN) can be passed as arguments');
    return value;
  }
  if (typeof value === 'bigint') {
    if (value < MIN_INT64 || value > MAX_INT64) throw new RangeError('bigint is too large to be represented as a 64-bit integer and passed as argument');
    return value;
  }
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof ArrayBuffer) return Buffer.from(value);
  if (value instanceof Date) return value.valueOf();
  if (value === undefined) throw new TypeError('undefined cannot be passed as argument to the database');
  return value;
}

function valueFromSql(value: unknown): unknown {
  if (typeof value === 'bigint') {
    if (value < MIN_SAFE || value > MAX_SAFE) throw new RangeError('Received integer which cannot be safely represented as a JavaScript number');
    return Number(value);
  }
  if (value instanceof Buffer) return value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength);
  return value;
}

function statementArgs(stmt: InStatement): unknown[] | Record<string, unknown> {
  if (typeof stmt === 'string' || stmt.args === undefined) return [];
  if (Array.isArray(stmt.args)) return stmt.args.map(valueToSql);
  const named: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(stmt.args)) named[/^[@$:]/.test(name) ? name.slice(1) : name] = valueToSql(value);
  return named;
}

/** A row as @libsql/client shapes it: values by position, and by column name (the first of a name wins). */
function rowFromSql(values: unknown[], columns: string[]): Row {
  const row = values.map(valueFromSql) as unknown as Record<string, unknown>;
  for (let i = 0; i < columns.length; i++) {
    const name = columns[i]!;
    if (!Object.hasOwn(row, name)) row[name] = row[i];
  }
  return row as unknown as Row;
}

function mapSqliteError(e: unknown): unknown {
  if (!(e instanceof SqliteError)) return e;
  const base = e.rawCode === undefined ? 'SQLITE_UNKNOWN' : (SQLITE_BASE_CODES[e.rawCode & 0xff] ?? `SQLITE_UNKNOWN_${e.rawCode & 0xff}`);
  return new LibsqlError(e.message, base, e.code, e.rawCode, e);
}

const SQLITE_BASE_CODES: Record<number, string> = {
  1: 'SQLITE_ERROR', 2: 'SQLITE_INTERNAL', 3: 'SQLITE_PERM', 4: 'SQLITE_ABORT', 5: 'SQLITE_BUSY', 6: 'SQLITE_LOCKED',
  7: 'SQLITE_NOMEM', 8: 'SQLITE_READONLY', 9: 'SQLITE_INTERRUPT', 10: 'SQLITE_IOERR', 11: 'SQLITE_CORRUPT',
  12: 'SQLITE_NOTFOUND', 13: 'SQLITE_FULL', 14: 'SQLITE_CANTOPEN', 15: 'SQLITE_PROTOCOL', 16: 'SQLITE_EMPTY',
  17: 'SQLITE_SCHEMA', 18: 'SQLITE_TOOBIG', 19: 'SQLITE_CONSTRAINT', 20: 'SQLITE_MISMATCH', 21: 'SQLITE_MISUSE',
  22: 'SQLITE_NOLFS', 23: 'SQLITE_AUTH', 24: 'SQLITE_FORMAT', 25: 'SQLITE_RANGE', 26: 'SQLITE_NOTADB',
  27: 'SQLITE_NOTICE', 28: 'SQLITE_WARNING',
};

export class PreparedStatements {
  readonly #conn: DatabaseType;
  readonly #cache = new Map<string, Prepared>();

  constructor(conn: DatabaseType) {
    this.#conn = conn;
  }

  #prepare(sql: string): Prepared {
    const cached = this.#cache.get(sql);
    if (cached) return cached;
    const statement = this.#conn.prepare(sql);
    statement.safeIntegers(true);
    let prepared: Prepared = { statement };
    try {
      statement.raw(true);
      const columns = statement.columns();
      prepared = { statement, columns: columns.map((c) => c.name), columnTypes: columns.map((c) => c.type ?? '') };
    } catch {
      // raw() refuses statements that return no rows
    }
    if (this.#cache.size >= MAX_STATEMENTS) this.#cache.delete(this.#cache.keys().next().value!);
    this.#cache.set(sql, prepared);
    return prepared;
  }

  run(stmt: InStatement): ResultSet {
    const sql = typeof stmt === 'string' ? stmt : stmt.sql;
    try {
      const args = statementArgs(stmt);
      const { statement, columns, columnTypes } = this.#prepare(sql);
      if (columns && columnTypes) {
        const rows = (statement.all(args) as unknown[][]).map((values) => rowFromSql(values, columns));
        return resultSet(columns, columnTypes, rows, 0, undefined);
      }
      const info = statement.run(args);
      return resultSet([], [], [], info.changes, BigInt(info.lastInsertRowid));
    } catch (e) {
      throw mapSqliteError(e);
    }
  }
}

function resultSet(columns: string[], columnTypes: string[], rows: Row[], rowsAffected: number, lastInsertRowid: bigint | undefined): ResultSet {
  return {
    columns,
    columnTypes,
    rows,
    rowsAffected,
    lastInsertRowid,
    toJSON: () => ({ columns, columnTypes, rows, rowsAffected, lastInsertRowid: lastInsertRowid === undefined ? null : String(lastInsertRowid) }),
  };
}
