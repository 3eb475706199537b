// Cached statements answer exactly what @libsql/client's own execute answers, on the same file.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InStatement } from '@libsql/client';
import type { Sqlite3Client as Sqlite3ClientType } from '@libsql/client/sqlite3';
import type { Database as DatabaseType } from 'libsql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreparedStatements } from '@/lib/db/sqlite-statements';

const nodeRequire = createRequire(import.meta.url);
const Database = nodeRequire('libsql') as typeof import('libsql');
const { Sqlite3Client } = nodeRequire('@libsql/client/sqlite3') as { Sqlite3Client: typeof Sqlite3ClientType };

let dir: string;
let conn: DatabaseType;
let ours: PreparedStatements;
let theirs: Sqlite3ClientType;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sqlite-statements-'));
  const file = join(dir, 't.db');
  conn = new Database(file);
  conn.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE, area REAL, big INTEGER, data BLOB, at INTEGER)');
  ours = new PreparedStatements(conn);
  theirs = new Sqlite3Client(file, {}, conn, 'number');
});
afterAll(() => {
  conn.close();
  rmSync(dir, { recursive: true, force: true });
});

const plain = (rs: { columns: string[]; columnTypes: string[]; rows: ArrayLike<unknown>[]; rowsAffected: number; lastInsertRowid?: bigint }) => ({
  columns: rs.columns,
  columnTypes: rs.columnTypes,
  byPosition: rs.rows.map((r) => Array.from(r)),
  byName: rs.rows.map((r) => Object.fromEntries(rs.columns.map((c) => [c, (r as unknown as Record<string, unknown>)[c]]))),
  rowsAffected: rs.rowsAffected,
  lastInsertRowid: rs.lastInsertRowid,
});

async function both(stmt: InStatement) {
  const a = await Promise.resolve().then(() => ours.run(stmt)).then(plain, (e: Error & { code?: string; rawCode?: number }) => ({ error: [e.name, e.code, e.rawCode, e.message] }));
  const b = await theirs.execute(stmt).then(plain, (e: Error & { code?: string; rawCode?: number }) => ({ error: [e.name, e.code, e.rawCode, e.message] }));
  return [a, b] as const;
}

describe('PreparedStatements', () => {
  it('writes and reads every value type as @libsql/client does', async () => {
    const when = new Date('2026-05-01T10:00:00Z');
    const blob = new Uint8Array([1, 2, 3, 250]).buffer;
    const insert = (name: string): InStatement => ({ sql: 'INSERT INTO t (name, area, big, data, at) VALUES (?, ?, ?, ?, ?)', args: [name, 12.5, 9007199254740991n, blob, when] });
    // Each writes a row of its own; both then read both rows.
    expect(plain(ours.run(insert('Поле 1')))).toMatchObject({ rowsAffected: 1, lastInsertRowid: 1n });
    expect(plain(await theirs.execute(insert('Поле 2')))).toMatchObject({ rowsAffected: 1, lastInsertRowid: 2n });
    const named: InStatement = { sql: 'INSERT INTO t (name, area, big, data, at) VALUES (:name, @area, $big, NULL, :at)', args: { name: 'Поле 3', area: 0.25, big: 7, at: true } };
    expect(plain(ours.run(named))).toMatchObject({ rowsAffected: 1, lastInsertRowid: 3n });
    const [a, b] = await both('SELECT id, name, area, big, data, at, name AS id FROM t ORDER BY id');
    expect(a).toEqual(b);
    const rows = (a as ReturnType<typeof plain>).byName;
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatchObject({ id: 1, name: 'Поле 1', area: 12.5, big: 9007199254740991, at: when.valueOf() });
    expect(rows[1]).toEqual({ ...rows[0], id: 2, name: 'Поле 2' });
    expect(rows[2]).toMatchObject({ id: 3, name: 'Поле 3', big: 7, data: null, at: 1 });
  });

  it('answers a cached statement with the rows as they are now', async () => {
    const count = () => Number(ours.run('SELECT count(*) AS n FROM t').rows[0]!.n);
    const before = count();
    ours.run({ sql: 'INSERT INTO t (name) VALUES (?)', args: ['Поле 4'] });
    expect(count()).toBe(before + 1);
  });

  it('fails like @libsql/client: constraint codes, unsafe integers, bad arguments', async () => {
    for (const stmt of [
      { sql: 'INSERT INTO t (name) VALUES (?)', args: ['Поле 1'] },
      { sql: 'SELECT 9223372036854775807 AS big', args: [] },
      { sql: 'SELECT ? AS x', args: [Number.NaN] },
      { sql: 'SELECT ? AS x', args: [undefined as never] },
      'SELECT * FROM no_such_table',
    ] as InStatement[]) {
      const [a, b] = await both(stmt);
      expect(a).toHaveProperty('error');
      expect(a).toEqual(b);
    }
  });
});
