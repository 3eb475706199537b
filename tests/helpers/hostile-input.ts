// Crafted inputs that once took the web process down or held it (issue 36): TIFFs whose directory
// chain loops or runs long, whose tags declare counts and offsets far past the file, of zero or huge
// size, unknown compression or sample format, cut-off strips; and JSON bodies deep, huge or with
// `__proto__` keys. Each is generated here, small, from a valid file or body.
import { gradientIndexTiff } from './tiff';

export interface CraftedTiff {
  name: string;
  bytes: Buffer;
  /** The English message the upload answers (422 unless said). */
  error: RegExp;
  status?: number;
}

const UNREADABLE = /^The GeoTIFF cannot be read: /;

/** A valid little-endian GeoTIFF (first directory at 8) to be changed byte by byte. */
export const validTiff = (): Buffer => gradientIndexTiff().bytes;

const ENTRY = 12;
const entryCount = (b: Buffer, ifd = 8) => b.readUInt16LE(ifd);
const nextOffsetAt = (b: Buffer, ifd = 8) => ifd + 2 + entryCount(b, ifd) * ENTRY;

/** The byte offset of tag's entry in the first directory. */
export function entryOf(b: Buffer, tag: number): number {
  for (let i = 0; i < entryCount(b); i++) if (b.readUInt16LE(10 + i * ENTRY) === tag) return 10 + i * ENTRY;
  throw new Error(`no tag ${tag}`);
}

/** A copy with one entry's type, count or inline value replaced. */
function patched(tag: number, change: { type?: number; count?: number; value?: number }, base = validTiff()): Buffer {
  const b = Buffer.from(base);
  const at = entryOf(b, tag);
  if (change.type !== undefined) b.writeUInt16LE(change.type, at + 2);
  if (change.count !== undefined) b.writeUInt32LE(change.count, at + 4);
  if (change.value !== undefined) {
    if (b.readUInt16LE(at + 2) === 3) b.writeUInt16LE(change.value, at + 8);
    else b.writeUInt32LE(change.value, at + 8);
  }
  return b;
}

/** The first directory copied `copies` times after the file, chained in order; `last` is the final next-offset (0 ends, 8 loops back). */
function chained(copies: number, last: number): Buffer {
  const base = validTiff();
  const ifd = base.subarray(8, nextOffsetAt(base) + 4);
  const parts: Buffer[] = [base];
  let at = base.length + (base.length % 2);
  if (at !== base.length) parts.push(Buffer.alloc(1));
  base.writeUInt32LE(at, nextOffsetAt(base));
  for (let i = 0; i < copies; i++) {
    const copy = Buffer.from(ifd);
    at += copy.length;
    copy.writeUInt32LE(i === copies - 1 ? last : at, copy.length - 4);
    parts.push(copy);
  }
  return Buffer.concat(parts);
}

/** A BigTIFF whose one directory names itself as the next. */
function bigTiffLoop(): Buffer {
  const b = Buffer.alloc(16 + 8 + 20 + 8);
  b.write('II', 0, 'latin1');
  b.writeUInt16LE(43, 2);
  b.writeUInt16LE(8, 4);
  b.writeBigUInt64LE(16n, 8);
  b.writeBigUInt64LE(1n, 16);
  b.writeUInt16LE(256, 24); // ImageWidth, SHORT, 1
  b.writeUInt16LE(3, 26);
  b.writeBigUInt64LE(1n, 28);
  b.writeUInt16LE(1, 36);
  b.writeBigUInt64LE(16n, 44);
  return b;
}

/**
 * A tiled 100,000 x 100,000 GeoTIFF whose tiles are all sparse (offset and size 0, as GDAL writes
 * empty tiles): 152,881 tiles declared in about 1.2 MB.
 */
export function sparseHugeTiff(): Buffer {
  const side = 100_000;
  const tile = 256;
  const tiles = Math.ceil(side / tile) ** 2;
  type Entry = [tag: number, type: number, values: number[], count?: number];
  const entries: Entry[] = [
    [256, 4, [side]], [257, 4, [side]], [258, 3, [8]], [259, 3, [1]], [262, 3, [1]], [277, 3, [1]],
    [322, 3, [tile]], [323, 3, [tile]], [324, 4, [], tiles], [325, 4, [], tiles], [339, 3, [1]],
    [33550, 12, [10, 10, 0]], [33922, 12, [0, 0, 0, 720000, 4303000, 0]],
    [34735, 3, [1, 1, 0, 3, 1024, 0, 1, 1, 1025, 0, 1, 1, 3072, 0, 1, 32615]],
  ];
  const ifdSize = 2 + entries.length * ENTRY + 4;
  const head = Buffer.alloc(8 + ifdSize);
  head.write('II', 0, 'latin1');
  head.writeUInt16LE(42, 2);
  head.writeUInt32LE(8, 4);
  head.writeUInt16LE(entries.length, 8);
  const blobs: Buffer[] = [];
  let extra = head.length;
  entries.forEach(([tag, type, values, count], i) => {
    const at = 10 + i * ENTRY;
    const size = ({ 3: 2, 4: 4, 12: 8 } as Record<number, number>)[type]!;
    const n = count ?? values.length;
    head.writeUInt16LE(tag, at);
    head.writeUInt16LE(type, at + 2);
    head.writeUInt32LE(n, at + 4);
    const data = Buffer.alloc(n * size);
    values.forEach((v, k) => (type === 3 ? data.writeUInt16LE(v, k * 2) : type === 4 ? data.writeUInt32LE(v, k * 4) : data.writeDoubleLE(v, k * 8)));
    if (data.length <= 4) data.copy(head, at + 8);
    else {
      head.writeUInt32LE(extra, at + 8);
      blobs.push(data);
      extra += data.length;
    }
  });
  return Buffer.concat([head, ...blobs]);
}

/** Every crafted TIFF, with what its upload answers. */
export function craftedTiffs(): CraftedTiff[] {
  const valid = validTiff();
  const selfLoop = Buffer.from(valid);
  selfLoop.writeUInt32LE(8, nextOffsetAt(selfLoop));
  const firstPastEnd = Buffer.from(valid);
  firstPastEnd.writeUInt32LE(0x7ffffff0, 4);
  const manyTags = Buffer.from(valid);
  manyTags.writeUInt16LE(60_000, 8);
  const pixels = valid.length - gradientPixelBytes;
  return [
    { name: 'directory naming itself as the next', bytes: selfLoop, error: /point back to each other in a loop/ },
    { name: 'two directories naming each other', bytes: chained(1, 8), error: /point back to each other in a loop/ },
    { name: 'chain of 1,000 directories', bytes: chained(1000, 0), error: /chains more than 64 images/ },
    { name: 'BigTIFF directory naming itself', bytes: bigTiffLoop(), error: /point back to each other in a loop/ },
    { name: 'first directory past the end', bytes: firstPastEnd, error: /image directory lies beyond the end of the file/ },
    { name: 'directory declaring 60,000 tags', bytes: manyTags, error: /declares 60000 tags/ },
    { name: 'GeoKeyDirectory count 0x3fffffff', bytes: patched(34735, { count: 0x3fffffff }), error: /tag 34735 declares \d+ bytes that run past the end/ },
    { name: 'tie point count 0x3fffffff', bytes: patched(33922, { count: 0x3fffffff }), error: /tag 33922 declares/ },
    { name: 'tag of unknown type 99', bytes: patched(33550, { type: 99 }), error: /tag 33550 has an unknown value type \(99\)/ },
    { name: 'strip offset past the end', bytes: patched(273, { value: 0xfffffff0 }), error: /truncated/ },
    { name: 'strip byte count of 4 GB', bytes: patched(279, { value: 0xffffffff }), error: /truncated/ },
    { name: 'strips cut off halfway', bytes: valid.subarray(0, pixels + gradientPixelBytes / 2), error: /truncated/ },
    { name: 'RowsPerStrip 0', bytes: patched(278, { value: 0 }), error: /RowsPerStrip is 0/ },
    { name: 'width 0', bytes: patched(256, { value: 0 }), error: UNREADABLE },
    { name: 'height 0', bytes: patched(257, { value: 0 }), error: UNREADABLE },
    { name: 'width 4,000,000,000', bytes: patched(256, { value: 4_000_000_000 }), error: /Implausible raster size/ },
    { name: '100,000 x 100,000 sparse tiles', bytes: sparseHugeTiff(), error: /Implausible raster size: 100000 × 100000/ },
    { name: 'unknown compression 12345', bytes: patched(259, { value: 12345 }), error: /compression \(code 12345\) is not supported/ },
    { name: 'sample format 9', bytes: patched(339, { value: 9 }), error: /Unsupported pixel value format/ },
  ];
}

/** Float32 pixels of gradientIndexTiff (60 x 40), the tail of its file. */
const gradientPixelBytes = 60 * 40 * 4;

export interface CraftedJson {
  name: string;
  method: 'POST' | 'PUT';
  path: string;
  body: string;
  /** The answer: 400, 401, 413 or 422. */
  status: number;
  /** Whether the request needs the session (else it goes without one). */
  signedIn: boolean;
  /**
   * Refused on its declared length alone: only its first bytes are sent. Sent whole, the client may
   * still be writing when the 413 closes the connection, and fails with EPIPE before it reads the answer.
   */
  refusedOnLength?: true;
}

const ring = (n: number) => {
  const points = Array.from({ length: n }, (_, i) => {
    const a = (2 * Math.PI * i) / n;
    return [30 + 0.01 * Math.cos(a), 50 + 0.01 * Math.sin(a)];
  });
  return [...points, points[0]];
};

/** Bodies deep, huge or with prototype keys, each well inside the 16 MB limit unless it is the one past it. */
export function craftedJson(): CraftedJson[] {
  const login = (body: string, status: number, name: string): CraftedJson => ({ name, method: 'POST', path: '/api/auth/login', body, status, signedIn: false });
  const deep = '['.repeat(200_000) + ']'.repeat(200_000);
  return [
    login(deep, 422, 'login: arrays nested 200,000 deep'),
    login(`[${'0,'.repeat(1_000_000)}0]`, 422, 'login: an array of 1,000,000 numbers'),
    login(JSON.stringify({ email: 'a@example.test', password: 'p', list: Array(300_000).fill('x') }), 401, 'login: 300,000 strings beside the fields (they overflowed the stack: a 500)'),
    login(JSON.stringify({ email: 'a'.repeat(15_000_000), password: 'p' }), 422, 'login: a 15 MB e-mail'),
    { ...login(`{"email":"a@example.test","password":"${'x'.repeat(17 * 1024 * 1024)}"}`, 413, 'login: a 17 MB body'), refusedOnLength: true },
    login('{"__proto__":{"admin":true},"email":"nobody@example.test","password":"whatever-1"}', 401, 'login: a __proto__ key'),
    { name: 'a ring of 200,000 vertices', method: 'POST', path: '/api/fields', body: JSON.stringify({ name: 'Ring', geometry: { type: 'Polygon', coordinates: [ring(200_000)] } }), status: 422, signedIn: true },
    { name: 'a field nested 200,000 deep', method: 'POST', path: '/api/fields', body: JSON.stringify({ name: 'Deep' }).replace('}', `,"geometry":${deep}}`), status: 422, signedIn: true },
    { name: 'a whole-world rectangle', method: 'POST', path: '/api/fields', body: JSON.stringify({ name: 'World', geometry: { type: 'Polygon', coordinates: [[[-180, -90], [180, -90], [180, 90], [-180, 90], [-180, -90]]] } }), status: 422, signedIn: true },
    { name: 'zone_rates with a __proto__ key', method: 'PUT', path: '/api/auth/company', body: '{"settings":{"zone_rates":{"__proto__":5,"1":100}}}', status: 422, signedIn: true },
    { name: 'a profile with a constructor key', method: 'PUT', path: '/api/auth/profile', body: '{"constructor":{"prototype":{"admin":true}},"first_name":"A"}', status: 422, signedIn: true },
  ];
}
