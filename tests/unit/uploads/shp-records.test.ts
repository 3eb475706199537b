// The .shp record reader (lib/uploads/shp-records.ts) on small files written in the test: records in
// file order, null shapes, and what the `shapefile` library made of damaged record headers, which it
// keeps (a header looked for again four bytes on, a record past the end of the file taken as far as
// it goes, a header cut short or a content over 1 GiB refused).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { polygonRecord, readShapefileFiles } from '@/lib/uploads/shapefile-layers';
import { type ShpRecord, parseShpHeader, shpRecords } from '@/lib/uploads/shp-records';
import { type Ring, polygonLayer, squareRing } from './shp-writer';

const names = ['A', 'B', 'C'];
const layer = () => polygonLayer(names.map((name, i) => ({ rings: [squareRing(17 + i * 0.01, 48, 0.001)], name })));
const squareOf = (i: number) => ({ type: 'Polygon', coordinates: [squareRing(17 + i * 0.01, 48, 0.001)] });

/** Where each record of a .shp begins (its 8-byte header). */
function recordStarts(shp: Buffer): number[] {
  const out: number[] = [];
  for (let at = 100; at + 8 <= shp.length; at += 8 + 2 * shp.readInt32BE(at + 4)) out.push(at);
  return out;
}

/** The three-record .shp, changed by `edit`. */
function editedShp(edit: (shp: Buffer, starts: number[]) => Buffer = (b) => b): Buffer {
  const shp = Buffer.from(layer()['fields.shp']!);
  return edit(shp, recordStarts(shp));
}

async function records(shp: Buffer, maxRead = 1 << 20): Promise<(ShpRecord | null)[]> {
  const path = join(mkdtempSync(join(tmpdir(), 'shp-records-')), 'fields.shp');
  writeFileSync(path, shp);
  const file = await open(path);
  try {
    const out: (ShpRecord | null)[] = [];
    for await (const record of shpRecords(file, 5, maxRead)) out.push(record);
    return out;
  } finally {
    await file.close();
  }
}

const shapes = (list: (ShpRecord | null)[]) => list.map((r) => r && polygonRecord(r.content, r.bytes));

describe('the main header', () => {
  it('gives the shape type and the bounding box', () => {
    expect(parseShpHeader(editedShp())).toEqual({ shapeType: 5, bbox: [17, 48, 17.021, 48.001] });
  });

  it('is not a .shp when shorter than 100 bytes or of another file code', () => {
    expect(parseShpHeader(editedShp().subarray(0, 99))).toBeUndefined();
    expect(parseShpHeader(editedShp((b) => (b.writeInt32BE(9995, 0), b)))).toBeUndefined();
  });
});

describe('records in file order', () => {
  it('gives each polygon record from its shape type on, and its length', async () => {
    const list = await records(editedShp());
    expect(list.map((r) => [r!.content.getInt32(0, true), r!.bytes])).toEqual([[5, 44 + 4 + 16 * 5], [5, 128], [5, 128]]);
    expect(shapes(list)).toEqual([0, 1, 2].map(squareOf));
  });

  it('gives a null shape as null, and reads on after it', async () => {
    const shp = editedShp((b, starts) => {
      const nullRecord = Buffer.alloc(12);
      nullRecord.writeInt32BE(2, 0);
      nullRecord.writeInt32BE(2, 4); // content: the shape type alone
      return Buffer.concat([b.subarray(0, starts[1]), nullRecord, b.subarray(starts[2])]);
    });
    expect(shapes(await records(shp))).toEqual([squareOf(0), null, squareOf(2)]);
  });

  it('reads a record longer than its read-ahead window', async () => {
    const ring: Ring = Array.from({ length: 6000 }, (_, k) => [17 + 0.01 * Math.cos((2 * Math.PI * k) / 6000), 48 + 0.01 * Math.sin((2 * Math.PI * k) / 6000)]);
    const shp = polygonLayer([{ rings: [squareRing(17, 48, 0.001)] }, { rings: [[...ring, ring[0]!]] }, { rings: [squareRing(18, 48, 0.001)] }])['fields.shp']!;
    const list = shapes(await records(shp));
    expect(list[1]).toEqual({ type: 'Polygon', coordinates: [[...ring, ring[0]!]] });
    expect(list[2]).toEqual({ type: 'Polygon', coordinates: [squareRing(18, 48, 0.001)] });
  });

  it('reads no more of a record than asked, and tells its whole length', async () => {
    const [first] = await records(editedShp(), 50);
    expect(first!.content.byteLength).toBe(50);
    expect(first!.bytes).toBe(128);
  });
});

describe('damaged record headers, as the library read them', () => {
  it('ends at a header with no bytes after it; a header cut short is damage', async () => {
    expect(await records(editedShp((b) => b.subarray(0, 100)))).toEqual([]);
    await expect(records(editedShp((b) => Buffer.concat([b, Buffer.alloc(11)])))).rejects.toThrow(RangeError);
  });

  it('takes a record that claims more than the file holds as far as it goes, and ends there', async () => {
    const list = await records(editedShp((b, starts) => (b.writeInt32BE(0x20000000, starts[1]! + 4), b)));
    expect(list).toHaveLength(2);
    expect(list[1]!.bytes).toBe(128 + 8 + 128); // its own 128 bytes and the third record, whole
    expect(list[1]!.content.byteLength).toBeLessThanOrEqual(1 << 20);
    expect(shapes(list)).toEqual([squareOf(0), squareOf(1)]);
  });

  it('refuses a content claimed over 1 GiB, which the library could not read', async () => {
    await expect(records(editedShp((b, starts) => (b.writeInt32BE(0x20000003, starts[1]! + 4), b)))).rejects.toThrow(RangeError);
  });

  it('looks for a header again four bytes on, up to the record number expected', async () => {
    const inserted = (bytes: number) => editedShp((b, starts) => Buffer.concat([b.subarray(0, starts[1]), Buffer.alloc(bytes), b.subarray(starts[1])]));
    expect(shapes(await records(inserted(8)))).toEqual([0, 1, 2].map(squareOf));
    // Out of step with the four-byte look-ahead, the record's number is never met: the file ends there.
    expect(shapes(await records(inserted(6)))).toEqual([squareOf(0)]);
  });

  it('passes over a record of another shape type to the next one numbered as it was expected', async () => {
    const shp = editedShp((b, starts) => {
      b.writeInt32LE(3, starts[1]! + 8); // a polyline in a polygon file
      b.writeInt32BE(2, starts[2]!);
      return b;
    });
    expect(shapes(await records(shp))).toEqual([squareOf(0), squareOf(2)]);
  });
});

describe('records read in step with the attribute table', () => {
  it('pairs the i-th record with the i-th row; a row that begins with the end-of-file byte gives its record no attributes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shp-records-dbf-'));
    const files = Object.entries(layer()).map(([name, data]) => {
      const bytes = Buffer.from(data);
      if (name.endsWith('.dbf')) bytes[bytes.readUInt16LE(8) + bytes.readUInt16LE(10)] = 0x1a;
      writeFileSync(join(dir, name), bytes);
      return join(dir, name);
    });
    const { features } = await readShapefileFiles(files, dir);
    expect(features.map((f) => [f.index, f.name])).toEqual([[0, 'A'], [1, null], [2, 'C']]);
  });
});
