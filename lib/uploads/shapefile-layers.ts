// The files of an extracted ZIP of shapefiles to fields in WGS84: every polygon layer in the archive
// (subfolders too), its coordinate system from the .prj, its text encoding from the .cpg, the DBF
// language driver or the bytes themselves, the usual columns mapped to name/owner/status/parcel
// number, geometry checked and, when it crosses itself, repaired only if that keeps its area.
import { createRequire } from 'node:module';
import { createReadStream } from 'node:fs';
import { type FileHandle, open, readFile } from 'node:fs/promises';
import { basename, dirname, extname, join, relative } from 'node:path';
import type { Feature, MultiPolygon, Polygon, Position } from 'geojson';
import { AppError, unprocessable } from '../errors';
import { geometryAreaHa } from '../geo/area';
import { type FieldGeometry, MAX_RINGS, MAX_VERTICES, checkComplexity, validateFieldGeometry } from '../geo/geometry';
import { type Crs, MAX_PRJ_BYTES, crsForLocation, crsFromPrjFile, toWgs84 } from '../geo/prj';
import { hasSeveralRings, nestRings } from '../geo/nest-rings';
import { keptArea, repairGeometry } from '../geo/repair';
import { splitSelfTouchingRings } from '../geo/ring-split';
import { turnTaker } from './event-loop-turns';
import { SHP_HEADER_BYTES, type ShpRecord, parseShpHeader, shpRecords } from './shp-records';
import { quotedName } from './zip-archive';

// shapefile (the .dbf's reader; ./shp-records reads the .shp) decodes DBF text with `text-encoding`,
// an unmaintained pure-JS polyfill that costs a tenth of a large import. Node's own TextDecoder knows
// the same WHATWG code pages: it is handed over in the polyfill's place before shapefile is loaded.
const require = createRequire(import.meta.url);
const polyfillPath = require.resolve('text-encoding', { paths: [dirname(require.resolve('shapefile'))] });
require.cache[polyfillPath] ??= { id: polyfillPath, filename: polyfillPath, loaded: true, exports: { TextDecoder, TextEncoder } } as NodeJS.Module;
const shapefile = require('shapefile') as typeof import('shapefile');

export interface ColumnMapping {
  name?: string;
  owner?: string;
  status?: string;
  parcel_number?: string;
}

export interface ImportFeature {
  layer: string;
  index: number;
  /** Position of the record in the archive, counting every layer's records in reading order. */
  seq: number;
  geometry: FieldGeometry;
  name: string | null;
  owner: string | null;
  status: string | null;
  parcel_number: string | null;
  /** A register code that names the parcel (see IDENTIFIER_CANDIDATES). */
  identifier: string | null;
  attributes: Record<string, unknown>;
}

export interface SkippedFeature {
  /** As ImportFeature.seq. */
  seq: number;
  feature: string;
  /** Message key under `errors.` and its parameters (translated by the route). */
  key: string;
  params: Record<string, string | number>;
}

export interface ShapefileImport {
  crs: string;
  encoding: string;
  features: ImportFeature[];
  skipped: SkippedFeature[];
}

/** Columns that usually hold each attribute (compared case- and accent-insensitively), in priority order. */
export const COLUMN_CANDIDATES: Record<keyof ColumnMapping, string[]> = {
  name: ['name', 'field_name', 'fieldname', 'nazov', 'nazev', 'nazov_dpb', 'название', 'наименование', 'имя', 'pole', 'поле', 'bezeichnung', 'label'],
  owner: ['owner', 'owner_name', 'vlastnik', 'владелец', 'собственник', 'eigentumer', 'eigentuemer', 'landowner'],
  status: ['status', 'land_status', 'статус', 'вид_права', 'pravny_vztah', 'tenure'],
  parcel_number: ['parcel_number', 'parcel_no', 'parcel', 'cad_num', 'cadastral_number', 'kadastr', 'кадастровый_номер', 'кадастровый номер', 'кад_номер', 'kn', 'кн', 'cislo_parcely'],
};

/**
 * Subsidy-register (LPIS) block and parcel codes: not cadastral numbers, so never a parcel number,
 * but the name farm staff know a parcel by when the file has no name column.
 */
export const IDENTIFIER_CANDIDATES = ['kodkd', 'zkodkd', 'dpb_zkod', 'ref_ident', 'phbident', 'flik', 'blok_id', 'parcel_id', 'field_id', 'id_parcel'];

// A DBF column name is at most 10 bytes: a UTF-8 Cyrillic name keeps 5 letters, and a cut through
// a letter leaves a replacement character, which folding drops.
const fold = (s: string) => s.normalize('NFD').replace(/[\u0300-\u036f\ufffd]/g, '').toLowerCase().trim();

/** The shortest cut-off column name taken for the candidate it begins (`наименован`, `кад_н`, `pravny_vzt`). */
const MIN_TRUNCATED = 5;

/** The column a list of candidates names: one named exactly so, in the candidates' order, else one the DBF cut short. */
function findColumn(byFolded: Map<string, string>, candidates: string[], taken: (string | undefined)[]): string | undefined {
  const free = (c: string | undefined) => c !== undefined && !taken.includes(c);
  const exact = candidates.map((c) => byFolded.get(fold(c))).find(free);
  if (exact) return exact;
  for (const candidate of candidates.map(fold)) {
    for (const [folded, column] of byFolded) if (folded.length >= MIN_TRUNCATED && candidate.startsWith(folded) && free(column)) return column;
  }
  return undefined;
}

export function pickColumns(columns: string[], mapping: ColumnMapping = {}): ColumnMapping & { identifier?: string } {
  const byFolded = new Map(columns.map((c) => [fold(c), c]));
  const out: ColumnMapping & { identifier?: string } = { identifier: IDENTIFIER_CANDIDATES.map((c) => byFolded.get(c)).find(Boolean) };
  for (const key of Object.keys(COLUMN_CANDIDATES) as (keyof ColumnMapping)[]) {
    const given = mapping[key];
    if (given) {
      const col = byFolded.get(fold(given));
      if (!col) throw unprocessable('shp_mapping_column', { column: given });
      out[key] = col;
      continue;
    }
    const found = findColumn(byFolded, COLUMN_CANDIDATES[key], Object.values(out));
    if (found) out[key] = found;
  }
  return out;
}

// --- Encodings ---------------------------------------------------------------------------------

const CPG_ALIASES: [RegExp, string][] = [
  [/^utf-?8$/i, 'utf-8'],
  [/^(?:ansi\s*|cp\s*|windows-?)?(125[0-8])$/i, 'windows-$1'],
  [/^(?:cp|ibm)?\s*(866|850|852|437)$/i, 'ibm$1'],
  [/^koi8-?r$/i, 'koi8-r'],
  [/^iso[-_ ]?8859[-_ ]?(\d{1,2})$/i, 'iso-8859-$1'],
];

export function encodingFromCpg(text: string): string | undefined {
  const t = text.trim();
  for (const [re, enc] of CPG_ALIASES) if (re.test(t)) return t.replace(re, enc).toLowerCase();
  return undefined;
}

/** DBF language driver ids that name a code page (0x57, "ANSI", names none: detection decides). */
const LDID: Record<number, string> = {
  0x01: 'ibm437', 0x02: 'ibm850', 0x03: 'windows-1252', 0x26: 'ibm866', 0x64: 'ibm852', 0x65: 'ibm866',
  0x57: '', 0x58: 'windows-1252', 0x59: 'windows-1252', 0xc8: 'windows-1250', 0xc9: 'windows-1251', 0xca: 'windows-1254', 0xcb: 'windows-1253',
};

/**
 * Bytes that are letters in Central European Windows text (1250: Ľ ľ Ť ť Ś ś Ź ź Ł ł Ą ą ż) and
 * signs seldom written in Western text (1252: ¼ ¾ £ ¥ ³ ¹ ¿ ...): Slovak and Czech files without a
 * .cpg are told by them.
 */
const CP1250_LETTERS = new Set([0x8c, 0x8d, 0x8f, 0x9c, 0x9d, 0x9f, 0xa3, 0xa5, 0xb3, 0xb9, 0xbc, 0xbe, 0xbf]);

/**
 * Valid UTF-8 with non-ASCII text; else Cyrillic when most letters are high bytes; else Central
 * European when a letter only it has appears; else Western (1252).
 */
export function detectEncoding(bytes: Uint8Array): string {
  let high = 0;
  let letters = 0;
  let centralEuropean = 0;
  for (const b of bytes) {
    if (b >= 0x80) {
      high++;
      if (CP1250_LETTERS.has(b)) centralEuropean++;
    } else if ((b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a)) letters++;
  }
  if (high === 0) return 'utf-8';
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return 'utf-8';
  } catch {
    // Cyrillic text is written almost wholly in high bytes; Latin text has a few accents among ASCII.
    return high / (high + letters) > 0.4 ? 'windows-1251' : centralEuropean > 0 ? 'windows-1250' : 'windows-1252';
  }
}

/** DBF column types the reader decodes (dBase III's, as most GIS write them). */
const DBF_TYPES = new Set(['B', 'C', 'D', 'F', 'L', 'M', 'N']);

/** The smallest DBF header: 32 bytes, then the 0x0D that ends the (here empty) column list. */
const DBF_MIN_HEADER = 33;

/**
 * A header the records can be read by: long enough, its column list ended within it, its columns
 * fitting the record (after the deletion flag), and the file holding every record it counts (the
 * 0x1A end-of-file byte may be missing). The reader trusts all of it: a short file ends the
 * attributes early, silently, and a header shorter than itself is a TypeError.
 */
function dbfHeaderIsSound(h: { fileSize: number; headerLength: number; recordLength: number; recordCount: number; columnsEnd: number; columnBytes: number }): boolean {
  return (
    h.headerLength >= DBF_MIN_HEADER &&
    h.recordLength > 0 &&
    h.columnsEnd >= 0 &&
    1 + h.columnBytes <= h.recordLength &&
    h.headerLength + h.recordCount * h.recordLength <= h.fileSize
  );
}

/**
 * What the attribute table tells before it is read: its text encoding (the .cpg, else the DBF
 * language driver byte, else detection on the column names and the first records) and its record
 * count. One read of the header and of at most 2 MB of records: a DBF can be hundreds of MB. A
 * column of a type the reader cannot decode (Visual FoxPro's binary integers, say) is refused here,
 * naming it, rather than failing half-way through the records; so is a damaged header.
 */
async function readDbfFacts(dbfPath: string, cpgPath: string | undefined): Promise<{ encoding: string; recordCount: number; deleted: Set<number> }> {
  const fromCpg = cpgPath ? encodingFromCpg(await readFile(cpgPath, 'utf8')) : undefined;
  const file = await open(dbfPath);
  try {
    const fileSize = (await file.stat()).size;
    const head = Buffer.alloc(32);
    await file.read(head, 0, 32, 0);
    const recordCount = head.readUInt32LE(4);
    const headerLength = head.readUInt16LE(8);
    const recordLength = head.readUInt16LE(10);
    const descriptors = Buffer.alloc(Math.max(0, headerLength - 32));
    const { bytesRead: descriptorBytes } = await file.read(descriptors, 0, descriptors.length, 32);
    const names: Buffer[] = [];
    const unsupported: { name: Buffer; type: string }[] = [];
    let columnsEnd = -1;
    let columnBytes = 0;
    for (let at = 0; at < descriptorBytes; at += 32) {
      if (descriptors[at] === 0x0d) {
        columnsEnd = at;
        break;
      }
      if (at + 32 > descriptorBytes) break;
      const raw = descriptors.subarray(at, at + 11);
      const name = raw.subarray(0, raw.indexOf(0) < 0 ? 11 : raw.indexOf(0));
      names.push(name);
      columnBytes += descriptors[at + 16]!;
      const type = String.fromCharCode(descriptors[at + 11]!);
      if (!DBF_TYPES.has(type)) unsupported.push({ name, type });
    }
    if (!dbfHeaderIsSound({ fileSize, headerLength, recordLength, recordCount, columnsEnd, columnBytes })) throw unprocessable('shp_corrupt', { file: quotedName(basename(dbfPath)) });
    const sample = Buffer.alloc(2 * 1024 * 1024);
    const { bytesRead } = await file.read(sample, 0, sample.length, headerLength);
    const fromLdid = LDID[head[29] ?? 0];
    const encoding =
      fromCpg && decodable(fromCpg) ? fromCpg : fromLdid && decodable(fromLdid) ? fromLdid : detectEncoding(Buffer.concat([...names, sample.subarray(0, bytesRead)]));
    const bad = unsupported[0];
    if (bad) throw unprocessable('shp_dbf_column_type', { file: quotedName(basename(dbfPath)), column: new TextDecoder(encoding).decode(bad.name), type: bad.type });
    return { encoding, recordCount, deleted: await deletedRecords(file, headerLength, recordLength, recordCount) };
  } finally {
    await file.close();
  }
}

/**
 * Records the attribute table marks deleted ('*' before the record): a GIS deletes a feature so,
 * until the file is packed, and shows none of them. Read a megabyte at a time.
 */
async function deletedRecords(file: FileHandle, headerLength: number, recordLength: number, recordCount: number): Promise<Set<number>> {
  const deleted = new Set<number>();
  if (recordLength === 0) return deleted;
  const perRead = Math.max(1, Math.floor((1024 * 1024) / recordLength));
  const chunk = Buffer.alloc(perRead * recordLength);
  for (let first = 0; first < recordCount; first += perRead) {
    const { bytesRead } = await file.read(chunk, 0, chunk.length, headerLength + first * recordLength);
    for (let i = 0; i * recordLength < bytesRead && first + i < recordCount; i++) if (chunk[i * recordLength] === 0x2a) deleted.add(first + i);
    if (bytesRead < chunk.length) break;
  }
  return deleted;
}

/** The first bytes of a file (fewer when it is shorter): a .shp can be hundreds of MB. */
async function readHead(path: string, length: number): Promise<Buffer> {
  const file = await open(path);
  try {
    const head = Buffer.alloc(length);
    const { bytesRead } = await file.read(head, 0, length, 0);
    return head.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}

/** Code pages that the WHATWG decoders know (DOS 437/850/852 are not among them). */
function decodable(encoding: string): boolean {
  try {
    new TextDecoder(encoding);
    return true;
  } catch {
    return false;
  }
}

// --- Geometry ----------------------------------------------------------------------------------

const SHAPE_POLYGON = new Set([5, 15, 25]);

/** A ring converted and closed; a closing vertex that repeats the first is not converted again. */
function reprojectRing(ring: Position[], convert: (xy: number[]) => [number, number]): Position[] {
  const [first, last] = [ring[0], ring.at(-1)];
  if (!first || !last) return [];
  const open = ring.length > 1 && first[0] === last[0] && first[1] === last[1] ? ring.length - 1 : ring.length;
  const out: Position[] = [];
  for (let i = 0; i < open; i++) out.push(convert(ring[i]!));
  out.push([...out[0]!]);
  return out;
}

function reproject(g: Polygon | MultiPolygon, convert: (xy: number[]) => [number, number]): FieldGeometry {
  const ring = (r: Position[]) => reprojectRing(r, convert);
  return g.type === 'Polygon'
    ? { type: 'Polygon', coordinates: g.coordinates.map(ring) }
    : { type: 'MultiPolygon', coordinates: g.coordinates.map((poly) => poly.map(ring)) };
}

/**
 * A polygon record's rings in the order the .shp lists them, each a part of its own: which are holes
 * is decided by how they nest (nestRings), whatever their winding. It stands in for the `shapefile`
 * library's parser, which sorted rings by winding and then tested every hole against every outer
 * ring: one polygon of 20,000 parts held the thread for minutes. Counts the record cannot hold are
 * damage (a RangeError, as the library's reads past the record's end were); counts over the bounds
 * of a boundary are answered from the record's header, without reading a point: of a longer record,
 * only its first POLYGON_READ_BYTES need be read (`record`), its length in the file given beside them.
 */
export function polygonRecord(record: DataView, recordBytes = record.byteLength): Polygon | MultiPolygon | OverBounds {
  const parts = record.getInt32(36, true);
  const points = record.getInt32(40, true);
  if (parts < 0 || points < 0 || 44 + 4 * parts + 16 * points > recordBytes) throw new RangeError('a polygon record shorter than its counts');
  if (parts > MAX_RINGS || points - parts > MAX_VERTICES) return { type: 'OverBounds', rings: parts, vertices: points - parts };
  const starts: number[] = [];
  for (let j = 0; j < parts; j++) starts.push(record.getInt32(44 + 4 * j, true));
  const xy: Position[] = [];
  for (let j = 0, at = 44 + 4 * parts; j < points; j++, at += 16) xy.push([record.getFloat64(at, true), record.getFloat64(at + 8, true)]);
  // As the library cut them: from each part's start to the next one's (a bad index leaves a ring short
  // or empty). Empty rings go: a record of them alone is no polygon (polygonShape), not a shape without a first point.
  const rings = starts.map((start, j) => xy.slice(start, starts[j + 1])).filter((ring) => ring.length > 0);
  return rings.length === 1 ? { type: 'Polygon', coordinates: rings } : { type: 'MultiPolygon', coordinates: rings.map((r) => [r]) };
}

/** The most of a polygon record polygonRecord reads: one at the bounds (more parts or points are answered from the counts). */
const POLYGON_READ_BYTES = 44 + 4 * MAX_RINGS + 16 * (MAX_RINGS + MAX_VERTICES);

/** A record's shape: a null shape stays null. */
const recordShape = (record: ShpRecord | null): RecordShape => record && polygonRecord(record.content, record.bytes);

function keepsArea(original: FieldGeometry, repaired: FieldGeometry): FieldGeometry {
  const before = geometryAreaHa(original);
  const after = geometryAreaHa(repaired);
  if (!keptArea(before, after)) throw unprocessable('geometry_repair_changes_area', { before: before.toFixed(4), after: after.toFixed(4) });
  return repaired;
}

// --- Reading ---------------------------------------------------------------------------------

/**
 * The records one of several readers of an archive reprojects and checks: runs of RECORDS_PER_RUN
 * taken in turn, so that each reader gets as many parcels of each size as the others.
 */
export interface ReadShare {
  part: number;
  parts: number;
}
const RECORDS_PER_RUN = 64;
const isInShare = (seq: number, share: ReadShare) => Math.floor(seq / RECORDS_PER_RUN) % share.parts === share.part;

interface ReadOptions {
  mapping?: ColumnMapping;
  /** Hands features over one by one instead of collecting them (`features` stays empty). */
  onFeature?: (f: ImportFeature) => void;
  share?: ReadShare;
}

// --- Layers ------------------------------------------------------------------------------------

interface Layer {
  name: string;
  shp: string;
  dbf?: string;
  prj?: string;
  cpg?: string;
}

/** The files a shapefile layer is made of (any case, any folder): the rest of an archive is not extracted. */
const SHAPEFILE_PARTS = new Set(['shp', 'shx', 'dbf', 'prj', 'cpg']);

export const isShapefilePart = (name: string) => SHAPEFILE_PARTS.has(extname(name).toLowerCase().slice(1));

async function findLayers(files: string[], root: string): Promise<Layer[]> {
  const byBase = new Map<string, Layer>();
  for (const f of files) {
    const ext = extname(f).toLowerCase().slice(1);
    if (!['shp', 'dbf', 'prj', 'cpg'].includes(ext) || basename(f).startsWith('._')) continue;
    const key = join(dirname(f), basename(f, extname(f))).toLowerCase();
    const layer = byBase.get(key) ?? ({ name: relative(root, join(dirname(f), basename(f, extname(f)))) } as Layer);
    (layer as unknown as Record<string, string>)[ext] = f;
    byBase.set(key, layer);
  }
  const layers = [...byBase.values()];
  for (const l of layers) {
    if (!l.shp) throw unprocessable('shp_missing_part', { file: quotedName(`${l.name}.shp`) });
    if (!l.dbf) throw unprocessable('shp_missing_part', { file: quotedName(`${l.name}.dbf`) });
  }
  if (!layers.length) throw unprocessable('shp_no_layers');
  return layers;
}

const plausibleLonLat = (p: number[]) => Math.abs(p[0]!) <= 180 && Math.abs(p[1]!) <= 90;

function* positions(g: Polygon | MultiPolygon): Generator<Position> {
  for (const poly of g.type === 'Polygon' ? [g.coordinates] : g.coordinates) for (const ring of poly) yield* ring;
}

/** proj4 throws on a NaN or infinite coordinate, which a damaged or badly written .shp can hold. */
function allFinite(g: Polygon | MultiPolygon): boolean {
  for (const p of positions(g)) if (!Number.isFinite(p[0]) || !Number.isFinite(p[1])) return false;
  return true;
}

const polygonShape = (g: RecordShape) => (g && (g.type === 'Polygon' || g.type === 'MultiPolygon') && g.coordinates.length > 0 ? g : undefined);

/**
 * A DBF date is a day, which the library turns into local midnight: written back as that day
 * (`2024-05-13`), not as an instant that a server in Moscow would store as the day before in UTC.
 */
const dayText = (d: Date) => (Number.isNaN(d.getTime()) ? null : `${String(d.getFullYear()).padStart(4, '0')}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`);

const attributeValue = (v: unknown) => (typeof v === 'string' ? textValue(v) : v instanceof Date ? dayText(v) : v);

const textValue = (v: unknown) => (v === null || v === undefined ? null : String(v).replace(/\u0000/g, '').trim() || null);

/** A layer being read: where its records go, and what its first records settled. */
interface LayerReading {
  layer: Layer;
  opts: ReadOptions;
  out: ShapefileImport;
  emit: (f: ImportFeature) => void;
  /** From the .prj, else settled on the layer's first shape. */
  crs: Crs | undefined;
  /** To WGS84, settled on the layer's first shape. */
  convert: ((xy: number[]) => [number, number]) | undefined;
  /** Picked on the first record read. */
  columns: Columns | undefined;
}

type Columns = ReturnType<typeof pickColumns>;

/** A polygon record over the bounds of a boundary, known by its counts alone: none of its points was read. */
interface OverBounds {
  type: 'OverBounds';
  rings: number;
  vertices: number;
}

type RecordShape = Polygon | MultiPolygon | OverBounds | null;

type ShapeRecord = Omit<Feature, 'geometry'> & { geometry: RecordShape };

/** One record of a layer: its place in the layer and in the archive, and what the files hold. */
interface LayerRecord {
  index: number;
  seq: number;
  value: ShapeRecord;
}

type LayerFacts = Awaited<ReturnType<typeof readDbfFacts>> & { crs: Crs | undefined; shapeType: number };

/** What a layer's files say before its records are read: the .shp checked, the .dbf's facts, the .prj's system. */
async function readLayerFacts(layer: Layer): Promise<LayerFacts> {
  const header = parseShpHeader(await readHead(layer.shp, SHP_HEADER_BYTES));
  if (!header) throw unprocessable('shp_corrupt', { file: quotedName(basename(layer.shp)) });
  if (!SHAPE_POLYGON.has(header.shapeType)) throw unprocessable('shp_not_polygons', { layer: quotedName(layer.name), type: header.shapeType });
  const facts = await readDbfFacts(layer.dbf!, layer.cpg);
  // One byte more than a .prj may hold, so that a longer one is refused as unreadable.
  const crs = layer.prj ? crsFromPrjFile(await readHead(layer.prj, MAX_PRJ_BYTES + 1), quotedName(basename(layer.prj))) : undefined;
  return { ...facts, crs, shapeType: header.shapeType };
}

type DbfRows = Awaited<ReturnType<typeof shapefile.openDbf>>;

/** A layer's files opened: its .shp's records and its .dbf's rows, read in step. */
interface LayerSources {
  records: AsyncGenerator<ShpRecord | null, void>;
  rows: DbfRows;
}

/**
 * The next record with its row, or undefined after the last record. Paired as the library's `open`
 * paired them: the i-th of each, the attributes undefined where the table has ended (or a row begins
 * with its end-of-file byte). A record cut short, or a row that cannot be read, is a damaged .shp.
 */
async function nextRecord({ records, rows }: LayerSources, layer: Layer): Promise<ShapeRecord | undefined> {
  try {
    const [row, record] = await Promise.all([rows.read(), records.next()]);
    return record.done ? undefined : { type: 'Feature', properties: row.value, geometry: recordShape(record.value) };
  } catch {
    throw unprocessable('shp_corrupt', { file: quotedName(basename(layer.shp)) });
  }
}

/** Settles the layer's coordinate system, and the conversion to WGS84, on its first shape. */
function settleCrs(reading: LayerReading, geometry: Polygon | MultiPolygon): void {
  const first = positions(geometry).next().value!;
  let crs = reading.crs;
  if (!crs) {
    // Without a .prj only coordinates that can only be lon/lat are accepted.
    if (![...positions(geometry)].every(plausibleLonLat)) throw unprocessable('shp_missing_prj', { layer: quotedName(reading.layer.name) });
    crs = { name: 'WGS 84 (no .prj)', proj4: '+proj=longlat +datum=WGS84 +no_defs', epsg: 4326 };
  }
  reading.crs = crsForLocation(crs, first);
  reading.convert = toWgs84(reading.crs);
}

/** A shape in WGS84 as a field, crossings repaired only when that keeps its area; else the error it is skipped for. */
function fieldGeometry(geometry: Polygon | MultiPolygon, convert: (xy: number[]) => [number, number]): FieldGeometry | AppError {
  let wgs = reproject(geometry, convert);
  try {
    // Bounded before its rings are compared with one another.
    checkComplexity(wgs);
    // Holes by how the rings nest, not by their winding, which some tools write the other way round.
    if (hasSeveralRings(wgs)) wgs = nestRings(wgs.type === 'Polygon' ? wgs.coordinates : wgs.coordinates.flat());
    wgs = validateFieldGeometry(wgs);
    const split = splitSelfTouchingRings(wgs);
    if (split) wgs = keepsArea(wgs, validateFieldGeometry(split));
    return wgs;
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    const repaired = err.key === 'geometry_self_intersection' ? repairGeometry(wgs) : undefined;
    return repaired ?? err;
  }
}

function importFeature(layer: Layer, record: LayerRecord, geometry: FieldGeometry, columns: Columns, props: Record<string, unknown>): ImportFeature {
  return {
    layer: layer.name,
    index: record.index,
    seq: record.seq,
    geometry,
    name: columns.name ? textValue(props[columns.name]) : null,
    owner: columns.owner ? textValue(props[columns.owner]) : null,
    status: columns.status ? textValue(props[columns.status])?.slice(0, 64) ?? null : null,
    parcel_number: columns.parcel_number ? textValue(props[columns.parcel_number]) : null,
    identifier: columns.identifier ? textValue(props[columns.identifier]) : null,
    attributes: props,
  };
}

/** One record that is not deleted: emitted as a feature, or skipped saying why (records outside the share are neither). */
function readRecord(reading: LayerReading, record: LayerRecord): void {
  const { layer, opts, out } = reading;
  const columns = (reading.columns ??= pickColumns(Object.keys(record.value.properties ?? {}), opts.mapping));
  const raw = record.value.geometry;
  const shape = polygonShape(raw);
  const geometry = shape && allFinite(shape) ? shape : undefined;
  // Every reader settles the coordinate system on the layer's first shape, whichever records it reads.
  if (geometry && !reading.convert) settleCrs(reading, geometry);
  if (opts.share && !isInShare(record.seq, opts.share)) return;
  const props = Object.fromEntries(Object.entries(record.value.properties ?? {}).map(([k, v]) => [k, attributeValue(v)]));
  const label = `${quotedName(layer.name)} #${record.index + 1}${columns.name && props[columns.name] ? ` (${props[columns.name]})` : ''}`;
  const skip = (key: string, params: SkippedFeature['params']) => void out.skipped.push({ seq: record.seq, feature: label, key, params });
  if (raw?.type === 'OverBounds') {
    return raw.rings > MAX_RINGS ? skip('geometry_too_many_rings', { count: raw.rings, max: MAX_RINGS }) : skip('geometry_too_many_vertices', { count: raw.vertices, max: MAX_VERTICES });
  }
  if (shape && !geometry) return skip('shp_not_finite', {});
  if (!geometry || !reading.convert) return skip('shp_empty_shape', {});
  const wgs = fieldGeometry(geometry, reading.convert);
  if (wgs instanceof AppError) return skip(wgs.key, wgs.params);
  if (!reading.crs) throw new Error('unreachable: a layer without a coordinate system');
  reading.emit(importFeature(layer, record, wgs, columns, props));
}

async function readLayer(
  layer: Layer,
  firstSeq: number,
  opts: ReadOptions,
  out: ShapefileImport,
  emit: (f: ImportFeature) => void,
): Promise<{ crs: string; encoding: string; records: number }> {
  const facts = await readLayerFacts(layer);
  const reading: LayerReading = { layer, opts, out, emit, crs: facts.crs, convert: undefined, columns: undefined };
  const shp = await open(layer.shp);
  // A stream, not a path: given a path, the library appends `.dbf` to a name not ending in it in
  // lower case, so `PARCELS.DBF` (as many Windows tools write it) was looked for as `PARCELS.DBF.dbf`.
  const dbf = createReadStream(layer.dbf!);
  let rows: DbfRows | undefined;
  try {
    rows = await shapefile.openDbf(dbf, { encoding: facts.encoding });
    const records = await readRecords(reading, { records: shpRecords(shp, facts.shapeType, POLYGON_READ_BYTES), rows }, firstSeq, facts);
    const settled = reading.crs;
    return { crs: settled?.epsg ? `EPSG:${settled.epsg}` : (settled?.name ?? 'unknown'), encoding: facts.encoding, records };
  } finally {
    // Closing is not what the caller hears about: the reading's own error (or answer) stands.
    dbf.destroy();
    await Promise.allSettled([shp.close(), rows?.cancel()]);
  }
}

/** Every record of a layer, each with its row; returns how many records the .shp holds. */
async function readRecords(reading: LayerReading, sources: LayerSources, firstSeq: number, { recordCount, deleted }: LayerFacts): Promise<number> {
  const { layer } = reading;
  const turn = turnTaker();
  let index = -1;
  for (;;) {
    const value = await nextRecord(sources, layer);
    if (!value) break;
    index++;
    // A record past the table's end comes without attributes: the table's count must match.
    if (index >= recordCount) throw unprocessable('shp_corrupt', { file: quotedName(basename(layer.dbf!)) });
    if (!deleted.has(index)) readRecord(reading, { index, seq: firstSeq + index, value });
    await turn();
  }
  // The .shp ends quietly at a record that claims more bytes than the file holds: the attribute table
  // says how many records there are, and any missing one makes the layer damaged, not shorter.
  if (index + 1 < recordCount) throw unprocessable('shp_corrupt', { file: quotedName(basename(layer.shp)) });
  return index + 1;
}

/**
 * Every feature of every layer among an extracted archive's files (under root), reprojected and
 * checked; with a share, only that share's features and skipped records.
 */
export async function readShapefileFiles(files: string[], root: string, opts: ReadOptions = {}): Promise<ShapefileImport> {
  const layers = await findLayers(files, root);
  const out: ShapefileImport = { crs: '', encoding: '', features: [], skipped: [] };
  const crsList = new Set<string>();
  const encodings = new Set<string>();
  let seq = 0;
  for (const layer of layers) {
    const { crs, encoding, records } = await readLayer(layer, seq, opts, out, opts.onFeature ?? ((f) => out.features.push(f)));
    seq += records;
    crsList.add(crs);
    encodings.add(encoding);
  }
  out.crs = [...crsList].join(', ');
  out.encoding = [...encodings].join(', ');
  return out;
}
