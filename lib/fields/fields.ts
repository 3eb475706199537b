// Fields: the company's parcels, stored as GeoJSON in lon/lat with an indexed bounding box.
import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { z } from 'zod';
import { config } from '../config';
import { SQLITE_LOCK_WAIT_MS } from '../db/sqlite-file-client';
import { type TenantDb, tenantCreate } from '../db/tenant';
import { fieldAreaHa, roundArea } from '../geo/area';
import { type BBox, type FieldGeometry, boundingBox, validateFieldGeometry } from '../geo/geometry';
import { simplifyGeometryText } from '../geo/simplify';
import { conflict, notFound, unprocessable } from '../errors';
import { resolveDataPath } from '../uploads/data-path';
import { noteScansBoundary } from '../scans/boundary';
import { removeFieldFiles } from './files';
import type { createFieldBody, fieldListQuery, updateFieldBody } from './schemas';

export const AREA_UNIT = 'ha';
export { roundArea };

/**
 * A search text as PostgreSQL's LIKE takes it: `%` and `_` are wildcards there (`q=%` found every
 * field), escaped with a backslash.
 */
const likeText = (text: string) => text.replace(/[\\%_]/g, '\\$&');

/**
 * The search (`q`: the name, whatever the case, or the parcel number contains the text) as SQL.
 * PostgreSQL does all of it. SQLite's LIKE folds the case of ASCII letters only and has no escape
 * without an ESCAPE clause, which Prisma does not write: there SQL narrows the rows only for an
 * ASCII text (a few rows too many, where it holds `%` or `_`), and `textSearch` decides.
 */
function searchWhere(q: string) {
  if (config().databaseKind === 'postgresql') return { OR: [{ name: { contains: likeText(q), mode: 'insensitive' as const } }, { parcelNumber: { contains: likeText(q) } }] };
  return /^[\x00-\x7f]*$/.test(q) ? { OR: [{ name: { contains: q } }, { parcelNumber: { contains: q } }] } : {};
}

type Searched = { name: string; parcelNumber: string | null };

/** On SQLite, the search itself, on the rows SQL found (`searchWhere`). */
function textSearch(q: string | undefined): ((f: Searched) => boolean) | undefined {
  if (!q || config().databaseKind === 'postgresql') return undefined;
  const lower = q.toLocaleLowerCase();
  return (f) => f.name.toLocaleLowerCase().includes(lower) || (f.parcelNumber?.includes(q) ?? false);
}

/** The filter for fields whose indexed bounding box meets `box` (spatial look-ups filter in SQL first). */
export const fieldsMeetingBox = (box: BBox) => ({ maxLon: { gte: box.minLon }, minLon: { lte: box.maxLon }, maxLat: { gte: box.minLat }, minLat: { lte: box.maxLat } });

async function assertOwner(db: TenantDb, ownerId: number | null | undefined) {
  if (ownerId == null) return;
  if (!(await db.owner.findUnique({ where: { id: ownerId }, select: { id: true } }))) throw unprocessable('owner_not_found');
}

/** The stored geometry and its indexed bounding box. */
export function geometryColumns(geometry: FieldGeometry) {
  return { geometry: JSON.stringify(geometry), ...boundingBox(geometry) };
}

/** Rows per query of a list (about 1.5 MB of geometry text). */
const LIST_PAGE = 500;

type FieldListQuery = z.infer<typeof fieldListQuery>;

/** The list's filters (spec 2.3) as a query's `where`; the company is added by the tenant scope. */
function fieldListWhere(query: FieldListQuery) {
  const [minLon, minLat, maxLon, maxLat] = query.bbox ?? [];
  return {
    ...(query.bbox ? fieldsMeetingBox({ minLon: minLon!, minLat: minLat!, maxLon: maxLon!, maxLat: maxLat! }) : {}),
    ...(query.owner_id ? { ownerId: query.owner_id } : {}),
    ...(query.status ? { status: query.status } : {}),
    ...(query.q ? searchWhere(query.q) : {}),
  };
}

/**
 * Owner names by id, from one small query: the owner included with each row took longer (10,000
 * rows without geometry: PostgreSQL 30 against 21 ms, SQLite 36 against 30 ms).
 */
async function ownerNames(db: TenantDb) {
  return new Map((await db.owner.findMany({ select: { id: true, name: true } })).map((o) => [o.id, o.name]));
}

const withOwnerName = <F extends { ownerId: number | null }>(f: F, names: Map<number, string>) => ({
  ...f,
  owner: f.ownerId === null ? null : (names.get(f.ownerId) ?? null),
});

/**
 * The company's fields matching `query`, in pages ordered by id, each boundary simplified within
 * `query.simplify` metres when asked (the area stays the stored one). The matching ids come first from
 * one query the indexes answer alone (the bounding-box indexes cover a map window); the rows, with
 * kilobytes of geometry each, are then read a page at a time: the same filter within the id range
 * of the page, which the primary key answers. (Naming the page's 500 ids instead cost Prisma a fifth
 * of the list's time in binding them.) This keeps the memory of a 10,000-field list flat and lets
 * the answer stream. A field deleted meanwhile is left out; one changed meanwhile is answered as it
 * is when its page is read.
 */
export async function* fieldPages(db: TenantDb, query: FieldListQuery, pageSize = LIST_PAGE) {
  const where = fieldListWhere(query);
  const keep = textSearch(query.q);
  const metres = query.simplify;
  const [found, names] = await Promise.all([
    db.field.findMany({ where, select: { id: true, ...(keep && { name: true, parcelNumber: true }) }, orderBy: { id: 'asc' } }),
    ownerNames(db),
  ]);
  const matching = keep ? found.filter((f) => keep(f as Searched)) : found;
  for (let start = 0; start < matching.length; start += pageSize) {
    const ids = matching.slice(start, start + pageSize).map((f) => f.id);
    const rows = await db.field.findMany({
      // A search's rows by their ids: they may lie far apart in the range (three fields among 10,000).
      where: keep ? { id: { in: ids } } : { ...where, id: { gte: ids[0]!, lte: ids.at(-1)! } },
      select: { id: true, name: true, area: true, status: true, parcelNumber: true, ownerId: true, geometry: true },
      orderBy: { id: 'asc' },
    });
    // A row changed meanwhile is answered as it is now, if it still matches.
    const page = keep ? rows.filter(keep) : rows;
    const drawn = metres === undefined ? page : page.map((f) => ({ ...f, geometry: simplifyGeometryText(f.geometry, metres) }));
    if (drawn.length) yield drawn.map((f) => withOwnerName(f, names));
  }
}

/** The list's properties without the geometry (a table's rows), ordered by id. */
export async function listFieldRows(db: TenantDb, query: FieldListQuery) {
  const keep = textSearch(query.q);
  const [fields, names] = await Promise.all([
    db.field.findMany({
      where: fieldListWhere(query),
      select: { id: true, name: true, area: true, status: true, parcelNumber: true, ownerId: true },
      orderBy: { id: 'asc' },
    }),
    ownerNames(db),
  ]);
  return (keep ? fields.filter(keep) : fields).map((f) => withOwnerName(f, names));
}

/**
 * The box around the company's fields, or around one of them, for a map's first view; null when
 * there is none. The stored bounding boxes answer it without reading a geometry.
 */
export async function fieldsExtent(db: TenantDb, id?: number): Promise<BBox | null> {
  const { _min, _max } = await db.field.aggregate({
    where: id === undefined ? {} : { id },
    _min: { minLon: true, minLat: true },
    _max: { maxLon: true, maxLat: true },
  });
  if (_min.minLon === null || _min.minLat === null || _max.maxLon === null || _max.maxLat === null) return null;
  return { minLon: _min.minLon, minLat: _min.minLat, maxLon: _max.maxLon, maxLat: _max.maxLat };
}

/** A field as the list answers it: its properties, its owner's name and its stored GeoJSON text. */
interface ListedField {
  id: number;
  name: string;
  area: number;
  status: string | null;
  parcelNumber: string | null;
  ownerId: number | null;
  owner: string | null;
  geometry: string;
}

/** A listed field's properties as the list answers them (and the fields table shows them). */
export const fieldProperties = (f: Omit<ListedField, 'id' | 'geometry'>) => ({
  name: f.name,
  area: roundArea(f.area),
  owner: f.owner,
  owner_id: f.ownerId,
  status: f.status,
  parcel_number: f.parcelNumber,
});

/**
 * A Feature's JSON text up to its geometry. Geometries are stored as GeoJSON text already, so they
 * are spliced in after it rather than parsed and serialised again (the full list stays fast).
 */
function featureHead(f: ListedField): string {
  return `{"type":"Feature","id":${f.id},"properties":${JSON.stringify(fieldProperties(f))},"geometry":`;
}

/**
 * `before`, then the features separated by commas, as UTF-8 written straight into one buffer.
 * Joining the text first made one string of each page, two bytes a character as soon as a name
 * held a Cyrillic letter, and encoding that took more than twice as long as writing the parts.
 */
function featuresBytes(before: string, fields: ListedField[]): Buffer {
  const heads = fields.map(featureHead);
  let size = Buffer.byteLength(before) + Math.max(0, fields.length - 1);
  for (let i = 0; i < fields.length; i++) size += Buffer.byteLength(heads[i]!) + Buffer.byteLength(fields[i]!.geometry) + 1;
  const bytes = Buffer.allocUnsafe(size);
  let at = bytes.write(before);
  for (let i = 0; i < fields.length; i++) {
    if (i) at += bytes.write(',', at);
    at += bytes.write(heads[i]!, at);
    at += bytes.write(fields[i]!.geometry, at);
    at += bytes.write('}', at);
  }
  return bytes;
}

const COLLECTION_OPENING = '{"type":"FeatureCollection","features":[';
const COLLECTION_CLOSING = ']}';

/**
 * The FeatureCollection as UTF-8 chunks, a page of features each, for a streamed answer. The opening
 * travels with the first page, so nothing is produced before the first query has succeeded.
 */
export async function* featureCollectionChunks(pages: AsyncIterable<ListedField[]>): AsyncGenerator<Buffer> {
  let before = COLLECTION_OPENING;
  for await (const page of pages) {
    yield featuresBytes(before, page);
    before = ',';
  }
  yield Buffer.from(`${before === ',' ? '' : before}${COLLECTION_CLOSING}`);
}

export async function getField(db: TenantDb, id: number) {
  const field = await db.field.findUnique({ where: { id }, include: { owner: { select: { id: true, name: true } } } });
  if (!field) throw notFound();
  return field;
}

/** The detail's fields other than the stored JSON (geometry and attributes), in the answer's order. */
function fieldDetailHead(f: Awaited<ReturnType<typeof getField>>) {
  return {
    id: f.id,
    name: f.name,
    area: roundArea(f.area),
    area_unit: AREA_UNIT,
    owner: f.owner ? { id: f.owner.id, name: f.owner.name } : null,
    status: f.status,
    parcel_number: f.parcelNumber,
    created_at: f.createdAt.toISOString(),
    updated_at: f.updatedAt.toISOString(),
  };
}

export function fieldDetail(f: Awaited<ReturnType<typeof getField>>) {
  return {
    ...fieldDetailHead(f),
    geometry: JSON.parse(f.geometry) as FieldGeometry,
    attributes: JSON.parse(f.attributesJson) as Record<string, unknown>,
  };
}

/**
 * `fieldDetail` as JSON text, with the stored geometry and attributes (JSON this service wrote)
 * spliced in as they are: parsing and serialising them again cost 45 µs of a single field's answer.
 */
export function fieldDetailJson(f: Awaited<ReturnType<typeof getField>>): string {
  return `${JSON.stringify(fieldDetailHead(f)).slice(0, -1)},"geometry":${f.geometry},"attributes":${f.attributesJson}}`;
}

export async function createField(db: TenantDb, input: z.infer<typeof createFieldBody>) {
  const geometry = validateFieldGeometry(input.geometry);
  await assertOwner(db, input.owner_id);
  return db.field.create({
    data: tenantCreate('field', {
      name: input.name,
      ownerId: input.owner_id ?? null,
      status: input.status ?? null,
      parcelNumber: input.parcel_number ?? null,
      // An area given explicitly (a cadastral area) is kept until the geometry changes.
      area: input.area != null ? roundArea(input.area) : fieldAreaHa(geometry),
      ...geometryColumns(geometry),
    }),
    select: { id: true },
  });
}

export async function updateField(db: TenantDb, id: number, input: z.infer<typeof updateFieldBody>) {
  const geometry = input.geometry !== undefined ? validateFieldGeometry(input.geometry) : undefined;
  await assertOwner(db, input.owner_id);
  if (!geometry) return writeField(db, id, input, geometry);
  return db.$transaction(async (tx) => {
    const before = await tx.field.findUnique({ where: { id }, select: { geometry: true } });
    if (!before) throw notFound();
    // The same boundary sent back (a form saving every field) is no change: a cadastral area stays.
    if (JSON.stringify(geometry) === before.geometry) return writeField(tx, id, input, undefined);
    await noteScansBoundary(tx, id, before.geometry);
    return writeField(tx, id, input, geometry);
  });
}

function writeField(db: Pick<TenantDb, 'field'>, id: number, input: z.infer<typeof updateFieldBody>, geometry: FieldGeometry | undefined) {
  return db.field.update({
    where: { id },
    data: {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.owner_id !== undefined ? { ownerId: input.owner_id } : {}),
      ...(input.status !== undefined ? { status: input.status } : {}),
      ...(input.parcel_number !== undefined ? { parcelNumber: input.parcel_number } : {}),
      ...(geometry ? geometryColumns(geometry) : {}),
      // A new geometry recomputes the area unless this same request states one.
      ...(input.area !== undefined ? { area: roundArea(input.area) } : geometry ? { area: fieldAreaHa(geometry) } : {}),
    },
    include: { owner: { select: { id: true, name: true } } },
  });
}

/**
 * Gives every field in `ids` the owner or status (or both) in `change`, all of them or, when one is
 * not the company's, none (404). Answers how many were changed.
 */
export async function updateFields(db: TenantDb, ids: number[], change: { owner_id?: number | null; status?: string | null }): Promise<number> {
  await assertOwner(db, change.owner_id);
  const data = { ...(change.owner_id !== undefined ? { ownerId: change.owner_id } : {}), ...(change.status !== undefined ? { status: change.status } : {}) };
  // A statement takes so many ids at most: the SQLite driver refuses more than 999 parameters.
  const parts = Array.from({ length: Math.ceil(ids.length / IDS_PER_STATEMENT) }, (_, i) => ids.slice(i * IDS_PER_STATEMENT, (i + 1) * IDS_PER_STATEMENT));
  return db.$transaction(async (tx) => {
    let found = 0;
    for (const part of parts) found += await tx.field.count({ where: { id: { in: part } } });
    if (found !== ids.length) throw notFound();
    let updated = 0;
    for (const part of parts) updated += (await tx.field.updateMany({ where: { id: { in: part } }, data })).count;
    return updated;
  });
}

const IDS_PER_STATEMENT = 500;

/**
 * Within a write transaction: 409 when one of `read` has changed (or gone) since it was read. Work
 * that takes long (a union, a cut) is done between the read and the transaction, so that SQLite's
 * write lock is not held meanwhile; this makes sure it was done on what is still there.
 */
export async function assertFieldsUnchanged(tx: Pick<TenantDb, 'field'>, read: { id: number; updatedAt: Date }[]) {
  const now = await tx.field.findMany({ where: { id: { in: read.map((r) => r.id) } }, select: { id: true, updatedAt: true } });
  const stamps = new Map(now.map((r) => [r.id, r.updatedAt.getTime()]));
  if (read.some((r) => stamps.get(r.id) !== r.updatedAt.getTime())) throw conflict('fields_changed_meanwhile');
}

/** Removes the field, its scans and zones (foreign keys cascade) and its files, the scans' too. */
/** Of the fields `ids`, those with a task still waiting or running (an upload being processed). */
export async function fieldsWithTasksInProgress(db: Pick<TenantDb, 'task'>, ids: number[]): Promise<Set<number>> {
  const rows = await db.task.findMany({ where: { fieldId: { in: ids }, status: { in: ['pending', 'running'] } }, select: { fieldId: true } });
  return new Set(rows.map((r) => r.fieldId!));
}

/**
 * Within a transaction that is to delete the fields: their rows locked to its end. SQLite's
 * transactions are one at a time already (BEGIN IMMEDIATE). On PostgreSQL a task being written for
 * one of them holds its row (the foreign key's check) until it commits: it is waited for, and then
 * seen; one written after the lock waits for the delete and fails on the missing field.
 */
export async function lockFieldRows(tx: Pick<TenantDb, '$executeRaw'>, ids: number[]) {
  if (ids.length && config().databaseKind === 'postgresql') await tx.$executeRaw`SELECT 1 FROM "field" WHERE "id" = ANY(${ids}) FOR UPDATE`;
}

/**
 * Removes the field with its scans, zones and files. Not while a task of it runs (409, as for a scan
 * being processed): the task's row would go with the field, and the user's record of the upload with it.
 */
export async function deleteField(db: TenantDb, companyId: number, id: number) {
  // The check and the delete in one transaction: an upload writing its task between them would have
  // lost the task's row with the field (tasks cascade).
  const scans = await db.$transaction(
    async (tx) => {
      await lockFieldRows(tx, [id]);
      if ((await fieldsWithTasksInProgress(tx, [id])).size) throw conflict('field_task_running');
      const found = await tx.scan.findMany({ where: { fieldId: id }, select: { dataPath: true } });
      await tx.field.delete({ where: { id } });
      return found;
    },
    { timeout: SQLITE_LOCK_WAIT_MS + 5000 },
  );
  await removeFieldFiles(companyId, id);
  await Promise.all(scans.filter((s) => s.dataPath).map((s) => rm(dirname(resolveDataPath(s.dataPath!)), { recursive: true, force: true })));
}
