// SQLite under contention: another connection holding the write lock must make our writes wait, never
// fail half-way, and never leave a connection that keeps the lock (the failure chain of
// prisma/orm#30028 and libsql-client-ts#352, which took the whole server down under load).
import { createRequire } from 'node:module';
import { afterAll, describe, expect, it } from 'vitest';
import { createDb } from '@/lib/db/client';
import { migrate } from '@/lib/db/migrate';
import { type ScratchDb, scratchSqlite } from '@/lib/db/scratch';
import { SqliteFileClient, isSqliteBusy } from '@/lib/db/sqlite-file-client';

const Database = createRequire(import.meta.url)('libsql') as typeof import('libsql');
const scratches: ScratchDb[] = [];
afterAll(async () => {
  for (const s of scratches) await s.drop();
});

function scratchFile(): string {
  const s = scratchSqlite();
  scratches.push(s);
  return (s.target as { file: string }).file;
}

async function tableIn(file: string): Promise<SqliteFileClient> {
  const client = new SqliteFileClient(file, { lockWaitMs: 200 });
  await client.execute('PRAGMA journal_mode = WAL');
  await client.execute('CREATE TABLE t (x INTEGER)');
  return client;
}

/** Another process in effect: a raw connection that takes the write lock and keeps it for `ms`. */
function holdWriteLock(file: string, ms: number): Promise<void> {
  const other = new Database(file);
  other.exec('BEGIN IMMEDIATE');
  other.exec('INSERT INTO t VALUES (-1)');
  return new Promise((resolve) =>
    setTimeout(() => {
      other.exec('COMMIT');
      other.close();
      resolve();
    }, ms),
  );
}

const count = async (c: SqliteFileClient) => Number((await c.execute('SELECT count(*) AS n FROM t')).rows[0]!.n);

describe('SqliteFileClient', () => {
  it('a write waits for a lock held elsewhere and then succeeds', async () => {
    const file = scratchFile();
    const client = await tableIn(file);
    const released = holdWriteLock(file, 120);
    await client.execute({ sql: 'INSERT INTO t VALUES (?)', args: [1] });
    await released;
    expect(await count(client)).toBe(2);
    client.close();
  });

  it('after a write that gave up busy, the next transaction commits and no lock is left behind', async () => {
    const file = scratchFile();
    const client = await tableIn(file);
    const released = holdWriteLock(file, 500);
    const failed = await client.execute({ sql: 'INSERT INTO t VALUES (?)', args: [1] }).catch((e: unknown) => e);
    expect(isSqliteBusy(failed)).toBe(true);
    await released;

    // With @libsql/client this COMMIT fails ("SQL statements in progress") and the BEGIN keeps the lock.
    const tx = await client.transaction();
    await tx.execute({ sql: 'INSERT INTO t VALUES (?)', args: [2] });
    await tx.commit();
    expect(tx.closed).toBe(true);

    const other = new Database(file);
    other.exec('BEGIN IMMEDIATE'); // would fail busy if our connection still held the lock
    other.exec('ROLLBACK');
    other.close();
    expect((await client.execute('SELECT x FROM t ORDER BY x')).rows.map((r) => r.x)).toEqual([-1, 2]);
    client.close();
  });

  it('a transaction that read first still writes after another connection wrote (no stale-snapshot failure)', async () => {
    const file = scratchFile();
    const client = await tableIn(file);
    const second = new SqliteFileClient(file, { lockWaitMs: 2000 });
    const tx = await client.transaction();
    expect(Number((await tx.execute('SELECT count(*) AS n FROM t')).rows[0]!.n)).toBe(0);
    const otherWrite = second.execute({ sql: 'INSERT INTO t VALUES (?)', args: [7] });
    await new Promise((r) => setTimeout(r, 50));
    await tx.execute({ sql: 'INSERT INTO t VALUES (?)', args: [1] });
    await tx.commit();
    await otherWrite;
    expect(await count(client)).toBe(2);
    second.close();
    client.close();
  });

  it('a committed transaction is closed: its connection is gone and using it again is refused', async () => {
    const file = scratchFile();
    const client = await tableIn(file);
    const tx = await client.transaction();
    await tx.execute({ sql: 'INSERT INTO t VALUES (?)', args: [1] });
    await tx.commit();
    await expect(tx.commit()).rejects.toThrow(/closed/);
    expect(await count(client)).toBe(1);
    client.close();
  });
});

describe('Prisma on SQLite while another process writes', () => {
  it('interactive and implicit transactions wait for the lock instead of failing', async () => {
    const s = scratchSqlite();
    scratches.push(s);
    const file = (s.target as { file: string }).file;
    await migrate(s.target);
    const db = createDb(s.target);
    const other = new Database(file);
    other.exec('BEGIN IMMEDIATE');
    other.exec(`INSERT INTO company (name, slug, created_at) VALUES ('Held', 'held', '2026-01-01')`);
    const release = new Promise<void>((resolve) =>
      setTimeout(() => {
        other.exec('COMMIT');
        other.close();
        resolve();
      }, 300),
    );
    const [a, b] = await Promise.all([
      db.company.create({ data: { name: 'Plain', slug: 'plain' } }),
      db.$transaction(async (tx) => {
        const n = await tx.company.count();
        return tx.company.create({ data: { name: `Interactive ${n}`, slug: 'interactive' } });
      }),
    ]);
    await release;
    expect(a.name).toBe('Plain');
    expect(b.name).toMatch(/^Interactive \d$/);
    expect(await db.company.count()).toBe(3);
    await db.$disconnect();
  });
});
