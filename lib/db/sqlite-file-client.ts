// The libsql client for one local SQLite file, as the Prisma adapter and the migration runner use it.
//
// Why not @libsql/client's own file client: with it, one SQLITE_BUSY poisons the process. A statement
// that fails busy is never reset, so the next transaction on that connection cannot COMMIT ("SQL
// statements in progress"); nobody rolls it back, and its BEGIN holds the write lock until the process
// exits, after which every write anywhere fails (prisma/orm#30028, libsql-client-ts#352, libsql-js#237,
// all open). It also starts transactions DEFERRED, so a transaction that read first fails at once
// (SQLITE_BUSY_SNAPSHOT) when another connection wrote meanwhile, and it never sets a busy timeout.
//
// Here the libsql binding stays; the connections and statements are ours:
// - plain statements run on one shared connection; when one fails busy the connection is replaced
//   (a fresh one has no half-run statement) and the statement is tried again after a pause;
// - each transaction gets a connection of its own, starts with BEGIN IMMEDIATE (it waits for the
//   write lock up front instead of failing later), always ends in COMMIT or ROLLBACK, and is closed;
// - a connection keeps its prepared statements (lib/db/sqlite-statements.ts): @libsql/client prepares
//   every statement again and reads its column list twice, a fifth of a small query's cost.
// Waits happen between attempts, off the event loop: the binding's busy timeout blocks the thread, so
// it is kept short.
import { createRequire } from 'node:module';
import type { InStatement, ResultSet, Transaction } from '@libsql/client';
import type { Database as DatabaseType } from 'libsql';
import { PreparedStatements } from './sqlite-statements';

const nodeRequire = createRequire(import.meta.url);
const Database = nodeRequire('libsql') as typeof import('libsql');

/** How long one attempt waits for a lock inside SQLite (blocking the thread). */
const BUSY_TIMEOUT_MS = 50;
/** How long a statement or a BEGIN is tried again, by default, while the database is locked. */
export const SQLITE_LOCK_WAIT_MS = 15_000;

export interface SqliteFileClientOptions {
  /** How long a statement or a BEGIN is tried again while the database is locked. */
  lockWaitMs?: number;
}

export function isSqliteBusy(err: unknown): boolean {
  const e = err as { code?: unknown; rawCode?: unknown } | null;
  if (typeof e?.rawCode === 'number') return (e.rawCode & 0xff) === 5;
  return typeof e?.code === 'string' && e.code.startsWith('SQLITE_BUSY');
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `attempt` until it does not fail busy or `waitMs` has passed; `afterBusy` cleans up between tries. */
async function retryWhileBusy<T>(waitMs: number, attempt: () => T | Promise<T>, afterBusy: () => void): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (let n = 0; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (!isSqliteBusy(err)) throw err;
      afterBusy();
      if (Date.now() >= deadline) throw err;
      // 5, 10, 20 ... ms, at most 100 ms, with jitter so that waiting connections do not move in step.
      await pause(Math.min(100, 5 * 2 ** n) * (0.5 + Math.random()));
    }
  }
}

function openConnection(path: string): DatabaseType {
  const conn = new Database(path, { timeout: BUSY_TIMEOUT_MS });
  // WAL is a property of the file (the migration runner sets it); these are per connection.
  conn.exec('PRAGMA synchronous = NORMAL');
  conn.exec('PRAGMA foreign_keys = ON');
  return conn;
}

function closeQuietly(conn: DatabaseType): void {
  try {
    conn.close();
  } catch {
    /* already closed */
  }
}

/** A transaction on its own connection; whatever happens, the connection ends outside a transaction and closed. */
class SqliteFileTransaction implements Transaction {
  #conn: DatabaseType | null;
  #statements: PreparedStatements;

  constructor(conn: DatabaseType) {
    this.#conn = conn;
    this.#statements = new PreparedStatements(conn);
  }

  get closed(): boolean {
    return this.#conn === null;
  }

  #open(): DatabaseType {
    if (!this.#conn) throw Object.assign(new Error('The transaction is closed'), { code: 'TRANSACTION_CLOSED' });
    return this.#conn;
  }

  async execute(stmt: InStatement): Promise<ResultSet> {
    this.#open();
    return this.#statements.run(stmt);
  }

  async batch(stmts: InStatement[]): Promise<ResultSet[]> {
    const results: ResultSet[] = [];
    for (const stmt of stmts) results.push(await this.execute(stmt));
    return results;
  }

  async executeMultiple(sql: string): Promise<void> {
    this.#open().exec(sql);
  }

  async commit(): Promise<void> {
    const conn = this.#open();
    try {
      conn.exec('COMMIT');
    } finally {
      // A failed COMMIT leaves the transaction open: end it here, or it would hold the lock for good.
      this.close();
    }
  }

  async rollback(): Promise<void> {
    this.close();
  }

  close(): void {
    const conn = this.#conn;
    if (!conn) return;
    this.#conn = null;
    try {
      if (conn.inTransaction) conn.exec('ROLLBACK');
    } catch {
      /* closing the connection below rolls back as well */
    } finally {
      closeQuietly(conn);
    }
  }
}

export class SqliteFileClient {
  closed = false;
  readonly #path: string;
  readonly #lockWaitMs: number;
  #shared: { conn: DatabaseType; statements: PreparedStatements } | null = null;

  constructor(path: string, opts: SqliteFileClientOptions = {}) {
    this.#path = path;
    this.#lockWaitMs = opts.lockWaitMs ?? SQLITE_LOCK_WAIT_MS;
  }

  #sharedConnection() {
    if (this.closed) throw Object.assign(new Error('The client is closed'), { code: 'CLIENT_CLOSED' });
    if (!this.#shared) {
      const conn = openConnection(this.#path);
      this.#shared = { conn, statements: new PreparedStatements(conn) };
    }
    return this.#shared;
  }

  /** Drops the shared connection after a busy failure: the failed statement stays half-run on it. */
  #replaceShared = () => {
    if (this.#shared) closeQuietly(this.#shared.conn);
    this.#shared = null;
  };

  async execute(stmt: InStatement): Promise<ResultSet> {
    // Outside a transaction a statement that failed busy changed nothing, so trying it again is safe.
    return retryWhileBusy(this.#lockWaitMs, () => this.#sharedConnection().statements.run(stmt), this.#replaceShared);
  }

  async executeMultiple(sql: string): Promise<void> {
    // Not retried: the statements before the busy one have run.
    try {
      this.#sharedConnection().conn.exec(sql);
    } catch (err) {
      if (isSqliteBusy(err)) this.#replaceShared();
      throw err;
    }
  }

  /** Every transaction takes the write lock when it begins, whatever mode the caller asks for (see above). */
  async transaction(): Promise<SqliteFileTransaction> {
    if (this.closed) throw Object.assign(new Error('The client is closed'), { code: 'CLIENT_CLOSED' });
    let conn: DatabaseType | null = null;
    return retryWhileBusy(
      this.#lockWaitMs,
      () => {
        conn = openConnection(this.#path);
        conn.exec('BEGIN IMMEDIATE');
        return new SqliteFileTransaction(conn);
      },
      () => {
        if (conn) closeQuietly(conn);
      },
    );
  }

  close(): void {
    this.closed = true;
    this.#replaceShared();
  }
}
