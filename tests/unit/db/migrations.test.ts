// The migrations in prisma/migrations must produce exactly what prisma/models.prisma describes, on
// both databases, and the runner must be safe to run again.
import { appendFileSync, cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { migrate } from '@/lib/db/migrate';
import { diffLiveSqlite, diffModels } from '@/lib/db/schema-engine';
import { type ScratchDb, postgresAvailable, scratchPostgres, scratchSqlite } from '@/lib/db/scratch';
import { readModels } from '@/prisma/generate';

const cleanup: ScratchDb[] = [];
afterAll(async () => {
  for (const s of cleanup) await s.drop();
});

describe('SQLite migrations', () => {
  it('a freshly migrated database matches the Prisma models exactly', async () => {
    const s = scratchSqlite();
    cleanup.push(s);
    expect(await migrate(s.target)).not.toHaveLength(0);
    expect(await diffLiveSqlite(s.target as { kind: 'sqlite'; file: string }, readModels())).toBe('');
  });

  it('notices a database that differs from the models', async () => {
    const s = scratchSqlite();
    cleanup.push(s);
    await migrate(s.target);
    const changed = readModels().replace('model Owner {', 'model Owner {\n  nickname String?');
    expect(await diffLiveSqlite(s.target as { kind: 'sqlite'; file: string }, changed)).toMatch(/nickname/);
  });

  it('applies nothing the second time', async () => {
    const s = scratchSqlite();
    cleanup.push(s);
    await migrate(s.target);
    expect(await migrate(s.target)).toEqual([]);
  });

  it('refuses when an applied migration file was edited afterwards', async () => {
    const s = scratchSqlite();
    cleanup.push(s);
    await migrate(s.target);
    const root = mkdtempSync(join(tmpdir(), 'mig-root-'));
    cpSync(join(process.cwd(), 'prisma'), join(root, 'prisma'), { recursive: true });
    const dir = join(root, 'prisma/migrations/sqlite');
    const { readdirSync } = await import('node:fs');
    appendFileSync(join(dir, readdirSync(dir)[0]!), '\n-- edited\n');
    await expect(migrate(s.target, root)).rejects.toThrow(/checksum/);
  });
});

describe('PostgreSQL migrations', async () => {
  const available = await postgresAvailable();
  if (!available) console.warn('skipping PostgreSQL migration tests: no server at 127.0.0.1:5432');

  // Columns, types, nullability, defaults, indexes and foreign keys of the public schema.
  async function catalog(url: string): Promise<string[]> {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const cols = await c.query(
        `SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns
         WHERE table_schema = 'public' AND table_name <> '_migrations' ORDER BY table_name, column_name`,
      );
      const idx = await c.query(`SELECT indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename <> '_migrations' ORDER BY indexdef`);
      const fks = await c.query(
        `SELECT conname, pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE connamespace = 'public'::regnamespace AND conname <> '_migrations_pkey' ORDER BY conname`,
      );
      return [...cols.rows.map((r) => JSON.stringify(r)), ...idx.rows.map((r) => r.indexdef), ...fks.rows.map((r) => `${r.conname} ${r.def}`)];
    } finally {
      await c.end();
    }
  }

  it.skipIf(!available)('a freshly migrated database matches the one the schema engine makes from the models', async () => {
    const migrated = await scratchPostgres();
    const reference = await scratchPostgres();
    cleanup.push(migrated, reference);
    await migrate(migrated.target);
    const sql = await diffModels(reference.target, 'empty', readModels());
    const c = new pg.Client({ connectionString: (reference.target as { url: string }).url });
    await c.connect();
    await c.query(sql);
    await c.end();
    const [a, b] = [await catalog((migrated.target as { url: string }).url), await catalog((reference.target as { url: string }).url)];
    expect(a.length).toBeGreaterThan(50);
    expect(a).toEqual(b);
  });

  it.skipIf(!available)('is safe when two processes migrate at once, and applies nothing the second time', async () => {
    const s = await scratchPostgres();
    cleanup.push(s);
    const [x, y] = await Promise.all([migrate(s.target), migrate(s.target)]);
    expect(x.length + y.length).toBe(Math.max(x.length, y.length));
    expect(await migrate(s.target)).toEqual([]);
  });
});
