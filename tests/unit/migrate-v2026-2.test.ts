// Upgrading v2026.2 databases (../shared/fixtures/v2026_2): every value survives, a second run
// changes nothing, and a failure leaves the original file exactly as it was.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDb } from '@/lib/db/client';
import { migrateV2026_2 } from '@/lib/db/legacy/v2026-2';
import { diffLiveSqlite } from '@/lib/db/schema-engine';
import { geometryAreaHa } from '@/lib/geo/area';
import { readModels } from '@/prisma/generate';
import { SHARED_DIR } from '../helpers/shared-data';

const FIXTURES = join(SHARED_DIR, 'fixtures', 'v2026_2');
const missing = existsSync(FIXTURES) ? undefined : `v2026.2 fixtures not found at ${FIXTURES}`;
if (missing) console.warn(`skipping upgrade tests: ${missing}`);

const sha = (f: string) => createHash('sha256').update(readFileSync(f)).digest('hex');
function copyFixture(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'upgrade-'));
  const file = join(dir, 'fields.db');
  copyFileSync(join(FIXTURES, name), file);
  return file;
}

describe.skipIf(!!missing)('upgrade from v2026.2', () => {
  for (const fixture of ['v2026_2.db', 'v2026_2_legacy_columns.db']) {
    it(`${fixture}: every field, owner, scan and zone survives in "Default Company"`, async () => {
      const file = copyFixture(fixture);
      const original = sha(file);
      const report = await migrateV2026_2(file);
      expect(report).toMatchObject({ status: 'migrated', owners: 3, fields: 5, scans: 2, zones: 2 });
      expect(sha(report.backup!)).toBe(original);
      expect(await diffLiveSqlite({ kind: 'sqlite', file }, readModels())).toBe('');

      const db = createDb({ kind: 'sqlite', file });
      const company = await db.company.findUniqueOrThrow({ where: { name: 'Default Company' } });
      const fields = await db.field.findMany({ include: { owner: true }, orderBy: { id: 'asc' } });
      expect(fields.every((f) => f.companyId === company.id)).toBe(true);
      expect((await db.owner.findMany()).map((o) => [o.name, o.companyId])).toEqual([
        ['Иванов И.И.', company.id], ['ООО «Агро-Юг»', company.id], ['Novák Ján', company.id],
      ]);
      expect(fields.map((f) => [f.id, f.name, f.status, f.parcelNumber, f.owner?.name ?? null])).toEqual([
        [1, 'Поле 1', 'Собственность', '61:02:0600010:123', 'Иванов И.И.'],
        [2, 'Северное', null, null, null],
        [3, '', null, null, 'ООО «Агро-Юг»'],
        [4, 'Lán pri ceste', 'Аренда', '12:34:567890:124', 'Novák Ján'],
        [5, 'Поле с дыркой', 'Субаренда', null, 'Иванов И.И.'],
      ]);
      // Stored areas are what users saw (square metres -> hectares); a missing one is computed.
      expect(fields.map((f) => f.area)).toEqual([25.5, 74, Math.round(geometryAreaHa(JSON.parse(fields[2]!.geometry)) * 1e4) / 1e4, 12.95, 54.8]);
      expect(JSON.parse(fields[3]!.geometry).type).toBe('MultiPolygon');
      expect(JSON.parse(fields[4]!.geometry).coordinates).toHaveLength(2);
      expect(JSON.parse(fields[0]!.attributesJson)).toEqual({ Field_Name: 'Поле 1' });
      expect(JSON.parse(fields[3]!.attributesJson)).toEqual({ KULTURA: 'orná pôda' });
      expect(JSON.parse(fields[4]!.attributesJson)).toEqual({ NAME: 'Pole s dierou', yield: null });
      expect(fields[1]!.minLon).toBeCloseTo(39.72, 9);

      const scans = await db.scan.findMany({ orderBy: { id: 'asc' } });
      expect(scans.map((s) => [s.id, s.fieldId, s.status, s.fileName, s.createdAt.toISOString()])).toEqual([
        [1, 1, 'completed', 'ndvi_pole1.tif', '2026-03-20T10:15:00.000Z'],
        [2, 2, 'pending', 'ndvi_sev.tif', '2026-03-22T08:00:00.123Z'],
      ]);
      expect(JSON.parse(scans[0]!.statsJson!)).toEqual({ min: -0.12, max: 0.91, mean: 0.63 });
      // Times are stored as the service writes them, so a year's filter finds the upgraded scans.
      expect(await db.scan.count({ where: { createdAt: { gte: new Date('2026-01-01T00:00:00Z'), lt: new Date('2027-01-01T00:00:00Z') } } })).toBe(2);
      expect(await db.field.count({ where: { createdAt: { gte: new Date('2020-01-01T00:00:00Z') } } })).toBe(5);
      const zones = await db.zone.findMany({ orderBy: { id: 'asc' } });
      expect(zones.map((z) => [z.id, z.fieldId, z.scanId, z.name, z.minValue, z.maxValue, z.meanValue, z.color])).toEqual([
        [1, 1, 1, 'Зона 1', 0.2, 0.5, 0.41, '#d7191c'],
        [2, 1, null, 'Зона 2', 0.5, 0.9, 0.72, '#1a9641'],
      ]);
      await db.$disconnect();
    });
  }

  it('is idempotent: a second run changes nothing and says so', async () => {
    const file = copyFixture('v2026_2.db');
    await migrateV2026_2(file);
    const after = sha(file);
    expect(await migrateV2026_2(file)).toMatchObject({ status: 'already-current' });
    expect(sha(file)).toBe(after);
  });

  it("turns the times an earlier release's upgrade wrote as numbers into text, as the service writes them", async () => {
    const file = copyFixture('v2026_2.db');
    await migrateV2026_2(file);
    // As the earlier release left it: epoch milliseconds, CURRENT_TIMESTAMP text, and no record of the fix.
    const sql = (statement: string) => execFileSync('python3', ['-c', `import sqlite3, json; c=sqlite3.connect(${JSON.stringify(file)}); r=c.execute(${JSON.stringify(statement)}).fetchall(); c.commit(); print(json.dumps(r))`], { encoding: 'utf8' });
    sql("UPDATE scan SET created_at = 1774001700000 WHERE id = 1");
    sql("UPDATE company SET created_at = '2026-11-20 08:30:00'");
    sql("DELETE FROM _migrations WHERE name LIKE '%times_as_text'");
    const { migrate } = await import('@/lib/db/migrate');
    expect(await migrate({ kind: 'sqlite', file })).toEqual(['20261126011500_times_as_text']);
    expect(JSON.parse(sql('SELECT created_at FROM scan WHERE id = 1'))).toEqual([['2026-03-20T10:15:00.000+00:00']]);
    expect(JSON.parse(sql('SELECT created_at FROM company'))).toEqual([['2026-11-20T08:30:00.000+00:00']]);
    const db = createDb({ kind: 'sqlite', file });
    expect((await db.scan.findUniqueOrThrow({ where: { id: 1 } })).createdAt.toISOString()).toBe('2026-03-20T10:15:00.000Z');
    expect(await db.scan.count({ where: { createdAt: { gte: new Date('2026-01-01T00:00:00Z') } } })).toBe(2);
    await db.$disconnect();
  });

  it('carries odd rows v2026.2 accepted across, saying what it did with each', async () => {
    const file = copyFixture('v2026_2.db');
    const sql = (statement: string) => execFileSync('python3', ['-c', `import sqlite3; c=sqlite3.connect(${JSON.stringify(file)}); c.execute("PRAGMA foreign_keys=OFF"); c.execute(${JSON.stringify(statement)}); c.commit()`]);
    sql(`UPDATE field SET geometry_wkt = 'SRID=4326;polygon((39.7 47.2, 39.71 47.2, 39.71 47.21, 39.7 47.21))', properties_json = '{area_sq_m: 1000,' WHERE id = 1`);
    sql(`UPDATE field SET owner_id = 99, properties_json = '{"area_sq_m": "255 000,5", "parcel_number": "61-02-0600010-124", "land_status": "${'Аренда до '.repeat(8)}"}' WHERE id = 2`);
    sql(`INSERT INTO fieldscan (id, field_id, filename, file_path, processed, uploaded_at) VALUES (9, 999, 'lost.tif', '/data/lost.tif', 'true', '2026-01-01 00:00:00')`);
    const report = await migrateV2026_2(file);
    expect(report).toMatchObject({ status: 'migrated', fields: 5, scans: 2 });
    expect(report.notes).toEqual([
      'field 1: properties_json is not a JSON object; kept as text in its attributes',
      'field 1: a ring was left open; closed',
      'field 2: status longer than 64 characters; cut, the whole kept in its attributes',
      'field 2: parcel number 61-02-0600010-124 written as 61:02:0600010:124',
      'field 2: owner 99 does not exist; left without an owner',
      "scan 9 (lost.tif): field 999 does not exist; not carried over",
    ]);
    const db = createDb({ kind: 'sqlite', file });
    const [one, two] = await db.field.findMany({ where: { id: { in: [1, 2] } }, orderBy: { id: 'asc' } });
    expect(JSON.parse(one!.attributesJson)).toEqual({ properties_json: '{area_sq_m: 1000,' });
    expect(JSON.parse(one!.geometry).coordinates[0]).toHaveLength(5);
    expect(one!.area).toBeCloseTo(geometryAreaHa(JSON.parse(one!.geometry)), 3);
    expect(two).toMatchObject({ area: 25.5001, parcelNumber: '61:02:0600010:124', ownerId: null, status: 'Аренда до '.repeat(8).slice(0, 64) });
    expect(JSON.parse(two!.attributesJson)).toMatchObject({ legacy_owner_id: 99, legacy_status: 'Аренда до '.repeat(8) });
    await db.$disconnect();
  });

  it('names the row whose boundary it cannot read', async () => {
    const file = copyFixture('v2026_2.db');
    execFileSync('python3', ['-c', `import sqlite3; c=sqlite3.connect(${JSON.stringify(file)}); c.execute("UPDATE field SET geometry_wkt = 'POLYGON EMPTY' WHERE id = 4"); c.commit()`]);
    await expect(migrateV2026_2(file)).rejects.toThrow(/^field 4: /);
  });

  it('leaves the original untouched when it fails halfway', async () => {
    const file = copyFixture('v2026_2.db');
    // A zone with unreadable geometry: owners, fields and scans are already written when it fails.
    execFileSync('python3', ['-c', `import sqlite3; c=sqlite3.connect(${JSON.stringify(file)}); c.execute("UPDATE fieldzone SET geometry_wkt='POLYGON ((1 2, 3' WHERE id=2"); c.commit()`]);
    const before = sha(file);
    await expect(migrateV2026_2(file)).rejects.toThrow(/zone 2/);
    expect(sha(file)).toBe(before);
    expect(readdirSync(join(file, '..')).filter((f) => f.endsWith('.migrating'))).toEqual([]);
  });

  it('refuses a database it does not recognise, without touching it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'upgrade-'));
    const file = join(dir, 'other.db');
    execFileSync('python3', ['-c', `import sqlite3; c=sqlite3.connect(${JSON.stringify(file)}); c.execute("CREATE TABLE field (id INTEGER)"); c.commit()`]);
    const before = sha(file);
    await expect(migrateV2026_2(file)).rejects.toThrow(/not a v2026.2 database/);
    expect(sha(file)).toBe(before);
    expect(readdirSync(dir).filter((f) => f.includes('backup'))).toEqual([]);
  });

  it('migrates the large fixture (5,000 fields, 200 owners) completely', async () => {
    const file = copyFixture('v2026_2_large.db');
    const started = performance.now();
    const report = await migrateV2026_2(file);
    console.log(`large fixture migrated in ${Math.round(performance.now() - started)} ms`);
    expect(report).toMatchObject({ fields: 5000, owners: 200 });
    const db = createDb({ kind: 'sqlite', file });
    expect(await db.field.count()).toBe(5000);
    expect(await db.field.count({ where: { owner: { isNot: null } } })).toBe(await db.field.count({ where: { ownerId: { not: null } } }));
    await db.$disconnect();
  });
});
