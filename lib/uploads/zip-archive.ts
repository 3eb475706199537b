// Reading uploaded ZIP archives safely. Every entry is checked from the central directory before a
// byte is extracted: no absolute paths or `..`, no links, no encryption, at most 2,000 entries, at
// most 1 GB in total, and (zip bombs) no entry of more than 64 kB inflating more than 200 times, nor
// the archive as a whole once it unpacks to more than 16 MB. While extracting, an entry that produces
// more bytes than it declared is stopped (yauzl's size validation), and one whose bytes do not give the
// CRC-32 the archive records is damaged (yauzl checks no checksum). Two different files wanted under
// one path are refused: one would silently replace the other. Only stored and deflated entries
// are read: yauzl has no Deflate64 (Windows Explorer's choice over 2 GB), BZip2 or LZMA. A name no
// file system can hold (a NUL byte, a file or folder name over 255 bytes, a path over 1,024) is
// refused before anything is written; names are quoted in messages shortened and without control
// characters (quotedName).
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { dirname, join, normalize, posix, sep } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32 } from 'node:zlib';
import yauzl from 'yauzl';
import { insufficientStorage, isDiskFull, unprocessable } from '../errors';

export interface ZipLimits {
  maxEntries: number;
  maxTotalBytes: number;
  maxRatio: number;
}

export const DEFAULT_ZIP_LIMITS: ZipLimits = { maxEntries: 2000, maxTotalBytes: 1024 ** 3, maxRatio: 200 };

/**
 * Entries up to this size may inflate any number of times: a small .prj or an empty attribute table
 * compresses to a few bytes. Above it the ratio is checked; at 1 MB, a thousand 1 MB entries of zeros
 * (1 MB of upload) were written out as a gigabyte before the total limit stopped them.
 */
const RATIO_CHECKED_ABOVE_BYTES = 64 * 1024;
/**
 * An archive that unpacks to at most this much passes whatever its overall ratio; above it the
 * archive as a whole may not inflate more than maxRatio times, so that 2,000 entries just under
 * RATIO_CHECKED_ABOVE_BYTES (128 MB from a few hundred kB) are refused too. Real uploads are far below
 * the ratio: LPIS attribute tables inflate 30 to 55 times, shapes 1.5 to 3, photos not at all.
 */
const TOTAL_RATIO_CHECKED_ABOVE_BYTES = 16 * 1024 ** 2;

/** Compression methods yauzl can read: 0 stored, 8 deflated. */
const READABLE_METHODS = new Set([0, 8]);
/** The others an archiver may choose, named so that the user knows which setting to change. */
const METHOD_NAMES: Record<number, string> = { 9: 'Deflate64', 12: 'BZip2', 14: 'LZMA', 93: 'Zstandard', 95: 'XZ', 98: 'PPMd' };
const methodName = (m: number) => (METHOD_NAMES[m] ? `${METHOD_NAMES[m]} (${m})` : String(m));

const ratioOf = (uncompressed: number, compressed: number) => uncompressed / Math.max(1, compressed);

/** Longest name of one file or folder in an entry's path, in UTF-8 bytes: what Linux, macOS and Windows file systems hold. */
export const MAX_NAME_PART_BYTES = 255;
/** Longest whole entry name, in UTF-8 bytes: well under any system's path limit once under the upload folder. */
export const MAX_ENTRY_NAME_BYTES = 1024;
/** Characters of a name quoted in a message: the rest is cut from its middle, so its folder and extension stay. */
export const QUOTED_NAME_CHARS = 100;

// C0 and C1 controls, and the marks that turn text around (a name can make `gpj.exe` read `exe.jpg`).
const UNSAFE_CHARS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * A name from an archive as a message quotes it: each control character written as its code
 * (`\u0000`), and a name longer than QUOTED_NAME_CHARS cut in the middle with an ellipsis.
 */
export function quotedName(name: string, max = QUOTED_NAME_CHARS): string {
  const safe = [...name.replace(UNSAFE_CHARS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)];
  if (safe.length <= max) return safe.join('');
  const head = Math.ceil((max - 1) * 0.6);
  return `${safe.slice(0, head).join('')}…${safe.slice(safe.length - (max - 1 - head)).join('')}`;
}

export interface ZipEntryInfo {
  name: string;
  size: number;
  compressedSize: number;
  /** The CRC-32 the archive records for the entry's content. */
  crc32: number;
}

const openZip = (path: string) =>
  new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(path, { lazyEntries: true, autoClose: false, decodeStrings: true, validateEntrySizes: true, strictFileNames: false }, (err, zip) =>
      err ? reject(unprocessable('zip_not_zip')) : resolve(zip!),
    ),
  );

/** yauzl refuses unsafe names itself while reading the directory: those answer with the name. */
function entryError(err: Error) {
  const unsafe = /^(?:absolute path|invalid relative path|invalid characters in fileName): (.*)$/s.exec(err.message);
  return unsafe ? unprocessable('zip_unsafe_path', { name: quotedName(unsafe[1]!) }) : unprocessable('zip_not_zip');
}

function* entriesOf(zip: yauzl.ZipFile): Generator<Promise<yauzl.Entry | null>> {
  for (;;) {
    yield new Promise((resolve, reject) => {
      const onEntry = (e: yauzl.Entry) => {
        cleanup();
        resolve(e);
      };
      const onEnd = () => {
        cleanup();
        resolve(null);
      };
      const onError = (err: Error) => {
        cleanup();
        reject(entryError(err));
      };
      const cleanup = () => {
        zip.off('entry', onEntry);
        zip.off('end', onEnd);
        zip.off('error', onError);
      };
      zip.on('entry', onEntry);
      zip.on('end', onEnd);
      zip.on('error', onError);
      zip.readEntry();
    });
  }
}

/** The checks, entry by entry, from the central directory only. Throws 422 with the reason. */
export function checkEntry(e: yauzl.Entry, limits: ZipLimits): void {
  const name = quotedName(e.fileName);
  const parts = e.fileName.split(/[\\/]/);
  if (e.fileName.startsWith('/') || /^[a-zA-Z]:/.test(e.fileName) || parts.includes('..') || e.fileName.includes('\0')) throw unprocessable('zip_unsafe_path', { name });
  const longest = parts.reduce((m, p) => Math.max(m, Buffer.byteLength(p)), 0);
  if (longest > MAX_NAME_PART_BYTES || Buffer.byteLength(e.fileName) > MAX_ENTRY_NAME_BYTES) {
    throw unprocessable('zip_name_too_long', { name, bytes: Buffer.byteLength(e.fileName), part: MAX_NAME_PART_BYTES, max: MAX_ENTRY_NAME_BYTES });
  }
  const unixType = (e.externalFileAttributes >>> 16) & 0o170000;
  if (unixType === 0o120000) throw unprocessable('zip_link', { name });
  if (e.generalPurposeBitFlag & 1) throw unprocessable('zip_encrypted', { name });
  if (!READABLE_METHODS.has(e.compressionMethod)) throw unprocessable('zip_unsupported_method', { name, method: methodName(e.compressionMethod) });
  const ratio = ratioOf(e.uncompressedSize, e.compressedSize);
  if (e.uncompressedSize > RATIO_CHECKED_ABOVE_BYTES && ratio > limits.maxRatio) throw unprocessable('zip_bomb', { name, ratio: Math.round(ratio) });
}

/**
 * Entries wanted under one path (`a.shp`, `./a.shp`, `f//a.shp`) must be one file: two with different
 * content would leave only the last; the same file zipped in twice unpacks as one.
 */
function checkDistinctFiles(entries: ZipEntryInfo[]): void {
  const byPath = new Map<string, ZipEntryInfo>();
  for (const e of entries) {
    const path = posix.normalize(e.name);
    const before = byPath.get(path);
    if (before && (before.crc32 !== e.crc32 || before.size !== e.size)) throw unprocessable('zip_duplicate_name', { name: quotedName(e.name) });
    byPath.set(path, e);
  }
}

/** The archive as a whole, once every entry passed: many small entries that each inflate a lot are a bomb too. */
function checkTotalRatio(uncompressed: number, compressed: number, limits: ZipLimits): void {
  const ratio = ratioOf(uncompressed, compressed);
  if (uncompressed > TOTAL_RATIO_CHECKED_ABOVE_BYTES && ratio > limits.maxRatio) throw unprocessable('zip_bomb_total', { ratio: Math.round(ratio) });
}

export async function listZip(path: string, limits: Partial<ZipLimits> = {}): Promise<ZipEntryInfo[]> {
  const l = { ...DEFAULT_ZIP_LIMITS, ...limits };
  const zip = await openZip(path);
  try {
    if (zip.entryCount > l.maxEntries) throw unprocessable('zip_too_many_entries', { count: zip.entryCount, max: l.maxEntries });
    const out: ZipEntryInfo[] = [];
    let total = 0;
    let compressed = 0;
    for (const next of entriesOf(zip)) {
      const e = await next;
      if (!e) break;
      checkEntry(e, l);
      total += e.uncompressedSize;
      compressed += e.compressedSize;
      if (total > l.maxTotalBytes) throw unprocessable('zip_too_large', { max: Math.round(l.maxTotalBytes / 1024 ** 2) });
      if (!e.fileName.endsWith('/')) out.push({ name: e.fileName, size: e.uncompressedSize, compressedSize: e.compressedSize, crc32: e.crc32 });
    }
    checkTotalRatio(total, compressed, l);
    return out;
  } finally {
    zip.close();
  }
}

/** Passes an entry's bytes through and fails at their end when they do not give the recorded CRC-32. */
function checksummed(expected: number): Transform {
  let crc = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      crc = crc32(chunk, crc);
      done(null, chunk);
    },
    flush(done) {
      done(crc === expected ? null : new Error(`CRC-32 ${crc.toString(16)}, recorded ${expected.toString(16)}`));
    },
  });
}

/** Checks the whole archive, then extracts its (wanted) files under destDir; returns their paths. */
export async function extractZipSafely(
  path: string,
  destDir: string,
  limits: Partial<ZipLimits> = {},
  /** The entries wanted (by their name in the archive); all files when left out. */
  wanted?: (name: string) => boolean,
): Promise<string[]> {
  checkDistinctFiles((await listZip(path, limits)).filter((e) => !wanted || wanted(e.name)));
  const zip = await openZip(path);
  const written: string[] = [];
  try {
    for (const next of entriesOf(zip)) {
      const e = await next;
      if (!e) break;
      if (e.fileName.endsWith('/') || (wanted && !wanted(e.fileName))) continue;
      const target = normalize(join(destDir, e.fileName));
      if (!target.startsWith(normalize(destDir) + sep)) throw unprocessable('zip_unsafe_path', { name: quotedName(e.fileName) });
      // Whatever fails from here is the entry's: a damaged local header (yauzl's openReadStream), a
      // name that is both a file and a folder (`a.shp`, then `a.shp/b.dbf`: mkdir's EEXIST/ENOTDIR),
      // data that does not inflate; a full disk is the server's.
      const damaged = (err: unknown) => (isDiskFull(err) ? insufficientStorage() : unprocessable('zip_corrupt', { name: quotedName(e.fileName) }));
      await mkdir(dirname(target), { recursive: true }).catch((err: unknown) => {
        throw damaged(err);
      });
      const stream = await new Promise<NodeJS.ReadableStream>((resolve, reject) => zip.openReadStream(e, (err, s) => (err ? reject(damaged(err)) : resolve(s!))));
      written.push(target);
      await pipeline(stream, checksummed(e.crc32), createWriteStream(target)).catch((err: unknown) => {
        throw damaged(err);
      });
    }
    return written;
  } catch (err) {
    // What could not be written is not there to remove: the refusal is answered, not the clean-up's error.
    await Promise.all(written.map((p) => rm(p, { force: true }).catch(() => undefined)));
    throw err;
  } finally {
    zip.close();
  }
}
