// The reading half of a shapefile import, run in worker threads (lib/tasks/run-in-thread.ts) so the
// web server's event loop stays free and a large archive is read on every core: each thread takes
// its share of the features (ReadShare) and turns each into the row it will be, written as one line
// of its own staging file, so no thread holds 100,000 parcels in memory. The insert reads the files
// back merged into the archive's order.
// A line is `seq<TAB>meta<TAB>geometry<TAB>attributes`: the record's position in the archive, then
// three JSON texts (JSON text never holds a raw tab).
import { closeSync, createReadStream, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { geometryAreaHa } from '../geo/area';
import { type BBox, boundingBox } from '../geo/geometry';
import { toSingleLine } from '../http/single-line';
import { type ColumnMapping, type ImportFeature, type ReadShare, type SkippedFeature, readShapefileFiles } from '../uploads/shapefile-layers';
import { roundArea } from './fields';
import { PARCEL_NUMBER } from './parcel-number';

/** What a field row holds besides its geometry and attributes. */
export interface FieldRowMeta extends BBox {
  name: string;
  owner: string | null;
  status: string | null;
  parcelNumber: string | null;
  area: number;
}

const oneLineOrNull = (text: string | null | undefined, max: number) => (text ? toSingleLine(text).slice(0, max) || null : null);

/**
 * The row a feature becomes. A parcel number that is not in the spec's colon-separated numeric
 * form stays only among the attributes; a feature without a name column is named by its parcel
 * number, else its register code, else its layer and position.
 */
export function fieldRowMeta(f: ImportFeature): FieldRowMeta {
  const parcelNumber = f.parcel_number?.replace(/\s+/g, '') ?? null;
  const layerName = f.layer.split(/[\\/]/).at(-1) ?? f.layer;
  return {
    // One line each, as the API takes them: a register's text may hold line breaks.
    name: toSingleLine(f.name ?? f.parcel_number ?? f.identifier ?? `${layerName} ${f.index + 1}`).slice(0, 255),
    owner: oneLineOrNull(f.owner, 255),
    status: oneLineOrNull(f.status, 64),
    parcelNumber: parcelNumber && PARCEL_NUMBER.test(parcelNumber) && parcelNumber.length <= 64 ? parcelNumber : null,
    area: roundArea(geometryAreaHa(f.geometry)),
    ...boundingBox(f.geometry),
  };
}

const stagedRowLine = (meta: FieldRowMeta, f: ImportFeature) => `${f.seq}\t${JSON.stringify(meta)}\t${JSON.stringify(f.geometry)}\t${JSON.stringify(f.attributes)}\n`;

export interface StagedRow {
  seq: number;
  meta: FieldRowMeta;
  geometry: string;
  attributes: string;
}

function parseStagedRow(line: string): StagedRow {
  const [seq, meta, geometry, attributes] = line.split('\t');
  return { seq: Number(seq), meta: JSON.parse(meta!) as FieldRowMeta, geometry: geometry!, attributes: attributes! };
}

async function nextRow(lines: AsyncIterator<string>): Promise<StagedRow | undefined> {
  for (let line = await lines.next(); !line.done; line = await lines.next()) if (line.value) return parseStagedRow(line.value);
  return undefined;
}

/** The rows of every share's staging file, merged back into the archive's order. */
export async function* stagedRows(rowsFiles: string[]): AsyncGenerator<StagedRow> {
  const readers = rowsFiles.map((f) => createInterface({ input: createReadStream(f), crlfDelay: Infinity })[Symbol.asyncIterator]());
  const heads = await Promise.all(readers.map(nextRow));
  for (;;) {
    let first = -1;
    heads.forEach((row, i) => {
      if (row && (first < 0 || row.seq < heads[first]!.seq)) first = i;
    });
    if (first < 0) return;
    yield heads[first]!;
    heads[first] = await nextRow(readers[first]!);
  }
}

export interface StagedRows {
  /** One staging file per share, each in the archive's order. */
  rowsFiles: string[];
  count: number;
  /** Box around every row, or null when there is none. */
  bbox: BBox | null;
  owners: string[];
  skipped: SkippedFeature[];
  crs: string;
  encoding: string;
}

export interface StageRowsPayload {
  /** The extracted archive's files, under filesDir. */
  files: string[];
  filesDir: string;
  /** Where the staging file is written. */
  workDir: string;
  mapping?: ColumnMapping;
  share: ReadShare;
}

const joinBoxes = (a: BBox | null, b: BBox | null): BBox | null =>
  a && b ? { minLon: Math.min(a.minLon, b.minLon), minLat: Math.min(a.minLat, b.minLat), maxLon: Math.max(a.maxLon, b.maxLon), maxLat: Math.max(a.maxLat, b.maxLat) } : (a ?? b);

/** Reads one share of the archive's features into a staging file of rows. */
export async function stageShapefileRows(p: StageRowsPayload): Promise<StagedRows> {
  const rowsFile = join(p.workDir, `rows-${p.share.part}.tsv`);
  const fd = openSync(rowsFile, 'w');
  let buffer = '';
  let count = 0;
  let bbox: BBox | null = null;
  const owners = new Set<string>();
  try {
    const read = await readShapefileFiles(p.files, p.filesDir, {
      mapping: p.mapping,
      share: p.share,
      onFeature: (f) => {
        const meta = fieldRowMeta(f);
        buffer += stagedRowLine(meta, f);
        if (buffer.length > 1 << 20) {
          writeSync(fd, buffer);
          buffer = '';
        }
        count++;
        if (meta.owner) owners.add(meta.owner);
        bbox = joinBoxes(bbox, meta);
      },
    });
    writeSync(fd, buffer);
    return { rowsFiles: [rowsFile], count, bbox, owners: [...owners], skipped: read.skipped, crs: read.crs, encoding: read.encoding };
  } finally {
    closeSync(fd);
  }
}

/** The shares' staged rows as one. */
export function joinStagedRows(shares: StagedRows[]): StagedRows {
  const [first] = shares;
  if (!first) throw new Error('joinStagedRows: no shares');
  return {
    rowsFiles: shares.flatMap((s) => s.rowsFiles),
    count: shares.reduce((n, s) => n + s.count, 0),
    bbox: shares.reduce<BBox | null>((box, s) => joinBoxes(box, s.bbox), null),
    owners: [...new Set(shares.flatMap((s) => s.owners))],
    skipped: shares.flatMap((s) => s.skipped).sort((a, b) => a.seq - b.seq),
    crs: first.crs,
    encoding: first.encoding,
  };
}
