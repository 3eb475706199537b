// PostgreSQL's prepared statements: named after their text, bounded, and reused by a real connection.
import { afterAll, describe, expect, it } from 'vitest';
import { createDb, preparesStatements, statementNames } from '@/lib/db/client';
import { migrate } from '@/lib/db/migrate';
import { type ScratchDb, postgresAvailable, scratchPostgres } from '@/lib/db/scratch';

describe('statementNames', () => {
  it('gives one text one name and different texts different names', () => {
    const name = statementNames(10);
    const a = name({ sql: 'SELECT 1 WHERE $1', args: [1] });
    const b = name({ sql: 'SELECT 2 WHERE $1', args: [1] });
    expect(a).not.toBe('');
    expect(b).not.toBe('');
    expect(a).not.toBe(b);
    expect(name({ sql: 'SELECT 1 WHERE $1', args: [2] })).toBe(a);
  });

  it('leaves statements of many arguments unnamed', () => {
    const name = statementNames(10);
    const args = Array.from({ length: 33 }, (_, i) => i);
    expect(name({ sql: `SELECT ${args.map((i) => `$${i + 1}`).join(',')}`, args })).toBe('');
    expect(name({ sql: 'SELECT $1', args: [1] })).not.toBe('');
  });

  it('names no more than its limit of texts, and keeps the names it gave', () => {
    const name = statementNames(2);
    const first = name({ sql: 'SELECT 1', args: [] });
    name({ sql: 'SELECT 2', args: [] });
    expect(name({ sql: 'SELECT 3', args: [] })).toBe('');
    expect(name({ sql: 'SELECT 1', args: [] })).toBe(first);
  });
});

describe('preparesStatements', () => {
  it('prepares unless the URL says a transaction-mode pooler is in between', () => {
    expect(preparesStatements('postgresql://u@127.0.0.1:5432/test')).toBe(true);
    expect(preparesStatements('postgresql://u@127.0.0.1:6432/test?pgbouncer=true')).toBe(false);
    expect(preparesStatements('postgresql://u@127.0.0.1:6432/test?sslmode=disable&pgbouncer=false')).toBe(true);
  });
});

describe('prepared statements on PostgreSQL', async () => {
  const available = await postgresAvailable();
  if (!available) console.warn('skipping the PostgreSQL prepared-statement test: no server at 127.0.0.1:5432');
  const scratch: ScratchDb[] = [];
  afterAll(async () => {
    for (const s of scratch) await s.drop();
  });

  /** Reads one company twice on one connection (its URL ending in `query`); answers both reads and the connection's prepared company reads. */
  async function readTwice(query = '') {
    const s = await scratchPostgres();
    scratch.push(s);
    await migrate(s.target);
    const db = createDb({ kind: 'postgresql', url: `${(s.target as { url: string }).url}${query}` });
    try {
      const company = await db.company.create({ data: { name: 'Prepared', slug: 'prepared' } });
      // One interactive transaction holds one connection, whose own statements the view lists.
      return await db.$transaction(async (tx) => {
        const first = await tx.company.findUnique({ where: { id: company.id } });
        const second = await tx.company.findUnique({ where: { id: company.id } });
        const statements = await tx.$queryRawUnsafe<{ name: string; statement: string }[]>('SELECT name, statement FROM pg_prepared_statements');
        const prepared = statements.filter((p) => /^SELECT/i.test(p.statement.trim()) && /FROM "public"\."company"/i.test(p.statement));
        return { first, second, prepared };
      });
    } finally {
      await db.$disconnect();
    }
  }

  it.skipIf(!available)('a query run twice on one connection is parsed once and answers the same', async () => {
    const seen = await readTwice();
    expect(seen.first?.name).toBe('Prepared');
    expect(seen.second).toEqual(seen.first);
    expect(seen.prepared).toHaveLength(1);
    expect(seen.prepared[0]!.name).toMatch(/^fm\d+$/);
  });

  it.skipIf(!available)('with pgbouncer=true in the URL nothing is kept prepared', async () => {
    const seen = await readTwice('?pgbouncer=true');
    expect(seen.second).toEqual(seen.first);
    expect(seen.prepared).toEqual([]);
  });
});
