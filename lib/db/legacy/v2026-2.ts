// Upgrade of a v2026.2 database (tables owner, field, fieldscan, fieldzone; no companies, no users)
// to the current schema. The original's content is never changed: the work happens on a copy, which
// replaces the original only once everything succeeded (a timestamped backup is kept beside it).
import { randomUUID } from 'node:crypto';
import { chmodSync, chownSync, copyFileSync, existsSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { type Client, type InStatement, type Transaction, createClient } from '@libsql/client';
import { wktToGeoJSON } from '@terraformer/wkt';
import iconv from 'iconv-lite';
import { roundArea } from '../../fields/fields';
import { geometryAreaHa } from '../../geo/area';
import { type FieldGeometry, boundingBox, validateFieldGeometry } from '../../geo/geometry';
import { repairGeometry } from '../../geo/repair';
import { PARCEL_NUMBER } from '../../fields/parcel-number';
import { AppError } from '../../errors';
import { MAX_RECORD_ID } from '../../http/record-id';
import { translate } from '../../i18n/messages';
import { toSingleLine } from '../../http/single-line';
import { ownerNameKey } from '../../owners/name-key';
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

/** Rows the service cannot hold in any form: the upgrade stops before changing anything, naming all of them. */
export class BlockingRowsError extends Error {
  constructor(readonly rows: string[]) {
    super(rows.join('\n'));
    this.name = 'BlockingRowsError';
  }
}

// The service's own limits (lib/fields/schemas.ts, lib/http/record-id.ts).
const MAX_NAME = 255;
/** A name or status trimmed, or made one line as the service takes them (lib/http/single-line.ts). */
const TRIMMED = 'had spaces around it or line breaks in it; trimmed, and made one line';
const MAX_STATUS = 64;
const MAX_PARCEL = 64;
const MAX_AREA_HA = 1e7;
const MIN_AREA_HA = 0.0001;

async function tableColumns(db: Client | Transaction, table: string): Promise<string[]> {
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

/**
 * A v2026.2 time: DATETIME text with or without microseconds, in UTC unless it carries an offset
 * (`…T10:15:00+03:00` is 07:15 UTC), or a date alone. Null when it is no time at all (`yesterday`).
 */
export function parseLegacyTime(text: unknown): Date | null {
  if (typeof text !== 'string') return null;
  const m = /^\s*(\d{4}-\d{2}-\d{2})(?:[ T](\d{2}:\d{2})(:\d{2})?(\.\d+)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?\s*$/i.exec(text);
  if (!m) return null;
  const ms = m[4] ? m[4].slice(0, 4).padEnd(4, '0') : '';
  const offset = m[5];
  const zone = !offset || offset.toUpperCase() === 'Z' ? 'Z' : offset.length === 3 ? `${offset}:00` : offset.includes(':') ? offset : `${offset.slice(0, 3)}:${offset.slice(3)}`;
  const d = new Date(`${m[1]}T${m[2] ?? '00:00'}${m[3] ?? ':00'}${ms}${zone}`);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** v2026.2's `processed` flag, however it was written: true, 1, yes, t (any case) mean processed. */
export const legacyProcessed = (v: unknown) => /^\s*(true|1|yes|y|t)\s*$/i.test(String(v ?? ''));

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

/**
 * A parcel number in the service's form (digits in groups separated by colons, at most 64
 * characters); dashes, dots, slashes and spaces between groups become colons; anything else (a
 * number cut to fit would name another parcel) is kept in the attributes.
 */
function legacyParcelNumber(raw: string | null, attributes: Record<string, unknown>, what: string, notes: string[]): string | null {
  const parcel = raw?.trim() || null;
  if (parcel === null) return null;
  const colons = parcel.replace(/[\s./-]+/g, ':');
  if (PARCEL_NUMBER.test(parcel) || PARCEL_NUMBER.test(colons)) {
    if (colons.length > MAX_PARCEL) {
      attributes.legacy_parcel_number = raw;
      notes.push(`${what}: parcel number ${JSON.stringify(raw)} is longer than ${MAX_PARCEL} characters; kept in its attributes`);
      return null;
    }
    if (colons !== raw) notes.push(`${what}: parcel number ${raw} written as ${colons}`);
    return colons;
  }
  attributes.legacy_parcel_number = raw;
  notes.push(`${what}: parcel number ${JSON.stringify(raw)} is not digits in groups; kept in its attributes`);
  return null;
}

const sqliteTime = (d: Date) => d.toISOString().replace('Z', '+00:00');

const str = (v: unknown) => (v === null || v === undefined || v === '' ? null : String(v));
const num = (v: unknown) => (v === null || v === undefined || v === '' ? null : Number(v));

/** Text cut to `max` UTF-16 units (what the API's limits count), never through the middle of a character. */
function cut(text: string, max: number): string {
  const part = text.slice(0, max);
  return /[\ud800-\udbff]$/.test(part) ? part.slice(0, -1) : part;
}

/** A v2026.2 row's WKT as the parser takes it: an EWKT `SRID=4326;` prefix dropped, keywords in capitals (`polygon` is valid WKT too). */
export const normalisedWkt = (wkt: string) => wkt.trim().replace(/^SRID=\d+\s*;\s*/i, '').replace(/[a-z]+/gi, (w) => w.toUpperCase());

/** A message of ours in English, for the administrator who runs the upgrade. */
const described = (err: unknown) => (err instanceof AppError ? translate('en', `errors.${err.key}`, err.params) : (err as Error).message);

/**
 * A row's boundary as the service keeps it. v2026.2 took whatever it was given, so: rings left open
 * are closed, a boundary that crosses itself is untangled when that keeps its area (within 1 %), and
 * one that cannot be is kept as it was, for its owner to redraw, rather than lost. A boundary the
 * service cannot hold at all (unreadable WKT, not a polygon, coordinates outside longitude/latitude,
 * a ring of under 4 positions, zero area...) is null, its reason in `blocking`: the upgrade stops.
 */
function legacyGeometry(wkt: unknown, what: string, notes: string[], blocking: string[]): FieldGeometry | null {
  let parsed: FieldGeometry;
  try {
    parsed = wktToGeoJSON(normalisedWkt(String(wkt ?? ''))) as FieldGeometry;
  } catch (err) {
    blocking.push(`${what}: unreadable WKT (${(err as Error).message})`);
    return null;
  }
  const rings = parsed.type === 'Polygon' ? parsed.coordinates : parsed.type === 'MultiPolygon' ? parsed.coordinates.flat() : [];
  const open = rings.filter((r) => r.length > 1 && (r[0]![0] !== r.at(-1)![0] || r[0]![1] !== r.at(-1)![1]));
  for (const ring of open) ring.push([...ring[0]!]);
  const closed = open.length ? `${what}: ${open.length === 1 ? 'a ring was' : `${open.length} rings were`} left open; closed` : null;
  try {
    const valid = validateFieldGeometry(parsed);
    if (closed) notes.push(closed);
    return valid;
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    if (err.key !== 'geometry_self_intersection') {
      blocking.push(`${what}: ${described(err)}`);
      return null;
    }
    if (closed) notes.push(closed);
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
  if (typeof v === 'bigint') return Number(v);
  if (typeof v !== 'string' || !v.trim()) return null;
  const n = Number(v.replace(/[\s\u00a0]/g, '').replace(',', '.'));
  return Number.isFinite(n) ? n : null;
}

/** A row id as v2026.2 may hold it (a number, or text such as "2"); null when it is none. */
function legacyId(v: unknown): number | null {
  const n = legacyNumber(v);
  return n !== null && Number.isInteger(n) ? n : null;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

/**
 * Text as v2026.2 stored it, read as bytes (libsql aborts the whole process on text that is not
 * UTF-8): UTF-8 when it is, else Windows-1251, the Cyrillic code page those installations ran on.
 */
function legacyText(bytes: ArrayBuffer, what: string, column: string, notes: string[]): string {
  const view = new Uint8Array(bytes);
  let text: string;
  try {
    text = utf8.decode(view);
  } catch {
    text = iconv.decode(Buffer.from(view), 'win1251');
    notes.push(`${what}: ${column} was not UTF-8 (bytes ${hex(view)}); read as Windows-1251: ${JSON.stringify(text)}`);
  }
  // SQLite keeps a NUL in text, PostgreSQL refuses it: the file could never be copied there (db:copy).
  if (text.includes('\0')) {
    text = text.replaceAll('\0', '');
    notes.push(`${what}: ${column} held NUL characters, which PostgreSQL cannot store; removed: ${JSON.stringify(text)}`);
  }
  return text;
}

type LegacyRow = Record<string, unknown>;

/**
 * A legacy table's rows, text columns read as bytes and decoded here, so that bytes that are not
 * UTF-8 cannot crash the driver. `label` names a row in the notes (`field 7`).
 */
async function readLegacyTable(tx: Transaction, table: string, label: string, notes: string[]): Promise<LegacyRow[]> {
  const columns = await tableColumns(tx, table);
  const list = columns.map((c) => `CASE WHEN typeof("${c}") IN ('text', 'blob') THEN CAST("${c}" AS BLOB) ELSE "${c}" END AS "${c}"`).join(', ');
  const rows = (await tx.execute(`SELECT ${list} FROM "${table}" ORDER BY "id"`)).rows;
  return rows.map((r) => {
    const row: LegacyRow = {};
    for (const c of columns) row[c] = r[c];
    for (const c of columns) if (row[c] instanceof ArrayBuffer) row[c] = legacyText(row[c], `${label} ${String(row.id)}`, c, notes);
    return row;
  });
}

/** New ids for rows whose id the service cannot address (outside 1..2^31-1): after the highest one it can. */
function renumbered(ids: unknown[]): Map<unknown, number> {
  const ok = (id: unknown): id is number => typeof id === 'number' && Number.isInteger(id) && id >= 1 && id <= MAX_RECORD_ID;
  let next = Math.max(0, ...ids.filter(ok)) + 1;
  const map = new Map<unknown, number>();
  for (const id of ids) map.set(id, ok(id) ? id : next++);
  return map;
}

// ---------------------------------------------------------------------------------------------
// Files: the lock, leftovers of an interrupted run, the backup, the working copy.

const SIDECARS = ['-journal', '-wal', '-shm'];
const pidAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** One upgrade of a file at a time: a lock file holding the pid; one left by a process that is gone is taken over. */
function takeLock(file: string): () => void {
  const lock = `${file}.upgrade-lock`;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(lock, `${process.pid}\n`, { flag: 'wx' });
      return () => {
        if (existsSync(lock) && readFileSync(lock, 'utf8').trim() === String(process.pid)) rmSync(lock, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      let pid = NaN;
      try {
        pid = Number.parseInt(readFileSync(lock, 'utf8'), 10);
      } catch {
        continue;
      }
      if (pid > 0 && pidAlive(pid)) {
        throw new Error(`An upgrade of ${file} is already running (process ${pid}): wait for it to end. If no upgrade is running, remove ${lock}.`);
      }
      rmSync(lock, { force: true });
    }
  }
  throw new Error(`Could not take the lock ${lock}`);
}

const removeWithSidecars = (path: string) => {
  for (const f of [path, ...SIDECARS.map((s) => `${path}${s}`)]) rmSync(f, { force: true });
};

const nonEmpty = (path: string) => existsSync(path) && statSync(path).size > 0;

async function withClient<T>(file: string, fn: (db: Client) => Promise<T>): Promise<T> {
  const db = createClient({ url: sqliteUrl(file) });
  try {
    return await fn(db);
  } finally {
    db.close();
  }
}

export async function migrateV2026_2(given: string, opts: { now?: Date } = {}): Promise<MigrationReport> {
  if (!existsSync(given)) throw new Error(`No database at ${given}`);
  // A symlinked database is upgraded where it really is (the copy renamed over the link would have
  // replaced the link, the real file left v2026.2), and SQLite keeps its journals beside the real file.
  const file = realpathSync(given);
  const release = takeLock(file);
  try {
    return await migrateLocked(file, opts.now ?? new Date());
  } finally {
    release();
  }
}

async function migrateLocked(file: string, now: Date): Promise<MigrationReport> {
  const shape = await checkpointedShape(file);
  if (shape === 'current') return { status: 'already-current', owners: 0, fields: 0, scans: 0, zones: 0, notes: [] };
  if (shape === 'unknown') throw new Error(`${file} is not a v2026.2 database (expected tables owner, field, fieldscan, fieldzone): left untouched`);
  if (nonEmpty(`${file}-wal`)) throw new Error(`${file} is in use by another program (its write-ahead log ${file}-wal is not empty): stop that program and run again. It was left untouched.`);

  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\..+/, '');
  const backup = `${file}.backup-${stamp}`;
  const work = `${file}.migrating`;
  // An interrupted run leaves its copy and the copy's journal: a stale journal would be rolled back onto the new copy.
  removeWithSidecars(work);
  copyFileSync(file, backup);
  copyFileSync(file, work);
  // The copies are the upgrader's (root, under sudo): the file that takes the original's place must
  // stay the service user's, or the service finds its database read-only.
  const ownerNote = [keepOwnership(file, backup), keepOwnership(file, work)].find(Boolean);
  const report = await convertCopy(work, backup, shape, now);
  replaceWithCopy(work, file);
  await assertUpgraded(file, backup, work, report);
  if (ownerNote) report.notes.push(ownerNote);
  return { status: 'migrated', backup, ...report };
}

/**
 * The file's shape, read once its write-ahead log is in the file itself. Reading it also rolls a
 * crash-left journal back, or its write-ahead log forward, as SQLite does.
 */
async function checkpointedShape(file: string): Promise<LegacyShape> {
  return withClient(file, async (db) => {
    const found = await detectShape(db);
    if (found !== 'v2026.2' && found !== 'v2026.2-legacy-columns') return found;
    // In WAL mode, committed rows may still sit in FILE-wal: write them into the file itself, so that
    // a copy of it (the backup, the working copy) holds everything. Its content does not change.
    if (String((await db.execute('PRAGMA journal_mode')).rows[0]?.journal_mode).toLowerCase() === 'wal') {
      const done = (await db.execute('PRAGMA wal_checkpoint(TRUNCATE)')).rows[0];
      if (Number(done?.busy) !== 0) throw new Error(`${file} is in use by another program (its write-ahead log could not be written into it): stop that program and run again. It was left untouched.`);
    }
    return found;
  });
}

/** Converts the working copy `work`; on failure removes it and the backup (the original was not changed). */
async function convertCopy(work: string, backup: string, shape: LegacyShape, now: Date): Promise<Converted> {
  const db = createClient({ url: sqliteUrl(work) });
  try {
    // A copy in WAL mode would keep the converted rows in FILE.migrating-wal, which the move below leaves behind.
    const mode = String((await db.execute('PRAGMA journal_mode = DELETE')).rows[0]?.journal_mode).toLowerCase();
    if (mode !== 'delete') throw new Error(`the working copy ${work} could not be put in journal mode DELETE (it is in ${mode})`);
    const report = await convert(db, shape, now);
    db.close();
    if (nonEmpty(`${work}-wal`) || nonEmpty(`${work}-journal`)) throw new Error(`the working copy ${work} was not written whole`);
    return report;
  } catch (err) {
    db.close();
    removeWithSidecars(work);
    rmSync(backup, { force: true });
    throw err;
  }
}

/** The converted copy in the original's place. */
function replaceWithCopy(work: string, file: string): void {
  renameSync(work, file);
  // The original's (empty) write-ahead log and its index belong to the file just replaced.
  for (const s of ['-wal', '-journal']) if (!nonEmpty(`${file}${s}`)) rmSync(`${file}${s}`, { force: true });
  rmSync(`${file}-shm`, { force: true });
}

/** Never report an upgrade the file does not show: one it does not is undone from the backup. */
async function assertUpgraded(file: string, backup: string, work: string, report: Converted): Promise<void> {
  const seen = await withClient(file, async (check) => {
    const found = await detectShape(check);
    if (found !== 'current') return { found, fields: -1, owners: -1 };
    const count = async (t: string) => Number((await check.execute(`SELECT count(*) AS n FROM "${t}"`)).rows[0]!.n);
    return { found, fields: await count('field'), owners: await count('owner') };
  });
  if (seen.found !== 'current' || seen.fields !== report.fields || seen.owners !== report.owners) {
    copyFileSync(backup, file);
    removeWithSidecars(work);
    throw new Error(`the upgraded copy did not take the place of ${file} (it shows ${seen.found}, ${seen.fields} fields): the original was put back from ${backup}`);
  }
}

/**
 * Gives `copy` the mode and owner of `original`. Only root may give a file away: another user's
 * upgrade of a file not its own says so (a note) rather than fail.
 */
function keepOwnership(original: string, copy: string): string | undefined {
  const st = statSync(original);
  chmodSync(copy, st.mode & 0o7777);
  const now = statSync(copy);
  if (now.uid === st.uid && now.gid === st.gid) return undefined;
  try {
    chownSync(copy, st.uid, st.gid);
    // chown clears set-id bits.
    chmodSync(copy, st.mode & 0o7777);
    return undefined;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') throw err;
    return `${original} was owned by ${st.uid}:${st.gid}; the upgraded file is ${now.uid}:${now.gid} (only root can keep the owner): give it back to the service's user (chown) before starting the service`;
  }
}

// ---------------------------------------------------------------------------------------------
// The conversion itself, in one transaction on the working copy: the current schema beside the
// legacy tables, then owners, fields, scans and zones, each step noting what it changed.

/** What every step of the conversion shares. */
interface Conversion {
  tx: Transaction;
  companyId: number;
  now: Date;
  /** `now` as the service writes times. */
  nowText: string;
  /** Status and parcel number are columns of `field` (the older shape), not keys of its JSON. */
  legacyColumns: boolean;
  notes: string[];
  /** Rows the service cannot hold: the upgrade stops before writing anything. */
  blocking: string[];
  /** The inserts, written only once every row was read (none when a row blocks the upgrade). */
  batch: InStatement[];
}

type Converted = Pick<MigrationReport, 'owners' | 'fields' | 'scans' | 'zones' | 'notes'>;

async function convert(db: Client, shape: LegacyShape, now: Date): Promise<Converted> {
  const tx = await db.transaction('write');
  try {
    await createCurrentSchema(tx, now);
    const nowText = sqliteTime(now);
    const companyId = await createDefaultCompany(tx, nowText);
    const c: Conversion = { tx, companyId, now, nowText, legacyColumns: shape === 'v2026.2-legacy-columns', notes: [], blocking: [], batch: [] };
    const owners = await convertOwners(c);
    const fields = await convertFields(c, owners);
    noteOwnerMerges(c.notes, owners.merges, fields.movedFields);
    const fieldOf = fieldLookup(fields.fieldIdOf);
    const scans = await convertScans(c, fieldOf);
    const zones = await convertZones(c, fieldOf, scans);
    // Every row the service cannot hold, in one run: the administrator corrects them all, then runs again.
    if (c.blocking.length) throw new BlockingRowsError(c.blocking);
    await writeConverted(c);
    return { owners: owners.ownerByKey.size, fields: fields.count, scans: scans.count, zones, notes: c.notes };
  } catch (err) {
    await tx.rollback().catch(() => undefined);
    throw err;
  } finally {
    tx.close();
  }
}

/** The current schema beside the legacy tables (renamed legacy_*), its migrations recorded as applied. */
async function createCurrentSchema(tx: Transaction, now: Date): Promise<void> {
  for (const t of ['owner', 'field', 'fieldscan', 'fieldzone']) await tx.execute(`ALTER TABLE "${t}" RENAME TO "legacy_${t}"`);
  // The old indexes keep their names after the rename and would collide with the new ones.
  for (const i of ['field_owner_id', 'fieldscan_field_id', 'fieldzone_field_id', 'fieldzone_scan_id', 'owner_name']) await tx.execute(`DROP INDEX IF EXISTS "${i}"`);
  const migrations = readMigrations('sqlite');
  for (const m of migrations) await tx.executeMultiple(m.sql);
  await tx.execute('CREATE TABLE IF NOT EXISTS "_migrations" ("name" TEXT PRIMARY KEY, "checksum" TEXT NOT NULL, "applied_at" TEXT NOT NULL)');
  for (const m of migrations) await tx.execute({ sql: 'INSERT INTO "_migrations" VALUES (?, ?, ?)', args: [m.name, m.checksum, now.toISOString()] });
}

async function createDefaultCompany(tx: Transaction, nowText: string): Promise<number> {
  const company = await tx.execute({
    sql: 'INSERT INTO company (name, slug, settings_json, created_at) VALUES (?, ?, ?, ?) RETURNING id',
    args: [DEFAULT_COMPANY, 'default-company', '{}', nowText],
  });
  return Number(company.rows[0]!.id);
}

/** Writes the converted rows and drops the legacy tables; commits once the foreign keys check out. */
async function writeConverted(c: Conversion): Promise<void> {
  for (let i = 0; i < c.batch.length; i += 500) await c.tx.batch(c.batch.slice(i, i + 500));
  for (const t of ['fieldzone', 'fieldscan', 'field', 'owner']) await c.tx.execute(`DROP TABLE "legacy_${t}"`);
  const check = await c.tx.execute('PRAGMA foreign_key_check');
  if (check.rows.length) throw new Error(`foreign key check failed: ${JSON.stringify(check.rows.slice(0, 3))}`);
  await c.tx.commit();
}

// Owners --------------------------------------------------------------------------------------

/** An owner as written; `fullName` is the whole name when the one written was cut. */
interface UpgradedOwner {
  id: number;
  oldId: unknown;
  name: string;
  fullName?: string;
}

/** An owner merged into another of the same name; noted once the fields it had are counted. */
interface OwnerMerge {
  what: string;
  into: UpgradedOwner;
  oldId: number;
}

interface UpgradedOwners {
  /** By old id (merged owners too, as the owner they were merged into). */
  ownerOf: Map<number, UpgradedOwner>;
  /** By their name's key (ownerNameKey). */
  ownerByKey: Map<string, UpgradedOwner>;
  merges: OwnerMerge[];
}

/**
 * Owners. Names are compared as the service compares them (case and surrounding spaces aside):
 * owners v2026.2 kept apart under such names become one, the lowest old id's.
 */
async function convertOwners(c: Conversion): Promise<UpgradedOwners> {
  const ownerRows = await readLegacyTable(c.tx, 'legacy_owner', 'owner', c.notes);
  const ownerNewId = renumbered(ownerRows.map((o) => o.id));
  const owners: UpgradedOwners = { ownerOf: new Map(), ownerByKey: new Map(), merges: [] };
  for (const o of ownerRows) {
    const what = `owner ${String(o.id)}`;
    const raw = o.name === null || o.name === undefined ? '' : String(o.name);
    const { name, fullName } = ownerName(raw, o.id, what, c.notes);
    const newId = ownerNewId.get(o.id)!;
    const same = owners.ownerByKey.get(ownerNameKey(name));
    if (same) {
      owners.ownerOf.set(Number(o.id), same);
      owners.merges.push({ what: `${what} ${JSON.stringify(raw)}`, into: same, oldId: Number(o.id) });
      continue;
    }
    if (newId !== o.id) c.notes.push(`${what}: id outside 1..${MAX_RECORD_ID}, which the service cannot address; now owner ${newId}`);
    const owner = { id: newId, oldId: o.id, name, fullName };
    owners.ownerByKey.set(ownerNameKey(name), owner);
    owners.ownerOf.set(Number(o.id), owner);
    c.batch.push({ sql: 'INSERT INTO owner (id, company_id, name, created_at, updated_at) VALUES (?, ?, ?, ?, ?)', args: [newId, c.companyId, name, c.nowText, c.nowText] });
  }
  return owners;
}

/** An owner's name as the service takes it: one line, 1 to 255 characters (`fullName` the whole of one cut). */
function ownerName(raw: string, oldId: unknown, what: string, notes: string[]): { name: string; fullName?: string } {
  const name = toSingleLine(raw);
  if (!name) {
    const named = `Owner ${String(oldId)}`;
    notes.push(`${what}: no name; named ${JSON.stringify(named)}`);
    return { name: named };
  }
  if (name.length > MAX_NAME) {
    notes.push(`${what}: name longer than ${MAX_NAME} characters; cut, the whole kept in its fields' attributes (legacy_owner_name): ${JSON.stringify(name)}`);
    return { name: cut(name, MAX_NAME), fullName: name };
  }
  if (name !== raw) notes.push(`${what}: name ${JSON.stringify(raw)} ${TRIMMED}`);
  return { name };
}

function noteOwnerMerges(notes: string[], merges: OwnerMerge[], movedFields: Map<number, number>): void {
  for (const m of merges) {
    const moved = movedFields.get(m.oldId) ?? 0;
    notes.push(`${m.what}: the same owner as owner ${String(m.into.oldId)} ${JSON.stringify(m.into.name)} (the service compares names whatever the case and surrounding spaces); merged into it, ${moved} field${moved === 1 ? '' : 's'} moved`);
  }
}

// Fields --------------------------------------------------------------------------------------

interface UpgradedFields {
  count: number;
  /** Old id -> new id. */
  fieldIdOf: Map<number, number>;
  /** Merged owner's old id -> how many of its fields went to the owner it was merged into. */
  movedFields: Map<number, number>;
}

async function convertFields(c: Conversion, owners: UpgradedOwners): Promise<UpgradedFields> {
  const fields = await readLegacyTable(c.tx, 'legacy_field', 'field', c.notes);
  const fieldNewId = renumbered(fields.map((f) => f.id));
  const converted: UpgradedFields = { count: fields.length, fieldIdOf: new Map(), movedFields: new Map() };
  for (const f of fields) {
    const id = fieldNewId.get(f.id)!;
    converted.fieldIdOf.set(Number(f.id), id);
    convertField(c, f, id, owners, converted.movedFields);
  }
  return converted;
}

/** One field row, as new field `id`; one whose boundary the service cannot hold is not written (it blocks). */
function convertField(c: Conversion, f: LegacyRow, id: number, owners: UpgradedOwners, movedFields: Map<number, number>): void {
  const what = `field ${String(f.id)}`;
  const { attributes, areaSqM, jsonStatus, jsonParcel } = legacyProperties(f.properties_json, what, c.notes);
  if (id !== f.id) {
    attributes.legacy_id = f.id;
    c.notes.push(`${what}: id outside 1..${MAX_RECORD_ID}, which the service cannot address; now field ${id} (the old id kept in its attributes as legacy_id)`);
  }
  const geometry = legacyGeometry(f.geometry_wkt, what, c.notes, c.blocking);
  const area = fieldArea(areaSqM, geometry, what, c.notes);
  const status = fieldStatus(str(c.legacyColumns ? f.land_status : jsonStatus), attributes, what, c.notes);
  const parcel = legacyParcelNumber(str(c.legacyColumns ? f.parcel_number : jsonParcel), attributes, what, c.notes);
  const name = fieldName(f.name, f.id, parcel, attributes, what, c.notes);
  const ownerId = fieldOwner(f.owner_id, owners, movedFields, attributes, what, c.notes);
  if (!geometry) return;
  const box = boundingBox(geometry);
  c.batch.push({
    sql: `INSERT INTO field (id, company_id, owner_id, name, area, status, parcel_number, geometry, attributes_json,
            min_lon, min_lat, max_lon, max_lat, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    args: [id, c.companyId, ownerId, name, area, status, parcel, JSON.stringify(geometry), JSON.stringify(attributes),
      box.minLon, box.minLat, box.maxLon, box.maxLat, c.nowText, c.nowText],
  });
}

/**
 * A field's area in hectares. The stored area is what users saw: keep it; compute it when it is
 * missing or impossible (no area, or beyond what the service takes: 0.0001 to 10,000,000 ha).
 */
function fieldArea(areaSqM: unknown, geometry: FieldGeometry | null, what: string, notes: string[]): number {
  const stored = legacyNumber(areaSqM);
  const storedHa = stored !== null ? stored / 10_000 : null;
  const usable = storedHa !== null && storedHa >= MIN_AREA_HA && storedHa <= MAX_AREA_HA;
  if (areaSqM != null && areaSqM !== '' && !usable) {
    notes.push(
      storedHa !== null && storedHa > MAX_AREA_HA
        ? `${what}: area_sq_m ${JSON.stringify(areaSqM)} is over ${MAX_AREA_HA} ha, beyond what the service takes; computed from the boundary`
        : `${what}: area_sq_m ${JSON.stringify(areaSqM)} is no area; computed from the boundary`,
    );
  }
  return geometry ? roundArea(usable ? storedHa : geometryAreaHa(geometry)) : 0;
}

/** A field's status as the service takes it: one line, at most 64 characters (the whole kept in its attributes). */
function fieldStatus(rawStatus: string | null, attributes: Record<string, unknown>, what: string, notes: string[]): string | null {
  let status = rawStatus === null ? null : toSingleLine(rawStatus) || null;
  if (status && status.length > MAX_STATUS) {
    attributes.legacy_status = rawStatus;
    status = cut(status, MAX_STATUS);
    notes.push(`${what}: status longer than ${MAX_STATUS} characters; cut, the whole kept in its attributes`);
  } else if (rawStatus !== null && status !== rawStatus) {
    notes.push(status ? `${what}: status ${JSON.stringify(rawStatus)} ${TRIMMED}` : `${what}: status ${JSON.stringify(rawStatus)} is blank; left empty`);
  }
  return status;
}

/**
 * A field's name as the service requires it: trimmed, 1 to 255 characters; one without a name
 * is named as an import names it: by its parcel number, else "Field <old id>".
 */
function fieldName(value: unknown, oldId: unknown, parcel: string | null, attributes: Record<string, unknown>, what: string, notes: string[]): string {
  const rawName = value === null || value === undefined ? '' : String(value);
  let name = toSingleLine(rawName);
  if (!name) {
    name = parcel ?? `Field ${String(oldId)}`;
    notes.push(`${what}: ${rawName ? `name ${JSON.stringify(rawName)} is blank` : 'no name'}; named ${JSON.stringify(name)}`);
  } else if (name.length > MAX_NAME) {
    attributes.legacy_name = rawName;
    name = cut(name, MAX_NAME);
    notes.push(`${what}: name longer than ${MAX_NAME} characters; cut, the whole kept in its attributes`);
  } else if (name !== rawName) {
    notes.push(`${what}: name ${JSON.stringify(rawName)} ${TRIMMED}`);
  }
  return name;
}

/** The new id of a field's owner, from its owner_id (an id, or text naming one); null when it has none. */
function fieldOwner(
  value: unknown, owners: UpgradedOwners, movedFields: Map<number, number>, attributes: Record<string, unknown>, what: string, notes: string[],
): number | null {
  if (value === null || value === undefined || value === '') return null;
  const legacyOwner = legacyId(value);
  const byName = legacyOwner === null && typeof value === 'string' ? owners.ownerByKey.get(ownerNameKey(value)) : undefined;
  const owner = legacyOwner !== null ? owners.ownerOf.get(legacyOwner) : byName;
  if (!owner) {
    attributes.legacy_owner_id = legacyOwner ?? value;
    notes.push(`${what}: owner ${legacyOwner ?? JSON.stringify(value)} does not exist; left without an owner`);
    return null;
  }
  if (byName) notes.push(`${what}: owner_id ${JSON.stringify(value)} is a name, not an id; the owner of that name (${owner.id}) taken`);
  if (legacyOwner !== null && Number(owner.oldId) !== legacyOwner) movedFields.set(legacyOwner, (movedFields.get(legacyOwner) ?? 0) + 1);
  if (owner.fullName) attributes.legacy_owner_name = owner.fullName;
  return owner.id;
}

// Scans ---------------------------------------------------------------------------------------

/** A field's new id from a legacy row's field_id; undefined when that field does not exist. */
type FieldLookup = (legacyFieldId: unknown) => number | undefined;

// Scans and zones belong to a field; one whose field is gone cannot be kept (the backup keeps it).
function fieldLookup(fieldIdOf: Map<number, number>): FieldLookup {
  return (v) => {
    const old = legacyId(v);
    return old === null ? undefined : fieldIdOf.get(old);
  };
}

interface UpgradedScans {
  count: number;
  /** Old id -> new id. */
  scanIdOf: Map<number, number>;
  /** New scan id -> its field's new id. */
  fieldOfScan: Map<number, number>;
  /** Field (new id) -> the time of its earliest scan. */
  firstScanOf: Map<number, Date>;
}

async function convertScans(c: Conversion, fieldOf: FieldLookup): Promise<UpgradedScans> {
  const scanRows = (await readLegacyTable(c.tx, 'legacy_fieldscan', 'scan', c.notes)).filter((s) => {
    if (fieldOf(s.field_id) !== undefined) return true;
    c.notes.push(`scan ${String(s.id)} (${String(s.filename)}): field ${String(s.field_id)} does not exist; not carried over`);
    return false;
  });
  const scanNewId = renumbered(scanRows.map((s) => s.id));
  const scans: UpgradedScans = { count: scanRows.length, scanIdOf: new Map(), fieldOfScan: new Map(), firstScanOf: new Map() };
  for (const s of scanRows) {
    const id = scanNewId.get(s.id)!;
    const fieldId = fieldOf(s.field_id)!;
    scans.scanIdOf.set(Number(s.id), id);
    scans.fieldOfScan.set(id, fieldId);
    const uploaded = convertScan(c, s, id, fieldId);
    const first = scans.firstScanOf.get(fieldId);
    if (!first || uploaded < first) scans.firstScanOf.set(fieldId, uploaded);
  }
  return scans;
}

/** One scan row, as new scan `id` of field `fieldId`; gives the time it was uploaded. */
function convertScan(c: Conversion, s: LegacyRow, id: number, fieldId: number): Date {
  const what = `scan ${String(s.id)} (${String(s.filename)})`;
  if (id !== s.id) c.notes.push(`${what}: id outside 1..${MAX_RECORD_ID}, which the service cannot address; now scan ${id}`);
  const stats = { min: num(s.ndvi_min), max: num(s.ndvi_max), mean: num(s.ndvi_avg) };
  let uploaded = parseLegacyTime(s.uploaded_at);
  if (!uploaded) {
    c.notes.push(`${what}: uploaded_at ${JSON.stringify(s.uploaded_at)} is no time; the upgrade's time used`);
    uploaded = c.now;
  }
  const processed = legacyProcessed(s.processed);
  const legacy = { ...(id !== s.id ? { id: s.id } : {}), file_path: str(s.file_path), task_id: str(s.task_id), uploaded_at: str(s.uploaded_at), processed: str(s.processed) };
  c.batch.push({
    sql: `INSERT INTO scan (id, company_id, field_id, source, status, file_name, index_name, stats_json, details_json, created_at, updated_at)
          VALUES (?, ?, ?, 'raster', ?, ?, 'ndvi', ?, ?, ?, ?)`,
    args: [id, c.companyId, fieldId, processed ? 'completed' : 'error', String(s.filename),
      stats.mean === null && stats.min === null ? null : JSON.stringify(stats),
      JSON.stringify({ legacy }), sqliteTime(uploaded), c.nowText],
  });
  if (!processed) {
    // No task of the service will ever process it: it failed, and says why (its task's error, as every failed scan does).
    c.notes.push(`${what}: never processed by v2026.2 (processed ${JSON.stringify(s.processed)}); marked failed, for its image to be uploaded again`);
    c.batch.push({
      sql: `INSERT INTO task (id, company_id, kind, status, payload_json, file_name, error, field_id, scan_id, created_at, updated_at, finished_at)
            VALUES (?, ?, 'raster_zones', 'error', '{}', ?, ?, ?, ?, ?, ?, ?)`,
      args: [randomUUID(), c.companyId, str(s.filename), JSON.stringify({ key: 'legacy_scan_unprocessed', params: {} }), fieldId, id, sqliteTime(uploaded), c.nowText, c.nowText],
    });
  }
  return uploaded;
}

// Zones ---------------------------------------------------------------------------------------

/**
 * The scans made for zones without one (or whose scan is gone), which no path of the service could
 * reach: the orphans of a field go to one scan record of their own, "kept from v2026.2" without a
 * raster. By field (new id), with the old ids of their zones.
 */
interface OrphanScans {
  nextId: number;
  byField: Map<number, { id: number; zones: unknown[] }>;
}

/** Zones whose field exists, by field then id (the order their classes are numbered in). */
async function readZones(c: Conversion, fieldOf: FieldLookup): Promise<LegacyRow[]> {
  return (await readLegacyTable(c.tx, 'legacy_fieldzone', 'zone', c.notes))
    .filter((z) => {
      if (fieldOf(z.field_id) !== undefined) return true;
      c.notes.push(`zone ${String(z.id)}: field ${String(z.field_id)} does not exist; not carried over`);
      return false;
    })
    .sort((a, b) => fieldOf(a.field_id)! - fieldOf(b.field_id)! || Number(a.id) - Number(b.id));
}

/** Zones; gives how many were read. Their inserts follow the scans made for orphans, which they need. */
async function convertZones(c: Conversion, fieldOf: FieldLookup, scans: UpgradedScans): Promise<number> {
  const zoneRows = await readZones(c, fieldOf);
  const zoneNewId = renumbered(zoneRows.map((z) => z.id));
  const orphans: OrphanScans = { nextId: Math.max(0, ...scans.scanIdOf.values()) + 1, byField: new Map() };
  const classCounter = new Map<string, number>();
  const zoneInserts: InStatement[] = [];
  for (const z of zoneRows) {
    const what = `zone ${String(z.id)}`;
    const fieldId = fieldOf(z.field_id)!;
    const id = zoneNewId.get(z.id)!;
    if (id !== z.id) c.notes.push(`${what}: id outside 1..${MAX_RECORD_ID}, which the service cannot address; now zone ${id}`);
    const geometry = legacyGeometry(z.geometry_wkt, what, c.notes, c.blocking);
    const scanId = zoneScanId(z, what, fieldId, scans, orphans, c.notes);
    // Classes were not stored: number the zones of each scan in their original order.
    const group = `${fieldId}/${scanId}`;
    const classIndex = (classCounter.get(group) ?? 0) + 1;
    classCounter.set(group, classIndex);
    if (!geometry) continue;
    zoneInserts.push({
      sql: `INSERT INTO zone (id, company_id, scan_id, field_id, class_index, name, min_value, max_value, mean_value, area_ha, color, geometry)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      args: [id, c.companyId, scanId, fieldId, classIndex, String(z.name ?? ''), num(z.min_value), num(z.max_value), num(z.avg_ndvi),
        geometryAreaHa(geometry), str(z.color), JSON.stringify(geometry)],
    });
  }
  writeOrphanScans(c, orphans, scans.firstScanOf);
  c.batch.push(...zoneInserts);
  return zoneRows.length;
}

/** The scan (new id) a zone goes under: its own, or its field's scan for zones without one. */
function zoneScanId(z: LegacyRow, what: string, fieldId: number, scans: UpgradedScans, orphans: OrphanScans, notes: string[]): number {
  const legacyScan = legacyId(z.scan_id);
  let scanId = legacyScan === null ? undefined : scans.scanIdOf.get(legacyScan);
  // A zone lies on its own field (its boundary was cut from it, and pages find it by its field);
  // under another field's scan it would show on that field's map. It goes with its field's
  // zones without a scan instead.
  if (scanId !== undefined && scans.fieldOfScan.get(scanId) !== fieldId) {
    notes.push(`${what} of field ${fieldId}: its scan ${String(z.scan_id)} is of field ${scans.fieldOfScan.get(scanId)}; taken as a zone without a scan`);
    scanId = undefined;
  }
  if (scanId !== undefined) return scanId;
  let own = orphans.byField.get(fieldId);
  if (!own) {
    own = { id: orphans.nextId++, zones: [] };
    orphans.byField.set(fieldId, own);
  }
  own.zones.push(z.id);
  return own.id;
}

/** The scans made for orphan zones, dated just before their field's first scan so that they never pass for the latest. */
function writeOrphanScans(c: Conversion, orphans: OrphanScans, firstScanOf: Map<number, Date>): void {
  for (const [fieldId, own] of orphans.byField) {
    const first = firstScanOf.get(fieldId);
    const dated = first ? new Date(first.getTime() - 1000) : c.now;
    c.notes.push(
      `zone${own.zones.length === 1 ? '' : 's'} ${own.zones.join(', ')} of field ${fieldId}: no scan; put in scan ${own.id}, made for them ("zones kept from v2026.2", without a raster), so that they can be seen`,
    );
    c.batch.push({
      sql: `INSERT INTO scan (id, company_id, field_id, source, status, file_name, index_name, stats_json, details_json, created_at, updated_at)
            VALUES (?, ?, ?, 'raster', 'completed', NULL, 'ndvi', NULL, ?, ?, ?)`,
      args: [own.id, c.companyId, fieldId, JSON.stringify({ legacy: { zones_without_scan: own.zones, note: 'zones kept from v2026.2 without their scan' } }), sqliteTime(dated), c.nowText],
    });
  }
}
