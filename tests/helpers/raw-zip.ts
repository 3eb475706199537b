// A ZIP written byte by byte, for what friendly writers refuse to make: `../` names, entries that
// inflate hundreds of times, compression methods yauzl cannot read, damaged local headers, and a name
// that is both a file and a folder.
import { crc32, deflateRawSync } from 'node:zlib';

export interface RawZipEntry {
  name: string;
  data: Buffer;
  deflate?: boolean;
  /** The compression method written in both headers, whatever the data is (9 Deflate64, 12 BZip2, 14 LZMA). */
  method?: number;
  /** A local header whose signature is wrong: the central directory is fine, the entry cannot be opened. */
  damagedLocalHeader?: boolean;
  /** The CRC-32 written in both headers, in place of the data's own: an entry damaged in its bytes. */
  crc?: number;
}

export function rawZip(entries: RawZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const body = e.deflate ? deflateRawSync(e.data, { level: 9 }) : e.data;
    const crc = e.crc ?? crc32(e.data);
    const method = e.method ?? (e.deflate ? 8 : 0);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(e.damagedLocalHeader ? 0x5a5a5a5a : 0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(e.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(e.data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += 30 + name.length + body.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}
