// npm run db:copy: a database copied whole into an empty one of the other kind (an upgraded v2026.2
// file into PostgreSQL, to scale out), ids and references kept, new rows numbered after them.
import { copyFileSync, existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createDb } from '@/lib/db/client';
import { TargetNotEmptyError, copyDatabase } from '@/lib/db/copy';
import { migrateV2026_2 } from '@/lib/db/legacy/v2026-2';
import { migrate } from '@/lib/db/migrate';
import { type ScratchDb, postgresAvailable, scratchPostgres, scratchSqlite } from '@/lib/db/scratch';
import { SHARED_DIR } from '../../helpers/shared-data';

const FIXTURE = join(SHARED_DIR, 'fixtures', 'v2026_2', 'v2026_2.db');
const noPostgres = !(await postgresAvailable()) ? 'no PostgreSQL server at 127.0.0.1:5432' : undefined;
const reason = noPostgres ?? (existsSync(FIXTURE) ? undefined : `v2026.2 fixture not found at ${FIXTURE}`);
if (reason) console.warn(`skipping the database copy tests: ${reason}`);

const square = (lon: number) => JSON.stringify({ type: 'Polygon', coordinates: [[[lon, 48], [lon + 0.01, 48], [lon + 0.01, 48.01], [lon, 48.01], [lon, 48]]] });

describe.skipIf(!!reason)('copying a database', () => {
  const scratches: ScratchDb[] = [];
  afterAll(async () => {
    await Promise.all(scratches.map((s) => s.drop()));
  });

  it('takes an upgraded v2026.2 file into PostgreSQL whole, then a new row is numbered after the copied ones', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'copy-')), 'fields.db');
    copyFileSync(FIXTURE, file);
    await migrateV2026_2(file);
    const pg = await scratchPostgres();
    scratches.push(pg);
    const tables: string[] = [];
    const copied = await copyDatabase({ kind: 'sqlite', file }, pg.target, (table) => tables.push(table));
    expect(tables).toEqual(['company', 'user', 'session', 'login_attempt', 'owner', 'field', 'scan', 'zone', 'task']);

    const [from, to] = [createDb({ kind: 'sqlite', file }), createDb(pg.target)];
    try {
      for (const model of ['company', 'owner', 'field', 'scan', 'zone'] as const) {
        const rows = async (db: typeof from) => (db[model] as unknown as { findMany(a: object): Promise<unknown[]> }).findMany({ orderBy: { id: 'asc' } });
        expect(await rows(to), model).toEqual(await rows(from));
      }
      expect(copied.field).toBeGreaterThan(0);
      const company = (await to.company.findFirstOrThrow()).id;
      const maxId = (await to.field.aggregate({ _max: { id: true } }))._max.id!;
      const added = await to.field.create({ data: { companyId: company, name: 'After the copy', area: 1, geometry: square(20), minLon: 20, minLat: 48, maxLon: 20.01, maxLat: 48.01 } });
      expect(added.id).toBe(maxId + 1);
    } finally {
      await Promise.all([from.$disconnect(), to.$disconnect()]);
    }
  });

  it('takes NUL characters out of text, which PostgreSQL refuses (a SQLite file keeps them), counting the rows', async () => {
    const from = scratchSqlite();
    scratches.push(from);
    await migrate(from.target);
    const db = createDb(from.target);
    const company = await db.company.create({ data: { name: 'Agro\0', slug: 'agro' } });
    await db.field.create({ data: { companyId: company.id, name: 'Поле\0 1', area: 80, geometry: square(30), minLon: 30, minLat: 48, maxLon: 30.01, maxLat: 48.01 } });
    await db.field.create({ data: { companyId: company.id, name: 'Clean', area: 80, geometry: square(31), minLon: 31, minLat: 48, maxLon: 31.01, maxLat: 48.01 } });
    // The driver reads such text only up to the NUL: the copy must not take that for the value.
    expect((await db.field.findFirstOrThrow()).name).toBe('Поле');
    await db.$disconnect();
    const pg = await scratchPostgres();
    scratches.push(pg);
    const cleaned: Record<string, number> = {};
    expect(await copyDatabase(from.target, pg.target, (table, _rows, withoutNul) => (cleaned[table] = withoutNul))).toMatchObject({ company: 1, field: 2 });
    expect(cleaned).toMatchObject({ company: 1, field: 1, owner: 0 });
    const to = createDb(pg.target);
    expect((await to.field.findMany({ orderBy: { id: 'asc' } })).map((f) => f.name)).toEqual(['Поле 1', 'Clean']);
    expect((await to.company.findFirstOrThrow()).name).toBe('Agro');
    await to.$disconnect();
  });

  it('goes into an empty database only, and back from PostgreSQL to a SQLite file', async () => {
    const pg = await scratchPostgres();
    scratches.push(pg);
    await migrate(pg.target);
    const db = createDb(pg.target);
    const company = await db.company.create({ data: { name: 'Agro', slug: 'agro' } });
    const owner = await db.owner.create({ data: { companyId: company.id, name: 'Иванов И.И.' } });
    await db.field.create({ data: { companyId: company.id, ownerId: owner.id, name: 'Поле', area: 80, geometry: square(30), minLon: 30, minLat: 48, maxLon: 30.01, maxLat: 48.01 } });
    await db.$disconnect();

    const back = scratchSqlite();
    scratches.push(back);
    expect(await copyDatabase(pg.target, back.target)).toMatchObject({ company: 1, owner: 1, field: 1 });
    const copy = createDb(back.target);
    expect(await copy.field.findFirstOrThrow({ include: { owner: true } })).toMatchObject({ name: 'Поле', owner: { name: 'Иванов И.И.' } });
    await copy.$disconnect();
    // Never merged into a database that holds data: refused, and it is left as it was.
    await expect(copyDatabase(back.target, pg.target)).rejects.toBeInstanceOf(TargetNotEmptyError);
  });
});
