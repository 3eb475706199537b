// Upgrade of a v2026.2 database (tables owner, field, fieldscan, fieldzone; no companies, no users)
// to the current schema. The original file is never modified: the work happens on a copy, which
// replaces the original only once everything succeeded (a timestamped backup is kept beside it).
import { copyFileSync, existsSync, renameSync, rmSync } from 'node:fs';
import { type Client, type InStatement, createClient } from '@libsql/client';
import { wktToGeoJSON } from '@terraformer/wkt';
import { roundArea } from '../../fields/fields';
import { geometryAreaHa } from '../../geo/area';
import { boundingBox, validateFieldGeometry } from '../../geo/geometry';
import { readMigrations } from '../migrate';
import { sqliteUrl } from '../target';

export const DEFAULT_COMPANY = 'Default Company';

export type LegacyShape = 'v2026.2' | 'v2026.2-legacy-columns' | 'current' | 'unknown';

export interface MigrationReport {
  status: 'migrated' | 'already-current';
  backup?: string;
  owners: number;
  fields: number;
  scans: number;
  zones: number;
}

async function tableColumns(db: Client, table: string): Promise<string[]> {
  return (await db.execute(`PRAGMA table_info("${table}")`)).rows.map((r) => String(r.name));
}

export async function detectShape(db: Client): Promise<LegacyShape> {
  const tables = new Set((await db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")).rows.map((r) => String(r.name)));
  if (tables.has('company') && tables.has('_migrations')) return 'current';
  if (!['owner', 'field', 'fieldscan', 'fieldzone'].every((t) => tables.has(t)) || tables.has('company')) return 'unknown';
  const fieldCols = await tableColumns(db, 'field');
  if (!['id', 'name', 'geometry_wkt', 'properties_json', 'owner_id'].every((c) => fieldCols.includes(c))) return 'unknown';
  return fieldCols.includes('land_status') ? 'v2026.2-legacy-columns' : 'v2026.2';
}

/** v2026.2 wrote DATETIME text with and without microseconds, in UTC. */
export function parseLegacyTime(text: unknown): Date {
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(\.\d+)?/.exec(String(text ?? ''));
  if (!m) return new Date(0);
  const ms = m[3] ? m[3].slice(0, 4).padEnd(4, '0') : '';
  return new Date(`${m[1]}T${m[2]}${ms}Z`);
}

/** A time as the service (Prisma) writes it in SQLite: ISO text. Epoch numbers sort before every text there, so date filters missed them. */
const sqliteTime = (d: Date) => d.toISOString().replace('Z', '+00:00');

const str = (v: unknown) => (v === null || v === undefined || v === '' ? null : String(v));
const num = (v: unknown) => (v === null || v === undefined || v === '' ? null : Number(v));

function geoFromWkt(wkt: string, what: string) {
  let geometry;
  try {
    geometry = wktToGeoJSON(wkt);
  } catch (err) {
    throw new Error(`${what}: unreadable WKT (${(err as Error).message})`);
  }
  return validateFieldGeometry(geometry);
}

export async function migrateV2026_2(file: string, opts: { now?: Date } = {}): Promise<MigrationReport> {
  if (!existsSync(file)) throw new Error(`No database at ${file}`);
  const probe = createClient({ url: sqliteUrl(file) });
  let shape: LegacyShape;
  try {
    shape = await detectShape(probe);
  } finally {
    probe.close();
  }
  if (shape === 'current') return { status: 'already-current', owners: 0, fields: 0, scans: 0, zones: 0 };
  if (shape === 'unknown') throw new Error(`${file} is not a v2026.2 database (expected tables owner, field, fieldscan, fieldzone): left untouched`);

  const stamp = (opts.now ?? new Date()).toISOString().replace(/[-:]/g, '').replace(/\..+/, '');
  const backup = `${file}.backup-${stamp}`;
  copyFileSync(file, backup);
  const work = `${file}.migrating`;
  rmSync(work, { force: true });
  copyFileSync(file, work);
  const db = createClient({ url: sqliteUrl(work) });
  try {
    const report = await convert(db, shape);
    db.close();
    renameSync(work, file);
    return { status: 'migrated', backup, ...report };
  } catch (err) {
    db.close();
    rmSync(work, { force: true });
    throw err;
  }
}

async function convert(db: Client, shape: LegacyShape) {
  const legacyColumns = shape === 'v2026.2-legacy-columns';
  const tx = await db.transaction('write');
  try {
    for (const t of ['owner', 'field', 'fieldscan', 'fieldzone']) await tx.execute(`ALTER TABLE "${t}" RENAME TO "legacy_${t}"`);
    // The old indexes keep their names after the rename and would collide with the new ones.
    for (const i of ['field_owner_id', 'fieldscan_field_id', 'fieldzone_field_id', 'fieldzone_scan_id', 'owner_name']) await tx.execute(`DROP INDEX IF EXISTS "${i}"`);
    const migrations = readMigrations('sqlite');
    for (const m of migrations) await tx.executeMultiple(m.sql);
    await tx.execute('CREATE TABLE IF NOT EXISTS "_migrations" ("name" TEXT PRIMARY KEY, "checksum" TEXT NOT NULL, "applied_at" TEXT NOT NULL)');
    const now = new Date().toISOString();
    for (const m of migrations) await tx.execute({ sql: 'INSERT INTO "_migrations" VALUES (?, ?, ?)', args: [m.name, m.checksum, now] });

    const nowText = sqliteTime(new Date());
    const company = await tx.execute({
      sql: 'INSERT INTO company (name, slug, settings_json, created_at) VALUES (?, ?, ?, ?) RETURNING id',
      args: [DEFAULT_COMPANY, 'default-company', '{}', nowText],
    });
    const companyId = Number(company.rows[0]!.id);

    const owners = (await tx.execute('SELECT id, name FROM legacy_owner ORDER BY id')).rows;
    const batch: InStatement[] = owners.map((o) => ({
      sql: 'INSERT INTO owner (id, company_id, name, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
      args: [Number(o.id), companyId, String(o.name), nowText, nowText],
    }));

    const fields = (await tx.execute(`SELECT * FROM legacy_field ORDER BY id`)).rows;
    for (const f of fields) {
      const props = (f.properties_json ? JSON.parse(String(f.properties_json)) : {}) as Record<string, unknown>;
      const { area_sq_m: areaSqM, land_status: jsonStatus, parcel_number: jsonParcel, ...attributes } = props;
      const geometry = geoFromWkt(String(f.geometry_wkt), `field ${f.id}`);
      // The stored area is what users saw: keep it; compute only when it is missing.
      const area = roundArea(num(areaSqM) !== null ? Number(areaSqM) / 10_000 : geometryAreaHa(geometry));
      const status = str(legacyColumns ? f.land_status : jsonStatus);
      const parcel = str(legacyColumns ? f.parcel_number : jsonParcel);
      const box = boundingBox(geometry);
      batch.push({
        sql: `INSERT INTO field (id, company_id, owner_id, name, area, status, parcel_number, geometry, attributes_json,
                min_lon, min_lat, max_lon, max_lat, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        args: [Number(f.id), companyId, num(f.owner_id), str(f.name) ?? '', area, status, parcel, JSON.stringify(geometry), JSON.stringify(attributes),
          box.minLon, box.minLat, box.maxLon, box.maxLat, nowText, nowText],
      });
    }

    const scans = (await tx.execute('SELECT * FROM legacy_fieldscan ORDER BY id')).rows;
    for (const s of scans) {
      const stats = { min: num(s.ndvi_min), max: num(s.ndvi_max), mean: num(s.ndvi_avg) };
      const uploaded = sqliteTime(parseLegacyTime(s.uploaded_at));
      batch.push({
        sql: `INSERT INTO scan (id, company_id, field_id, source, status, file_name, index_name, stats_json, details_json, created_at, updated_at)
              VALUES (?, ?, ?, 'raster', ?, ?, 'ndvi', ?, ?, ?, ?)`,
        args: [Number(s.id), companyId, Number(s.field_id), s.processed === 'true' ? 'completed' : 'pending', String(s.filename),
          stats.mean === null && stats.min === null ? null : JSON.stringify(stats),
          JSON.stringify({ legacy: { file_path: str(s.file_path), task_id: str(s.task_id), uploaded_at: str(s.uploaded_at) } }), uploaded, uploaded],
      });
    }

    const zones = (await tx.execute('SELECT * FROM legacy_fieldzone ORDER BY field_id, id')).rows;
    const classCounter = new Map<string, number>();
    for (const z of zones) {
      const geometry = geoFromWkt(String(z.geometry_wkt), `zone ${z.id}`);
      // Classes were not stored: number the zones of each field (and scan) in their original order.
      const group = `${z.field_id}/${z.scan_id ?? ''}`;
      const classIndex = (classCounter.get(group) ?? 0) + 1;
      classCounter.set(group, classIndex);
      batch.push({
        sql: `INSERT INTO zone (id, company_id, scan_id, field_id, class_index, name, min_value, max_value, mean_value, area_ha, color, geometry)
              VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        args: [Number(z.id), companyId, num(z.scan_id), Number(z.field_id), classIndex, String(z.name), num(z.min_value), num(z.max_value), num(z.avg_ndvi),
          geometryAreaHa(geometry), str(z.color), JSON.stringify(geometry)],
      });
    }
    for (let i = 0; i < batch.length; i += 500) await tx.batch(batch.slice(i, i + 500));

    for (const t of ['fieldzone', 'fieldscan', 'field', 'owner']) await tx.execute(`DROP TABLE "legacy_${t}"`);
    const check = await tx.execute('PRAGMA foreign_key_check');
    if (check.rows.length) throw new Error(`foreign key check failed: ${JSON.stringify(check.rows.slice(0, 3))}`);
    await tx.commit();
    return { owners: owners.length, fields: fields.length, scans: scans.length, zones: zones.length };
  } catch (err) {
    await tx.rollback().catch(() => undefined);
    throw err;
  } finally {
    tx.close();
  }
}
