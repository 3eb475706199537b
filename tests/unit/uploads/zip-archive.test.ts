// The checks lib/uploads/zip-archive.ts makes before a byte is extracted: zip bombs made of one large
// entry, of many 1 MB entries and of many small ones; archives that compress well but honestly
// (real LPIS exports) pass; the filter that extracts only the files a caller wants; and names no
// file system can hold (60,000 characters, a NUL byte), refused while listing and quoted short;
// entries whose bytes are not what the archive's checksum says, and two different files wanted under one path.
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import { isShapefilePart } from '@/lib/uploads/shapefile-layers';
import { QUOTED_NAME_CHARS, extractZipSafely, listZip, quotedName } from '@/lib/uploads/zip-archive';
import { rawZip } from '../../helpers/raw-zip';
import { missingShared, sharedPath } from '../../helpers/shared-data';

const tmp = () => mkdtempSync(join(tmpdir(), 'zip-unit-'));

/** An archive of `count` entries of `size` zero bytes each, deflated, written to a file. */
async function zerosZip(count: number, size: number): Promise<string> {
  const zip = new JSZip();
  const zeros = new Uint8Array(size);
  for (let i = 0; i < count; i++) zip.file(`f${i}.dbf`, zeros);
  const path = join(tmp(), `zeros-${count}x${size}.zip`);
  writeFileSync(path, await zip.generateAsync({ type: 'uint8array', compression: 'DEFLATE', compressionOptions: { level: 9 } }));
  return path;
}

const filesUnder = (dir: string): string[] => readdirSync(dir, { recursive: true, withFileTypes: true }).filter((d) => d.isFile()).map((d) => relative(dir, join(d.parentPath, d.name)));

describe('zip bombs are refused before extraction', () => {
  it('an entry of exactly 1 MB of zeros is checked (a thousand of them were written out as a gigabyte)', async () => {
    const zip = await zerosZip(20, 1024 * 1024);
    const dest = tmp();
    await expect(extractZipSafely(zip, dest)).rejects.toMatchObject({ key: 'zip_bomb', params: { name: 'f0.dbf' } });
    expect(filesUnder(dest)).toEqual([]);
  });

  it('entries above 64 kB are checked one by one', async () => {
    await expect(listZip(await zerosZip(1, 100 * 1024))).rejects.toMatchObject({ key: 'zip_bomb', params: { name: 'f0.dbf' } });
  });

  it('many small entries that together inflate too much are refused as a whole', async () => {
    // 300 entries of 60 kB: each under the per-entry check, 18 MB from a few dozen kB together.
    const zip = await zerosZip(300, 60 * 1024);
    const dest = tmp();
    await expect(extractZipSafely(zip, dest)).rejects.toMatchObject({ key: 'zip_bomb_total' });
    expect(filesUnder(dest)).toEqual([]);
  });

  it('small archives that compress very well still pass', async () => {
    // 100 entries of 60 kB of zeros: 6 MB in all, under the floor of the whole-archive check.
    expect(await listZip(await zerosZip(100, 60 * 1024))).toHaveLength(100);
    expect(await listZip(await zerosZip(1, 64 * 1024))).toHaveLength(1);
  });

  const missing = missingShared('vector', 'lpis', 'sk_lpis_2024.zip');
  it.skipIf(!!missing)('real LPIS exports pass (their attribute tables inflate 30 to 55 times)', async () => {
    for (const file of ['sk_lpis_2024', 'cz_lpis_2023', 'de_bb_gsa_2025', 'bg_arable_2024', 'ro_eurocrops_2021']) {
      expect((await listZip(sharedPath('vector', 'lpis', `${file}.zip`))).length).toBeGreaterThan(3);
    }
  });
});

describe('extracting only the wanted entries', () => {
  it('a shapefile import takes the layer files, in any case and folder, and leaves the rest in the archive', async () => {
    const zip = new JSZip();
    for (const name of ['a/Parcels.SHP', 'a/Parcels.shx', 'a/Parcels.DBF', 'a/Parcels.prj', 'a/Parcels.Cpg', 'readme.txt', 'photo.jpg', 'a/Parcels.shp.xml', 'a/Parcels.sbn']) zip.file(name, 'x');
    const path = join(tmp(), 'mixed.zip');
    writeFileSync(path, await zip.generateAsync({ type: 'uint8array' }));
    const dest = tmp();
    const written = await extractZipSafely(path, dest, {}, isShapefilePart);
    expect(written.map((p) => relative(dest, p)).sort()).toEqual(['a/Parcels.Cpg', 'a/Parcels.DBF', 'a/Parcels.SHP', 'a/Parcels.prj', 'a/Parcels.shx']);
    expect(filesUnder(dest).sort()).toEqual(['a/Parcels.Cpg', 'a/Parcels.DBF', 'a/Parcels.SHP', 'a/Parcels.prj', 'a/Parcels.shx']);
  });
});

describe('entries yauzl cannot read are refused with their name, never thrown as they come', () => {
  const write = (zip: Buffer) => {
    const path = join(tmp(), 'raw.zip');
    writeFileSync(path, zip);
    return path;
  };

  it('a method other than stored or deflated is refused before a byte is extracted', async () => {
    const zip = write(rawZip([{ name: 'a.shp', data: Buffer.from('shape') }, { name: 'a.dbf', data: Buffer.from('table'), method: 12 }]));
    await expect(listZip(zip)).rejects.toMatchObject({ key: 'zip_unsupported_method', params: { name: 'a.dbf', method: 'BZip2 (12)' } });
    const dest = tmp();
    await expect(extractZipSafely(zip, dest)).rejects.toMatchObject({ key: 'zip_unsupported_method' });
    expect(filesUnder(dest)).toEqual([]);
  });

  it('a damaged local header, and a name that is both a file and a folder, are the damaged entry; what was written goes', async () => {
    for (const [entries, name] of [
      [[{ name: 'a.shp', data: Buffer.from('shape') }, { name: 'a.dbf', data: Buffer.from('table'), damagedLocalHeader: true }], 'a.dbf'],
      [[{ name: 'a.shp', data: Buffer.from('shape') }, { name: 'a.shp/b.dbf', data: Buffer.from('table') }], 'a.shp/b.dbf'],
    ] as const) {
      const dest = tmp();
      await expect(extractZipSafely(write(rawZip([...entries])), dest)).rejects.toMatchObject({ name: 'AppError', key: 'zip_corrupt', params: { name } });
      expect(filesUnder(dest)).toEqual([]);
    }
  });

  // yauzl checks no checksum: the bytes were imported as they came.
  it('an entry whose bytes do not give its recorded CRC-32 is damaged, stored or deflated; what was written goes', async () => {
    for (const deflate of [false, true]) {
      const zip = write(rawZip([{ name: 'a.shp', data: Buffer.from('shape') }, { name: 'a.dbf', data: Buffer.from('table'), deflate, crc: 0x1234 }]));
      const dest = tmp();
      await expect(extractZipSafely(zip, dest)).rejects.toMatchObject({ name: 'AppError', key: 'zip_corrupt', params: { name: 'a.dbf' } });
      expect(filesUnder(dest)).toEqual([]);
    }
    const whole = write(rawZip([{ name: 'a.shp', data: Buffer.from('shape'), deflate: true }]));
    expect(filesUnder(dirname((await extractZipSafely(whole, tmp()))[0]!))).toEqual(['a.shp']);
  });
});

describe('two different files wanted under one path are refused before anything is extracted', () => {
  const write = (...entries: (readonly [name: string, content: string])[]) => {
    const path = join(tmp(), 'twice.zip');
    writeFileSync(path, rawZip(entries.map(([name, content]) => ({ name, data: Buffer.from(content) }))));
    return path;
  };

  // A survey of two different `a.JPG` kept the last one and answered "not enough images".
  it('the same name twice, or two spellings of one path, with different content name the second entry', async () => {
    for (const [entries, name] of [
      [[['a.JPG', 'one'], ['b.JPG', 'two'], ['a.JPG', 'three']], 'a.JPG'],
      [[['f/a.shp', 'one'], ['f/./a.shp', 'two']], 'f/./a.shp'],
      [[['f/a.shp', 'one'], ['f//a.shp', 'two!']], 'f//a.shp'],
    ] as const) {
      const dest = tmp();
      await expect(extractZipSafely(write(...entries), dest)).rejects.toMatchObject({ key: 'zip_duplicate_name', params: { name } });
      expect(filesUnder(dest)).toEqual([]);
    }
  });

  it('the same file zipped in twice unpacks as one; names differing in case, and duplicates not wanted, pass', async () => {
    const dest = tmp();
    await extractZipSafely(write(['f/a.JPG', 'same'], ['f/a.JPG', 'same'], ['a.jpg', 'x'], ['A.JPG', 'y']), dest);
    expect(filesUnder(dest).sort()).toEqual(['A.JPG', 'a.jpg', 'f/a.JPG']);
    const shapes = tmp();
    await extractZipSafely(write(['a.shp', 'shape'], ['readme.txt', 'one'], ['readme.txt', 'two']), shapes, {}, isShapefilePart);
    expect(filesUnder(shapes)).toEqual(['a.shp']);
    await expect(listZip(write(['readme.txt', 'one'], ['readme.txt', 'two']))).resolves.toHaveLength(2);
  });
});

describe('entry names no file system can hold are refused while listing, quoted short and safe', () => {
  const write = (zip: Buffer) => {
    const path = join(tmp(), 'names.zip');
    writeFileSync(path, zip);
    return path;
  };
  const entries = (...names: string[]) => write(rawZip([{ name: 'ok.shp', data: Buffer.from('shape') }, ...names.map((name) => ({ name, data: Buffer.from('x') }))]));

  // Extracting it failed with ENAMETOOLONG inside the clean-up, answered 500; the drone upload's
  // refusal quoted all 60,000 characters.
  it('a name of 60,000 characters is refused before a byte is written, quoted in 100 characters', async () => {
    const zip = entries(`${'a'.repeat(60_000)}.shp`);
    const dest = tmp();
    const refusal = (await extractZipSafely(zip, dest).catch((e: unknown) => e)) as { name: string; key: string; params: { name: string } };
    expect(refusal).toMatchObject({ name: 'AppError', key: 'zip_name_too_long', params: { bytes: 60_004, part: 255, max: 1024 } });
    const { name } = refusal.params;
    expect(name).toHaveLength(QUOTED_NAME_CHARS);
    expect(name).toMatch(/^a+…a+\.shp$/);
    expect(filesUnder(dest)).toEqual([]);
    await expect(listZip(zip)).rejects.toMatchObject({ key: 'zip_name_too_long' });
  });

  it('one file or folder name over 255 bytes, or a whole name over 1,024, is refused; up to them both pass', async () => {
    const part = (bytes: number) => 'd'.repeat(bytes);
    await expect(listZip(entries(`${part(251)}.shp`))).resolves.toHaveLength(2);
    await expect(listZip(entries(`${part(252)}.shp`))).rejects.toMatchObject({ key: 'zip_name_too_long' });
    await expect(listZip(entries(`${part(256)}/a.shp`))).rejects.toMatchObject({ key: 'zip_name_too_long' });
    // Cyrillic letters are two bytes each: 128 of them are 256 bytes.
    await expect(listZip(entries(`${'ж'.repeat(128)}.shp`))).rejects.toMatchObject({ key: 'zip_name_too_long' });
    const deep = (folders: number) => `${Array.from({ length: folders }, () => part(200)).join('/')}/a.shp`;
    await expect(listZip(entries(deep(5)))).resolves.toHaveLength(2); // 1,010 bytes
    await expect(listZip(entries(deep(6)))).rejects.toMatchObject({ key: 'zip_name_too_long', params: { bytes: 1211 } });
  });

  it('a NUL byte in a name is refused as unsafe, and control characters are quoted as their codes', async () => {
    await expect(listZip(entries('ok\u0000evil.shp'))).rejects.toMatchObject({ key: 'zip_unsafe_path', params: { name: 'ok\\u0000evil.shp' } });
    await expect(listZip(entries('ok.shp\u0000../../evil'))).rejects.toMatchObject({ key: 'zip_unsafe_path', params: { name: 'ok.shp\\u0000../../evil' } });
    expect(quotedName('line\nbreak\u202egpj.exe')).toBe('line\\u000abreak\\u202egpj.exe');
    expect(quotedName('Поле №1.shp')).toBe('Поле №1.shp');
    expect(quotedName(`${'x'.repeat(300)}.dbf`, 20)).toBe(`${'x'.repeat(12)}…${'x'.repeat(3)}.dbf`);
  });
});
