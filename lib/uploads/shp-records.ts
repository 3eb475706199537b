// The records of a .shp in file order, read from a file handle a window at a time: a .shp can be
// hundreds of MB. It stands in for the `shapefile` library's reader (0.6.6, unmaintained since 2019)
// and keeps what that reader made of a damaged file, which the import's refusals are built on: a
// header it cannot take is looked for again four bytes on, a record running past the end of the file
// is what the file holds of it, and a record cut inside its header is damage.
import type { FileHandle } from 'node:fs/promises';

/** Bytes of the main header, before the first record. */
export const SHP_HEADER_BYTES = 100;
const FILE_CODE = 9994;
/** A record's number and content length (big-endian 32-bit), then its shape type (little-endian). */
const RECORD_HEAD_BYTES = 12;
/** The library read content through Node's streams, which refuse a read of more than 1 GiB. */
const MAX_CONTENT_BYTES = 2 ** 30;
/**
 * Read ahead at once: one read of the file for many small records. As much as Node's file streams
 * read, and no more: looking four bytes on at a time through a whole window holds the event loop.
 */
const WINDOW_BYTES = 64 * 1024;

export interface ShpHeader {
  /** 0 null, 1 point, 3 polyline, 5 polygon, 8 multipoint; plus 10 with Z, plus 20 with M. */
  shapeType: number;
  /** West, south, east, north. */
  bbox: [number, number, number, number];
}

/** A record that holds a shape of the file's type. */
export interface ShpRecord {
  /** Its content from the shape type on, at most as many bytes as the reader was asked to read. */
  content: DataView;
  /** The content's length as the file holds it (less than the header claims when the file ends first). */
  bytes: number;
}

/** The main header, or undefined when the bytes are not a .shp's (too short, another file code). */
export function parseShpHeader(bytes: Uint8Array): ShpHeader | undefined {
  if (bytes.length < SHP_HEADER_BYTES) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, SHP_HEADER_BYTES);
  if (view.getInt32(0) !== FILE_CODE) return undefined;
  const box = [36, 44, 52, 60].map((at) => view.getFloat64(at, true));
  return { shapeType: view.getInt32(32, true), bbox: box as ShpHeader['bbox'] };
}

/** Up to `length` bytes of the file from `position` (fewer at its end). */
type BytesAt = (position: number, length: number) => Promise<Buffer>;

async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await file.read(buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

/** Bytes served from a window read ahead; a request past the window reads a new one from where it starts. */
function windowedReader(file: FileHandle, size: number): BytesAt {
  let window: Buffer = Buffer.alloc(0);
  let start = 0;
  return async (position, length) => {
    const end = Math.min(position + length, size);
    if (position >= end) return Buffer.alloc(0);
    if (position < start || end > start + window.length) {
      window = await readAt(file, position, Math.min(Math.max(length, WINDOW_BYTES), size - position));
      start = position;
    }
    return window.subarray(position - start, end - start);
  };
}

interface RecordHead {
  /** Content bytes after the shape type, as the header claims them. */
  length: number;
  type: number;
  /** Where the head ends in the file. */
  end: number;
}

/**
 * The head of record `number` from `position`, or undefined at the end of the file. As the library
 * read it: a head with a negative length or a shape type neither null nor the file's is looked for
 * again four bytes on, until one begins with the record number expected; a head cut short is damage.
 */
async function recordHead(bytesAt: BytesAt, position: number, number: number, shapeType: number): Promise<RecordHead | undefined> {
  let head = await bytesAt(position, RECORD_HEAD_BYTES);
  if (head.length === 0) return undefined;
  for (;;) {
    if (head.length < RECORD_HEAD_BYTES) throw new RangeError('a .shp record header cut short');
    const length = head.readInt32BE(4) * 2 - 4;
    const type = head.readInt32LE(8);
    if (length >= 0 && (type === 0 || type === shapeType)) return { length, type, end: position + RECORD_HEAD_BYTES };
    do {
      position += 4;
      head = await bytesAt(position, RECORD_HEAD_BYTES);
      // The library's look-ahead ended where not even the next four bytes were left.
      if (head.length <= RECORD_HEAD_BYTES - 4) return undefined;
    } while (head.readInt32BE(0) !== number);
  }
}

/**
 * The records after the main header, one after another (a .shx is not consulted): null for a null
 * shape, else the record's content, of which at most `maxRead` bytes are read. A content claimed
 * longer than 1 GiB, or a header cut short, is thrown as a RangeError.
 */
export async function* shpRecords(file: FileHandle, shapeType: number, maxRead: number): AsyncGenerator<ShpRecord | null, void> {
  const size = (await file.stat()).size;
  const bytesAt = windowedReader(file, size);
  let position = SHP_HEADER_BYTES;
  for (let number = 1; ; number++) {
    const head = await recordHead(bytesAt, position, number, shapeType);
    if (!head) return;
    if (head.length > MAX_CONTENT_BYTES) throw new RangeError(`a .shp record claiming ${head.length} bytes`);
    const held = Math.min(head.length, size - head.end);
    position = head.end + held;
    if (head.type === 0) {
      yield null;
      continue;
    }
    // From the shape type, the head's last four bytes.
    const content = await bytesAt(head.end - 4, Math.min(4 + held, maxRead));
    yield { content: new DataView(content.buffer, content.byteOffset, content.length), bytes: 4 + held };
  }
}
