// Upgrade of a v2026.2 database (tables owner, field, fieldscan, fieldzone; no companies, no users)
// to the current schema. The original file is never modified: the work happens on a copy, which
// replaces the original only once everything succeeded (a timestamped backup is kept beside it).
import { copyFileSync, existsSync, renameSync, rmSync } from 'node:fs';
import { type Client, type InStatement, createClient } from '@libsql/client';
import { wktToGeoJSON } from '@terraformer/wkt';
import { roundArea } from '../../fields/fields';
import { geometryAreaHa } from '../../geo/area';
import { type FieldGeometry, boundingBox, validateFieldGeometry } from '../../geo/geometry';
import { repairGeometry } from '../../geo/repair';
import { PARCEL_NUMBER } from '../../fields/parcel-number';
import { AppError } from '../../http/errors';
import { translate } from '../../i18n/messages';
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
  /** What was changed or set aside, row by row (a ring closed, an owner that did not exist...). */
  notes: string[];
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
/** The JSON attributes of a field row, with the keys v2026.2 kept there taken out; text that is not JSON is kept as it was. */
function legacyProperties(json: unknown, what: string, notes: string[]) {
  let props: Record<string, unknown> = {};
  if (json !== null && json !== undefined && json !== '') {
    try {
      const parsed: unknown = JSON.parse(String(json));
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) props = parsed as Record<string, unknown>;
      else throw new Error('not an object');
    } catch {
      notes.push(`${what}: properties_json is not a JSON object; kept as text in its attributes`);
      props = { properties_json: String(json) };
    }
  }
  const { area_sq_m: areaSqM, land_status: jsonStatus, parcel_number: jsonParcel, ...attributes } = props;
  return { attributes: attributes as Record<string, unknown>, areaSqM, jsonStatus, jsonParcel };
}

/** A parcel number in the service's form (digits in groups separated by colons); dashes, dots, slashes and spaces between groups become colons; anything else is kept in the attributes. */
function legacyParcelNumber(parcel: string | null, attributes: Record<string, unknown>, what: string, notes: string[]): string | null {
  if (parcel === null || PARCEL_NUMBER.test(parcel)) return parcel;
  const colons = parcel.trim().replace(/[\s./-]+/g, ':');
  if (PARCEL_NUMBER.test(colons)) {
    notes.push(`${what}: parcel number ${parcel} written as ${colons}`);
    return colons;
  }
  attributes.legacy_parcel_number = parcel;
  notes.push(`${what}: parcel number ${JSON.stringify(parcel)} is not digits in groups; kept in its attributes`);
  return null;
}

const sqliteTime = (d: Date) => d.toISOString().replace('Z', '+00:00');

const str = (v: unknown) => (v === null || v === undefined || v === '' ? null : String(v));
const num = (v: unknown) => (v === null || v === undefined || v === '' ? null : Number(v));

/** A v2026.2 row's WKT as the parser takes it: an EWKT `SRID=4326;` prefix dropped, keywords in capitals (`polygon` is valid WKT too). */
export const normalisedWkt = (wkt: string) => wkt.trim().replace(/^SRID=\d+\s*;\s*/i, '').replace(/[a-z]+/gi, (w) => w.toUpperCase());

/** A message of ours in English, for the administrator who runs the upgrade. */
const described = (err: unknown) => (err instanceof AppError ? translate('en', `errors.${err.key}`, err.params) : (err as Error).message);

/**
 * A row's boundary as the service keeps it. v2026.2 took whatever it was given, so: rings left open
 * are closed, a boundary that crosses itself is untangled when that keeps its area (within 1 %), and
 * one that cannot be is kept as it was, for its owner to redraw, rather than lost. Only WKT that
 * holds no boundary at all stops the upgrade, naming the row.
 */
function legacyGeometry(wkt: unknown, what: string, notes: string[]): FieldGeometry {
  let parsed: FieldGeometry;
  try {
    parsed = wktToGeoJSON(normalisedWkt(String(wkt ?? ''))) as FieldGeometry;
  } catch (err) {
    throw new Error(`${what}: unreadable WKT (${(err as Error).message})`);
  }
  const rings = parsed.type === 'Polygon' ? parsed.coordinates : parsed.type === 'MultiPolygon' ? parsed.coordinates.flat() : [];
  const open = rings.filter((r) => r.length > 1 && (r[0]![0] !== r.at(-1)![0] || r[0]![1] !== r.at(-1)![1]));
  for (const ring of open) ring.push([...ring[0]!]);
  if (open.length) notes.push(`${what}: ${open.length === 1 ? 'a ring was' : `${open.length} rings were`} left open; closed`);
  try {
    return validateFieldGeometry(parsed);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    if (err.key !== 'geometry_self_intersection') throw new Error(`${what}: ${described(err)}`);
    const repaired = repairGeometry(parsed);
    notes.push(
      repaired
        ? `${what}: ${described(err)}; untangled, its area kept within 1 %`
        : `${what}: ${described(err)}; kept as it was, to be redrawn (the service refuses such a boundary when it is next saved)`,
    );
    return repaired ?? parsed;
  }
}

/** A number as v2026.2 rows hold them: numbers, or text such as "255 000,5"; null when there is none. */
export function legacyNumber(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v !== 'string' || !v.trim()) return null;
  const n = Number(v.replace(/[\s\u00a0]/g, '').replace(',', '.'));
  return Number.isFinite(n) ? n : null;
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
  if (shape === 'current') return { status: 'already-current', owners: 0, fields: 0, scans: 0, zones: 0, notes: [] };
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
  const notes: string[] = [];
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
    const ownerIds = new Set(owners.map((o) => Number(o.id)));
    const batch: InStatement[] = owners.map((o) => ({
      sql: 'INSERT INTO owner (id, company_id, name, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
      args: [Number(o.id), companyId, String(o.name), nowText, nowText],
    }));

    const fields = (await tx.execute(`SELECT * FROM legacy_field ORDER BY id`)).rows;
    const fieldIds = new Set(fields.map((f) => Number(f.id)));
    for (const f of fields) {
      const what = `field ${f.id}`;
      const { attributes, areaSqM, jsonStatus, jsonParcel } = legacyProperties(f.properties_json, what, notes);
      const geometry = legacyGeometry(f.geometry_wkt, what, notes);
      // The stored area is what users saw: keep it; compute it when it is missing or impossible.
      const stored = legacyNumber(areaSqM);
      if (areaSqM != null && areaSqM !== '' && !(stored !== null && stored > 0)) notes.push(`${what}: area_sq_m ${JSON.stringify(areaSqM)} is no area; computed from the boundary`);
      const area = roundArea(stored !== null && stored > 0 ? stored / 10_000 : geometryAreaHa(geometry));
      let status = str(legacyColumns ? f.land_status : jsonStatus);
      if (status && status.length > 64) {
        attributes.legacy_status = status;
        status = status.slice(0, 64);
        notes.push(`${what}: status longer than 64 characters; cut, the whole kept in its attributes`);
      }
      const parcel = legacyParcelNumber(str(legacyColumns ? f.parcel_number : jsonParcel), attributes, what, notes);
      let ownerId = num(f.owner_id);
      if (ownerId !== null && !ownerIds.has(ownerId)) {
        attributes.legacy_owner_id = ownerId;
        notes.push(`${what}: owner ${ownerId} does not exist; left without an owner`);
        ownerId = null;
      }
      const box = boundingBox(geometry);
      batch.push({
        sql: `INSERT INTO field (id, company_id, owner_id, name, area, status, parcel_number, geometry, attributes_json,
                min_lon, min_lat, max_lon, max_lat, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        args: [Number(f.id), companyId, ownerId, str(f.name) ?? '', area, status, parcel, JSON.stringify(geometry), JSON.stringify(attributes),
          box.minLon, box.minLat, box.maxLon, box.maxLat, nowText, nowText],
      });
    }

    // Scans and zones belong to a field; one whose field is gone cannot be kept (the backup keeps it).
    const scans = (await tx.execute('SELECT * FROM legacy_fieldscan ORDER BY id')).rows.filter((s) => {
      if (fieldIds.has(Number(s.field_id))) return true;
      notes.push(`scan ${s.id} (${String(s.filename)}): field ${s.field_id} does not exist; not carried over`);
      return false;
    });
    const scanIds = new Set(scans.map((s) => Number(s.id)));
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

    const zones = (await tx.execute('SELECT * FROM legacy_fieldzone ORDER BY field_id, id')).rows.filter((z) => {
      if (fieldIds.has(Number(z.field_id))) return true;
      notes.push(`zone ${z.id}: field ${z.field_id} does not exist; not carried over`);
      return false;
    });
    const classCounter = new Map<string, number>();
    for (const z of zones) {
      const geometry = legacyGeometry(z.geometry_wkt, `zone ${z.id}`, notes);
      let scanId = num(z.scan_id);
      if (scanId !== null && !scanIds.has(scanId)) {
        notes.push(`zone ${z.id}: scan ${scanId} does not exist; kept with its field alone`);
        scanId = null;
      }
      // Classes were not stored: number the zones of each field (and scan) in their original order.
      const group = `${z.field_id}/${scanId ?? ''}`;
      const classIndex = (classCounter.get(group) ?? 0) + 1;
      classCounter.set(group, classIndex);
      batch.push({
        sql: `INSERT INTO zone (id, company_id, scan_id, field_id, class_index, name, min_value, max_value, mean_value, area_ha, color, geometry)
              VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        args: [Number(z.id), companyId, scanId, Number(z.field_id), classIndex, String(z.name), num(z.min_value), num(z.max_value), num(z.avg_ndvi),
          geometryAreaHa(geometry), str(z.color), JSON.stringify(geometry)],
      });
    }
    for (let i = 0; i < batch.length; i += 500) await tx.batch(batch.slice(i, i + 500));

    for (const t of ['fieldzone', 'fieldscan', 'field', 'owner']) await tx.execute(`DROP TABLE "legacy_${t}"`);
    const check = await tx.execute('PRAGMA foreign_key_check');
    if (check.rows.length) throw new Error(`foreign key check failed: ${JSON.stringify(check.rows.slice(0, 3))}`);
    await tx.commit();
    return { owners: owners.length, fields: fields.length, scans: scans.length, zones: zones.length, notes };
  } catch (err) {
    await tx.rollback().catch(() => undefined);
    throw err;
  } finally {
    tx.close();
  }
}
