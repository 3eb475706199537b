// The reading half of a shapefile import, run in a worker thread (lib/tasks/run-in-thread.ts) so the
// web server's event loop stays free: every feature becomes the row it will be, written as one line
// of a staging file, so neither thread holds 100,000 parcels in memory.
// A line is `meta<TAB>geometry<TAB>attributes`, three JSON texts (JSON text never holds a raw tab).
import { closeSync, openSync, writeSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { geometryAreaHa } from '../geo/area';
import { type BBox, boundingBox } from '../geo/geometry';
import { type ColumnMapping, type ImportFeature, type SkippedFeature, readShapefileZip } from '../uploads/shapefile-layers';
import { roundArea } from './fields';
import { PARCEL_NUMBER } from './schemas';

/** What a field row holds besides its geometry and attributes. */
export interface FieldRowMeta extends BBox {
  name: string;
  owner: string | null;
  status: string | null;
  parcelNumber: string | null;
  area: number;
}

/**
 * The row a feature becomes. A parcel number that is not in the spec's colon-separated numeric
 * form stays only among the attributes; a feature without a name column is named by its parcel
 * number, else its register code, else its layer and position.
 */
export function fieldRowMeta(f: ImportFeature): FieldRowMeta {
  const parcelNumber = f.parcel_number?.replace(/\s+/g, '') ?? null;
  const layerName = f.layer.split(/[\\/]/).at(-1) ?? f.layer;
  return {
    name: (f.name ?? f.parcel_number ?? f.identifier ?? `${layerName} ${f.index + 1}`).slice(0, 255),
    owner: f.owner?.slice(0, 255) ?? null,
    status: f.status,
    parcelNumber: parcelNumber && PARCEL_NUMBER.test(parcelNumber) && parcelNumber.length <= 64 ? parcelNumber : null,
    area: roundArea(geometryAreaHa(f.geometry)),
    ...boundingBox(f.geometry),
  };
}

const stagedRowLine = (meta: FieldRowMeta, f: ImportFeature) => `${JSON.stringify(meta)}\t${JSON.stringify(f.geometry)}\t${JSON.stringify(f.attributes)}\n`;

export function parseStagedRow(line: string): { meta: FieldRowMeta; geometry: string; attributes: string } {
  const [meta, geometry, attributes] = line.split('\t');
  return { meta: JSON.parse(meta!) as FieldRowMeta, geometry: geometry!, attributes: attributes! };
}

export interface StagedRows {
  rowsFile: string;
  count: number;
  /** Box around every row, or null when there is none. */
  bbox: BBox | null;
  owners: string[];
  skipped: SkippedFeature[];
  crs: string;
  encoding: string;
}

export interface StageRowsPayload {
  zipPath: string;
  workDir: string;
  mapping?: ColumnMapping;
}

export async function stageShapefileRows(p: StageRowsPayload): Promise<StagedRows> {
  const rowsFile = join(p.workDir, 'rows.tsv');
  const filesDir = join(p.workDir, 'files');
  const fd = openSync(rowsFile, 'w');
  let buffer = '';
  let count = 0;
  let bbox: BBox | null = null;
  const owners = new Set<string>();
  try {
    const read = await readShapefileZip(p.zipPath, {
      workDir: filesDir,
      mapping: p.mapping,
      onFeature: (f) => {
        const meta = fieldRowMeta(f);
        buffer += stagedRowLine(meta, f);
        if (buffer.length > 1 << 20) {
          writeSync(fd, buffer);
          buffer = '';
        }
        count++;
        if (meta.owner) owners.add(meta.owner);
        bbox = bbox
          ? { minLon: Math.min(bbox.minLon, meta.minLon), minLat: Math.min(bbox.minLat, meta.minLat), maxLon: Math.max(bbox.maxLon, meta.maxLon), maxLat: Math.max(bbox.maxLat, meta.maxLat) }
          : { minLon: meta.minLon, minLat: meta.minLat, maxLon: meta.maxLon, maxLat: meta.maxLat };
      },
    });
    writeSync(fd, buffer);
    return { rowsFile, count, bbox, owners: [...owners], skipped: read.skipped, crs: read.crs, encoding: read.encoding };
  } finally {
    closeSync(fd);
    await rm(filesDir, { recursive: true, force: true });
  }
}
