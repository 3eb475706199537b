// PostgreSQL's prepared statements: named after their text, bounded, and reused by a real connection.
import { afterAll, describe, expect, it } from 'vitest';
import { createDb, statementNames } from '@/lib/db/client';
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

describe('prepared statements on PostgreSQL', async () => {
  const available = await postgresAvailable();
  if (!available) console.warn('skipping the PostgreSQL prepared-statement test: no server at 127.0.0.1:5432');
  const scratch: ScratchDb[] = [];
  afterAll(async () => {
    for (const s of scratch) await s.drop();
  });

  it.skipIf(!available)('a query run twice on one connection is parsed once and answers the same', async () => {
    const s = await scratchPostgres();
    scratch.push(s);
    await migrate(s.target);
    const db = createDb(s.target);
    try {
      const company = await db.company.create({ data: { name: 'Prepared', slug: 'prepared' } });
      // One interactive transaction holds one connection, whose own statements the view lists.
      const seen = await db.$transaction(async (tx) => {
        const first = await tx.company.findUnique({ where: { id: company.id } });
        const second = await tx.company.findUnique({ where: { id: company.id } });
        const statements = await tx.$queryRawUnsafe<{ name: string; statement: string }[]>('SELECT name, statement FROM pg_prepared_statements');
        return { first, second, statements };
      });
      expect(seen.first?.name).toBe('Prepared');
      expect(seen.second).toEqual(seen.first);
      const companyReads = seen.statements.filter((p) => /FROM "public"\."Company"/i.test(p.statement) && /^SELECT/i.test(p.statement.trim()));
      expect(companyReads).toHaveLength(1);
      expect(companyReads[0]!.name).toMatch(/^fm\d+$/);
    } finally {
      await db.$disconnect();
    }
  });
});
