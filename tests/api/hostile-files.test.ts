// Hostile files through the upload paths (issue 9), on the shared server: forged TIFF headers
// (100,000 x 100,000 pixels, a million-entry colour map, strips past the end, wrong magic), damaged
// JPEGs and absurd EXIF GPS through the drone upload, and shapefiles whose .shx (or .shp record
// headers) lie. Each answers its documented error envelope; no request may hang (each is aborted
// after 90 s, far beyond what any of them needs), and the server answers its health check after
// each. Zip bombs, traversal, links and oversize bodies are in shapefile.test.ts and drone.test.ts.
// Last, on a server of one web process of its own (issue 36): the generated corpus of crafted TIFFs
// and JSON bodies, slow and abandoned bodies, and forged origins, none of which may take it down.
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import JSZip from 'jszip';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import type { Api } from '../helpers/api';
import { registerCompany } from '../helpers/company';
import type { ScratchDb } from '@/lib/db/scratch';
import { baseUrl, scratchOfThisPass, serverRss } from '../helpers/context';
import { craftedJson, craftedTiffs } from '../helpers/hostile-input';
import { webProcesses } from '../helpers/proc';
import { type TestServer, startServer } from '../helpers/server';
import { ogr2ogrAvailable, shapefileZip, square } from '../helpers/shapefile-zip';
import { rawZip } from '../helpers/raw-zip';
import { type Ring, polygonLayer, squareRing, squaresSideBySide, zipOf as layerZip } from '../unit/uploads/shp-writer';
import { waitForTask } from '../helpers/tasks';
import { tiffBytes } from '../helpers/tiff';

const dir = mkdtempSync(join(tmpdir(), 'hostile-'));
const noExiftool = (() => {
  try {
    execFileSync('exiftool', ['-ver'], { stdio: 'pipe' });
    return undefined;
  } catch {
    return 'exiftool not installed (apt-get install libimage-exiftool-perl): JPEGs with forged EXIF cannot be written';
  }
})();
if (noExiftool) console.warn(`skipping the forged-EXIF tests: ${noExiftool}`);
const noOgr = ogr2ogrAvailable() ? undefined : 'ogr2ogr (gdal-bin) is not installed';
if (noOgr) console.warn(`skipping the lying-shapefile tests: ${noOgr}`);

const NO_HANG_MS = 90_000;

/** A multipart upload that is aborted (and fails the test) if the server has not answered within NO_HANG_MS. */
async function upload(api: Api, path: string, parts: Record<string, { data: Uint8Array; name: string; type?: string } | string>) {
  const form = new FormData();
  for (const [name, part] of Object.entries(parts)) {
    if (typeof part === 'string') form.append(name, part);
    else form.append(name, new Blob([part.data as BlobPart], { type: part.type ?? 'application/octet-stream' }), part.name);
  }
  const res = await fetch(baseUrl() + path, {
    method: 'POST',
    body: form,
    headers: { cookie: `session_token=${api.cookie}`, 'accept-language': 'en' },
    signal: AbortSignal.timeout(NO_HANG_MS),
  });
  const text = await res.text();
  let body: { success?: boolean; error?: string; [k: string]: unknown } = {};
  try {
    body = JSON.parse(text);
  } catch {
    /* checked below */
  }
  return { status: res.status, body, text };
}

/** The spec's error envelope with this status and a message matching `error`. */
function expectRefusal(res: { status: number; body: object; text: string }, status: number, error: string | RegExp) {
  expect(res.status, res.text).toBe(status);
  expect(res.body).toEqual({ success: false, error: typeof error === 'string' ? error : expect.stringMatching(error) });
}

const rasterUpload = (api: Api, data: Uint8Array, name = 'hostile.tif') => upload(api, '/upload', { raster_file: { data, name, type: 'image/tiff' } });

// ---- TIFFs written byte by byte -------------------------------------------------------------

type Entry = [tag: number, type: number, values: number[] | string, count?: number, offset?: number];

interface TiffSpec {
  width: number;
  height: number;
  bits?: number;
  /** Bytes of pixel data actually written (the strip byte count always declares the full size). */
  pixelBytes?: number;
  /** Photometric 3 with a colour map of this many SHORT values, written in full. */
  colorMapValues?: number;
  /** A colour map declared this long whose values lie past the end of the file. */
  colorMapDeclaredOnly?: number;
  georef?: boolean;
}

/** A little-endian, single-strip TIFF, optionally a GeoTIFF in UTM 15N. */
function tiff(spec: TiffSpec): Buffer {
  const bits = spec.bits ?? 8;
  const full = Math.min(0xffffffff, Math.ceil((spec.width * spec.height * bits) / 8));
  const pixels = Buffer.alloc(spec.pixelBytes ?? Math.min(full, 1 << 20), 1);
  const palette = spec.colorMapValues !== undefined || spec.colorMapDeclaredOnly !== undefined;
  const entries: Entry[] = [
    [256, 4, [spec.width]],
    [257, 4, [spec.height]],
    [258, 3, [bits]],
    [259, 3, [1]],
    [262, 3, [palette ? 3 : 1]],
    [273, 4, [0]], // strip offset, patched below
    [277, 3, [1]],
    [278, 4, [spec.height]],
    [279, 4, [full]],
    [339, 3, [1]],
  ];
  if (spec.colorMapValues !== undefined) entries.push([320, 3, Array.from({ length: spec.colorMapValues }, (_, i) => i & 0xffff)]);
  if (spec.colorMapDeclaredOnly !== undefined) entries.push([320, 3, [], spec.colorMapDeclaredOnly, 0xfffffff0]);
  if (spec.georef !== false) {
    entries.push([33550, 12, [10, 10, 0]], [33922, 12, [0, 0, 0, 720000, 4303000, 0]]);
    entries.push([34735, 3, [1, 1, 0, 3, 1024, 0, 1, 1, 1025, 0, 1, 1, 3072, 0, 1, 32615]]);
  }
  entries.sort((a, b) => a[0] - b[0]);
  const size = (t: number) => ({ 2: 1, 3: 2, 4: 4, 12: 8 })[t]!;
  const ifdSize = 2 + entries.length * 12 + 4;
  let extra = 8 + ifdSize;
  const blobs: Buffer[] = [];
  const ifd = Buffer.alloc(ifdSize);
  ifd.writeUInt16LE(entries.length, 0);
  let stripAt = 0;
  entries.forEach(([tag, type, values, count, offset], i) => {
    const at = 2 + i * 12;
    ifd.writeUInt16LE(tag, at);
    ifd.writeUInt16LE(type, at + 2);
    ifd.writeUInt32LE(count ?? values.length, at + 4);
    if (tag === 273) stripAt = at + 8;
    if (offset !== undefined) return void ifd.writeUInt32LE(offset, at + 8);
    const data = Buffer.alloc(values.length * size(type));
    if (typeof values === 'string') data.write(values, 'latin1');
    else values.forEach((v, k) => (type === 3 ? data.writeUInt16LE(v, k * 2) : type === 4 ? data.writeUInt32LE(v, k * 4) : data.writeDoubleLE(v, k * 8)));
    if (data.length <= 4) data.copy(ifd, at + 8);
    else {
      ifd.writeUInt32LE(extra, at + 8);
      blobs.push(data);
      extra += data.length;
    }
  });
  ifd.writeUInt32LE(extra, stripAt);
  return Buffer.concat([Buffer.from([0x49, 0x49, 42, 0, 8, 0, 0, 0]), ifd, ...blobs, pixels]);
}

// ---- JPEGs and archives ---------------------------------------------------------------------

const jpeg = (shade: number) => sharp({ create: { width: 96, height: 64, channels: 3, background: { r: shade, g: 120, b: 60 } } }).jpeg().toBuffer();

/** A JPEG with the given exiftool assignments (numbers written as given with `#=`). */
async function jpegWithExif(name: string, tags: Record<string, string | number>, xmpRelativeAltitude?: number): Promise<Buffer> {
  const file = join(dir, name);
  writeFileSync(file, await jpeg(name.length * 10));
  const args = Object.entries(tags).map(([k, v]) => (typeof v === 'number' ? `-${k}#=${v}` : `-${k}=${v}`));
  if (xmpRelativeAltitude !== undefined) {
    const xmp = join(dir, `${name}.xmp`);
    writeFileSync(xmp, `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:drone-dji="http://www.dji.com/drone-dji/1.0/" drone-dji:RelativeAltitude="${xmpRelativeAltitude.toFixed(2)}" drone-dji:GimbalPitchDegree="-90.0"/>
</rdf:RDF></x:xmpmeta><?xpacket end="w"?>`);
    args.push(`-XMP<=${xmp}`);
  }
  execFileSync('exiftool', ['-q', '-q', '-overwrite_original', ...args, file], { stdio: 'pipe' });
  return readFileSync(file);
}

function zipOf(entries: Record<string, Buffer>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, data] of Object.entries(entries)) zip.addBuffer(data, name, { compress: false });
  zip.end();
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks))).on('error', reject);
  });
}

const droneUpload = async (api: Api, photos: Record<string, Buffer>, data: object = { field_id: 'auto' }) =>
  upload(api, '/api/drone/upload', { drone_images: { data: await zipOf(photos), name: 'flight.zip', type: 'application/zip' }, data: JSON.stringify(data) });

// ---------------------------------------------------------------------------------------------

let api: Api;
beforeAll(async () => {
  api = (await registerCompany(baseUrl(), { language: 'en' })).api;
});

afterEach(async () => {
  const health = await fetch(`${baseUrl()}/api/health`, { signal: AbortSignal.timeout(30_000) });
  expect(health.status).toBe(200);
});

describe('hostile TIFFs through POST /upload (raster_file)', () => {
  it('a TIFF declaring 100,000 x 100,000 pixels answers 422 raster_too_large, from its header alone', async () => {
    const res = await rasterUpload(api, tiff({ width: 100_000, height: 100_000, pixelBytes: 64 }));
    expectRefusal(res, 422, 'Implausible raster size: 100000 × 100000, 1 bands');
  });

  it('a million-entry colour map answers 422 raster_colormap_too_large, written out or only declared', async () => {
    const written = tiff({ width: 64, height: 64, colorMapValues: 3 * 1_000_000 });
    expect(written.length).toBeGreaterThan(6_000_000);
    expectRefusal(await rasterUpload(api, written), 422, 'The GeoTIFF colour map is too large (3000000 entries)');
    // Declared as 3 x 2^30 values at an offset past the end of the file: never loaded.
    const declared = tiff({ width: 64, height: 64, colorMapDeclaredOnly: 3 * 2 ** 30 });
    expectRefusal(await rasterUpload(api, declared), 422, /^The GeoTIFF colour map is too large \(\d+ entries\)$|^The GeoTIFF cannot be read: /);
  });

  it('a TIFF whose strip runs past the end of the file answers 422 raster_truncated', async () => {
    const cut = tiff({ width: 2000, height: 2000, pixelBytes: 1000 });
    const res = await rasterUpload(api, cut);
    expectRefusal(res, 422, /^The GeoTIFF is truncated: \d+ bytes expected, \d+ received$/);
  });

  it('a decompression bomb (1 GB of strips all pointing at one 4 kB copy) answers 422 from the header alone', async () => {
    const bomb = { width: 16_384, height: 16_384, georef: { epsg: 32615, origin: [720000, 4303000] as [number, number], pixel: 0.1 } };
    const shared = tiffBytes({ ...bomb, compression: 8, strips: { rows: 64, data: deflateSync(Buffer.alloc(bomb.width * 64 * 4)), shared: true } });
    expectRefusal(await rasterUpload(api, shared), 422, 'The GeoTIFF declares 1074 MB of pixels in 0.01 MB of data, more than a raster compresses: the file is refused as a decompression bomb');
  });

  it('a TIFF cut inside its header, and files of the wrong kind named .tif, are refused', async () => {
    const whole = tiff({ width: 64, height: 64 });
    expectRefusal(await rasterUpload(api, whole.subarray(0, 20)), 422, /^The GeoTIFF cannot be read: /);
    expectRefusal(await rasterUpload(api, whole.subarray(0, 3)), 415, 'The file is not a TIFF/GeoTIFF');
    expectRefusal(await rasterUpload(api, await jpeg(10)), 415, 'The file is not a TIFF/GeoTIFF');
    expectRefusal(await rasterUpload(api, Buffer.from('MM\0\x2b garbage after a BigTIFF magic')), 422, /^The GeoTIFF cannot be read: /);
    expectRefusal(await rasterUpload(api, Buffer.alloc(0)), 415, 'The file is not a TIFF/GeoTIFF');
  });

  it('memory stays bounded after the forged headers', () => {
    // The forged sizes above would need tens of gigabytes if anything believed them.
    expect(serverRss()).toBeLessThan(3 * 1024 ** 3);
  });
});

describe('hostile JPEGs through POST /api/drone/upload', () => {
  it('truncated and wrong-magic photos are named as damaged (422)', async () => {
    const good = await jpeg(20);
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: 'red' } }).png().toBuffer();
    for (const [label, bad] of [
      ['cut after 100 bytes', good.subarray(0, 100)],
      ['cut to its magic', good.subarray(0, 3)],
      ['PNG named .jpg', png],
      ['JPEG magic then noise', Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe1, 0xff, 0xff]), Buffer.alloc(5000, 0xab)])],
    ] as const) {
      const res = await droneUpload(api, { 'IMG_1.jpg': good, 'IMG_2.jpg': bad });
      expect(res.status, `${label}: ${res.text}`).toBe(422);
      expect(res.body, label).toEqual({ success: false, error: expect.stringMatching(/IMG_2\.jpg/) });
    }
  });

  it.skipIf(!!noExiftool)('GPS out of range counts as no GPS (422 naming the photos)', async () => {
    const a = await jpegWithExif('lat95.jpg', { GPSLatitude: 95, GPSLatitudeRef: 'N', GPSLongitude: 20, GPSLongitudeRef: 'E' });
    const b = await jpegWithExif('lon200.jpg', { GPSLatitude: 48, GPSLatitudeRef: 'N', GPSLongitude: 200, GPSLongitudeRef: 'E' });
    const res = await droneUpload(api, { 'IMG_1.jpg': a, 'IMG_2.jpg': b });
    expectRefusal(res, 422, 'No GPS coordinates in the EXIF of: IMG_1.jpg, IMG_2.jpg');
  });

  it.skipIf(!!noExiftool)('broken EXIF (a GPS directory pointing past the end) is refused, not a crash', async () => {
    const good = await jpegWithExif('ok.jpg', { GPSLatitude: 48, GPSLatitudeRef: 'N', GPSLongitude: 20, GPSLongitudeRef: 'E' });
    // Overwrite the GPS IFD offset (tag 0x8825 in IFD0) with one far past the end of the file.
    const broken = Buffer.from(good);
    const tiffStart = broken.indexOf(Buffer.from('Exif\0\0')) + 6;
    const le = broken[tiffStart] === 0x49;
    const tag = le ? Buffer.from([0x25, 0x88]) : Buffer.from([0x88, 0x25]);
    const at = broken.indexOf(tag, tiffStart);
    expect(at).toBeGreaterThan(0);
    if (le) broken.writeUInt32LE(0x7ffffff0, at + 8);
    else broken.writeUInt32BE(0x7ffffff0, at + 8);
    const res = await droneUpload(api, { 'IMG_1.jpg': good, 'IMG_2.jpg': broken });
    expect(res.status, res.text).toBe(422);
    expect(res.body).toEqual({ success: false, error: expect.stringMatching(/IMG_2\.jpg/) });
  });

  it.skipIf(!!noExiftool)('a negative altitude (below sea level, and below the take-off point) is accepted and the task ends with a result or a reason', async () => {
    const { api: own } = await registerCompany(baseUrl(), { language: 'en' });
    const at = { GPSLatitude: 48.1, GPSLatitudeRef: 'N', GPSLongitude: 20.1, GPSLongitudeRef: 'E', GPSAltitude: 500, GPSAltitudeRef: 1 };
    const a = await jpegWithExif('neg1.jpg', { ...at, DateTimeOriginal: '2024:06:15 10:00:00' }, -50);
    const b = await jpegWithExif('neg2.jpg', { ...at, GPSLatitude: 48.1002, DateTimeOriginal: '2024:06:15 10:00:02' }, -50);
    const none = await droneUpload(own, { 'IMG_1.jpg': a, 'IMG_2.jpg': b });
    expectRefusal(none, 422, 'No field matches the coordinates of the images');
    const field = await own.post('/api/fields', { name: 'Under the drone', geometry: square(20.098, 48.098, 600) });
    expect(field.status, field.text).toBe(201);
    const res = await droneUpload(own, { 'IMG_1.jpg': a, 'IMG_2.jpg': b });
    expect(res.status, res.text).toBe(202);
    expect(res.body.field_id).toBe(field.body.id);
    const task = await waitForTask(own, res.body.task_id as string, 300_000);
    if (task.status === 'error') expect(task.error).toEqual(expect.any(String));
    else expect(task.status).toBe('completed');
  });

  it('a TIFF photo declaring 100,000 x 100,000 pixels is refused at once (422 naming it)', async () => {
    const big = tiff({ width: 100_000, height: 100_000, pixelBytes: 64, georef: false });
    const res = await droneUpload(api, { 'IMG_1.tif': big, 'IMG_2.tif': big });
    expect(res.status, res.text).toBe(422);
    expect(res.body).toEqual({ success: false, error: expect.stringMatching(/IMG_1\.tif|IMG_2\.tif/) });
  });
});

describe.skipIf(!!noOgr)('shapefiles whose index or record headers lie', () => {
  const features = Array.from({ length: 20 }, (_, i) => ({ geometry: square(17 + i * 0.01, 48.5, 80), properties: { NAME: `S${i}` } }));

  /** The archive with one member rewritten. */
  async function rewrite(zip: Uint8Array, ext: string, change: (b: Buffer) => Buffer): Promise<Uint8Array> {
    const z = await JSZip.loadAsync(zip);
    const name = Object.keys(z.files).find((n) => n.toLowerCase().endsWith(`.${ext}`))!;
    z.file(name, change(Buffer.from(await z.file(name)!.async('uint8array'))));
    return z.generateAsync({ type: 'uint8array', compression: 'DEFLATE' });
  }

  it('a .shx with offsets and lengths that point anywhere does not matter: the .shp is read in order', async () => {
    const { api: own } = await registerCompany(baseUrl(), { language: 'en' });
    const zip = await rewrite(await shapefileZip({ features }), 'shx', (shx) => {
      const out = Buffer.from(shx);
      for (let at = 100; at + 8 <= out.length; at += 8) {
        out.writeInt32BE(0x7ffffff0 - at, at); // offset past the end
        out.writeInt32BE(-1, at + 4); // negative content length
      }
      return out;
    });
    const res = await upload(own, '/upload', { shapefile_zip: { data: zip, name: 'lying-shx.zip', type: 'application/zip' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.fields_created).toBe(20);
    // And a .shx that is pure garbage, or none at all, the same.
    const own2 = (await registerCompany(baseUrl(), { language: 'en' })).api;
    const garbage = await rewrite(await shapefileZip({ features }), 'shx', () => Buffer.from('not an index'));
    const res2 = await upload(own2, '/upload', { shapefile_zip: { data: garbage, name: 'garbage-shx.zip', type: 'application/zip' } });
    expect(res2.status, res2.text).toBe(200);
    expect(res2.body.fields_created).toBe(20);
  });

  // The `shapefile` reader stops quietly at a record whose length runs past the end of the .shp; the
  // importer compares the records read with the DBF's count, so the file is refused, not shortened.
  it('a .shp record header claiming a gigabyte of content is refused clearly and creates nothing', async () => {
    const { api: own } = await registerCompany(baseUrl(), { language: 'en' });
    const zip = await rewrite(await shapefileZip({ features }), 'shp', (shp) => {
      const out = Buffer.from(shp);
      out.writeInt32BE(0x20000000, 104); // first record: content length in 16-bit words
      return out;
    });
    const res = await upload(own, '/upload', { shapefile_zip: { data: zip, name: 'lying-shp.zip', type: 'application/zip' } });
    expect(res.status, res.text).toBe(422);
    expect(res.body).toEqual({ success: false, error: expect.stringMatching(/damaged|shapefile/i) });
    expect((await own.get('/api/fields')).body.features).toEqual([]);
  });

  /** The archive over the in-request limit (2 MB), so that a worker thread reads it. */
  async function padded(zip: Uint8Array): Promise<Uint8Array> {
    const z = await JSZip.loadAsync(zip);
    z.file('padding.bin', randomBytes(3 * 1024 * 1024), { compression: 'STORE' });
    return z.generateAsync({ type: 'uint8array' });
  }

  // A table that ends before the .shp did gave the remaining fields no attributes, and the import
  // succeeded; an empty one was a TypeError inside the reader: a 500 (in a worker thread too).
  it('a damaged .dbf answers 422 naming it, in the request and in a worker thread, and creates nothing', async () => {
    const { api: own } = await registerCompany(baseUrl(), { language: 'en' });
    const cutAfterFirst = (dbf: Buffer) => dbf.subarray(0, dbf.readUInt16LE(8) + dbf.readUInt16LE(10));
    for (const edit of [cutAfterFirst, () => Buffer.alloc(0)]) {
      const zip = await rewrite(await shapefileZip({ features }), 'dbf', edit);
      for (const data of [zip, await padded(zip)]) {
        const res = await upload(own, '/upload', { shapefile_zip: { data, name: 'damaged-dbf.zip', type: 'application/zip' } });
        expectRefusal(res, 422, 'The shapefile fields.dbf is damaged');
      }
    }
    expect((await own.get('/api/fields')).body.features).toEqual([]);
  });

  // proj4 threw "coordinates must be finite numbers" and the whole import answered 500.
  it('a polygon with a NaN vertex is skipped with the reason; the others are imported', async () => {
    const zip = await rewrite(await shapefileZip({ features }), 'shp', (shp) => {
      const out = Buffer.from(shp);
      // The third record's first vertex: record header, shape type, box, part and point counts, one part index.
      let at = 100;
      for (let i = 0; i < 2; i++) at += 8 + 2 * out.readInt32BE(at + 4);
      out.writeDoubleLE(Number.NaN, at + 8 + 4 + 32 + 4 + 4 + 4);
      return out;
    });
    for (const data of [zip, await padded(zip)]) {
      const { api: own } = await registerCompany(baseUrl(), { language: 'en' });
      const res = await upload(own, '/upload', { shapefile_zip: { data, name: 'nan.zip', type: 'application/zip' } });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({
        fields_created: 19,
        skipped: [{ feature: 'fields #3 (S2)', reason: 'The boundary has a vertex whose coordinates are not numbers (NaN or infinity)' }],
      });
    }
  });
});

// Found by a hostile-input probe against a running server: one polygon of 20,000 parts (a 221 kB
// archive) held the web process for 87 s, and 238 s when sent again; ring checks that compared every
// ring or edge with every other; a ZIP entry named with 60,000 characters answered 500 (ENAMETOOLONG),
// and its refusal through the drone upload quoted the whole name. Speed is the bench's to measure:
// here the answers are checked.
describe('shapefiles and archive names beyond the bounds', () => {
  const shapefileUpload = (own: Api, data: Uint8Array) => upload(own, '/upload', { shapefile_zip: { data, name: 'hostile.zip', type: 'application/zip' } });

  it('a polygon of 20,000 parts and a ring wound round one vertex 30,000 times are skipped naming the bound; the plain field is imported, once', async () => {
    const { api: own } = await registerCompany(baseUrl(), { language: 'en' });
    const flower: Ring = [];
    for (let k = 0; k < 30_000; k++) {
      const [a, b] = [(2 * Math.PI * k) / 30_000, (2 * Math.PI * (k + 0.5)) / 30_000];
      flower.push([38, 54], [38 + 0.01 * Math.cos(a), 54 + 0.01 * Math.sin(a)], [38 + 0.01 * Math.cos(b), 54 + 0.01 * Math.sin(b)]);
    }
    flower.push([38, 54]);
    const zip = await layerZip(
      polygonLayer([
        { rings: squaresSideBySide(20_000), name: 'parts' },
        { rings: [flower.reverse()], name: 'flower' },
        { rings: [squareRing(17, 48, 0.001)], name: 'plain' },
      ]),
    );
    const first = await shapefileUpload(own, zip);
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({
      fields_created: 1,
      skipped: [
        { feature: 'fields #1 (parts)', reason: 'Too many rings (parts and holes): 20,000, at most 1,000 allowed; a boundary with more is a drawing or a file gone wrong' },
        { feature: 'fields #2 (flower)', reason: expect.stringMatching(/^The boundary is too intricate to check/) },
      ],
    });
    // Sent again: the plain field is a duplicate, the others are skipped as before.
    const again = await shapefileUpload(own, zip);
    expect(again.status, again.text).toBe(200);
    expect(again.body).toMatchObject({ fields_created: 0, duplicates_skipped: 1 });
    expect((again.body.skipped as unknown[]).length).toBe(2);
  });

  it('an entry named with 60,000 characters answers 422 through both uploads, the name quoted in 100 characters; a NUL byte in a name is quoted as its code', async () => {
    const long = `${'a'.repeat(60_000)}.shp`;
    const withLongName = await layerZip({ ...polygonLayer([{ rings: [squareRing(17, 48, 0.001)] }], { layer: 'ok' }), [long]: Buffer.from('x') });
    const quoted = `${'a'.repeat(60)}…${'a'.repeat(35)}.shp`;
    const error = `The archive entry ${quoted} has a name too long (60,004 bytes; at most 255 for one file or folder name and 1,024 in all); shorten it and pack the archive again`;
    expectRefusal(await shapefileUpload(api, withLongName), 422, error);
    const drone = await upload(api, '/api/drone/upload', { drone_images: { data: withLongName, name: 'flight.zip', type: 'application/zip' }, data: JSON.stringify({ field_id: 'auto' }) });
    expectRefusal(drone, 422, error);
    expect(drone.text.length).toBeLessThan(400);
    const withNul = Buffer.from(rawZip([{ name: 'ok\u0000evil.shp', data: Buffer.from('x') }]));
    expectRefusal(await shapefileUpload(api, withNul), 422, 'The archive contains an unsafe path: ok\\u0000evil.shp');
  });

  // yauzl checks no checksum, and of two different files of one name the last was kept.
  it('an entry damaged in its bytes and two different files of one name answer 422 in the user\'s language, and create nothing', async () => {
    const { api: own } = await registerCompany(baseUrl(), { language: 'ru' });
    const layer = polygonLayer([{ rings: [squareRing(17, 48, 0.001)] }]);
    const badCrc = Buffer.from(rawZip(Object.entries(layer).map(([name, data]) => ({ name, data, deflate: true, ...(name.endsWith('.dbf') ? { crc: 0xdeadbeef } : {}) }))));
    expectRefusal(await shapefileUpload(own, badCrc), 422, 'Файл fields.dbf в архиве повреждён');
    const twice = Buffer.from(rawZip([...Object.entries(layer).map(([name, data]) => ({ name, data })), { name: 'fields.shp', data: Buffer.concat([layer['fields.shp']!, Buffer.alloc(8)]) }]));
    expectRefusal(await shapefileUpload(own, twice), 422, 'В архиве два файла с именем fields.shp: оставьте один и заархивируйте заново');
    const photos = Buffer.from(rawZip(['a.JPG', 'b.JPG', 'a.JPG'].map((name, i) => ({ name, data: Buffer.from(`photo ${i}`) }))));
    const drone = await upload(own, '/api/drone/upload', { drone_images: { data: photos, name: 'flight.zip', type: 'application/zip' }, data: JSON.stringify({ field_id: 'auto' }) });
    expectRefusal(drone, 422, 'В архиве два файла с именем a.JPG: оставьте один и заархивируйте заново');
    expect((await own.get('/api/fields')).body.features).toEqual([]);
  });
});

describe('one web process under crafted files and bodies (issue 36)', () => {
  // The figures: each crafted request answered within 30 s, the health check within 1 s meanwhile.
  const ANSWER_WITHIN_MS = 30_000;
  const HEALTH_WITHIN_MS = 1_000;
  let scratch: ScratchDb;
  let server: TestServer;
  let own: Api;
  let webPids: number[];
  const logFile = join(dir, 'one-web-process.log');

  beforeAll(async () => {
    scratch = await scratchOfThisPass();
    server = await startServer({ env: { ...scratch.env, WEB_CONCURRENCY: '1', LOG_LEVEL: 'info', UPLOAD_IDLE_TIMEOUT_S: '5', TRUSTED_PROXIES: '0' }, logFile });
    own = (await registerCompany(server.url, { language: 'en' })).api;
    webPids = webProcesses(server).map((w) => w.pid);
    expect(webPids).toHaveLength(1);
  });

  afterAll(async () => {
    await server?.stop();
    await scratch?.drop();
  });

  afterEach(() => {
    // The same one web process throughout: none died and was replaced.
    expect(webProcesses(server).map((w) => w.pid)).toEqual(webPids);
  });

  /** `work`, while /api/health is asked again and again, each answer due within HEALTH_WITHIN_MS. */
  async function whileHealthy<T>(work: () => Promise<T>): Promise<T> {
    let finished = false;
    let answers = 0;
    const probes = (async () => {
      while (!finished || answers === 0) {
        const res = await fetch(`${server.url}/api/health`, { signal: AbortSignal.timeout(HEALTH_WITHIN_MS) });
        expect(res.status).toBe(200);
        await res.arrayBuffer();
        answers++;
      }
    })();
    try {
      return await work();
    } finally {
      finished = true;
      await probes;
    }
  }

  const send = (path: string, init: RequestInit & { headers?: Record<string, string> }) =>
    fetch(server.url + path, { ...init, headers: { 'accept-language': 'en', ...init.headers }, signal: AbortSignal.timeout(ANSWER_WITHIN_MS) }).then(async (res) => ({
      status: res.status,
      text: await res.text(),
    }));

  /** The request's headers with the body's whole length, and only its first 64 kB; the answer. */
  const sendDeclared = (path: string, method: string, body: string, headers: Record<string, string>) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const bytes = Buffer.from(body);
      const req = http.request(`${server.url}${path}`, { method, headers: { 'accept-language': 'en', ...headers, 'content-length': String(bytes.length) }, timeout: ANSWER_WITHIN_MS }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, text });
          req.destroy();
        });
      });
      req.on('timeout', () => req.destroy(new Error(`no answer within ${ANSWER_WITHIN_MS} ms`)));
      req.on('error', reject);
      req.write(bytes.subarray(0, 64 * 1024));
    });

  const uploadRaster = (bytes: Buffer) => {
    const form = new FormData();
    form.append('raster_file', new Blob([bytes as BlobPart], { type: 'image/tiff' }), 'crafted.tif');
    return send('/upload', { method: 'POST', body: form, headers: { cookie: `session_token=${own.cookie}` } });
  };

  // Each request has its own 30 s; the test as a whole, their sum (a busy machine is slow, not wrong).
  const allWithin = (count: number) => ({ timeout: count * ANSWER_WITHIN_MS + 60_000 });

  it('every crafted TIFF answers its 422, and no partial file stays behind', allWithin(craftedTiffs().length), async () => {
    for (const crafted of craftedTiffs()) {
      const res = await whileHealthy(() => uploadRaster(crafted.bytes));
      expect(res.status, `${crafted.name}: ${res.text}`).toBe(crafted.status ?? 422);
      expect(JSON.parse(res.text), crafted.name).toEqual({ success: false, error: expect.stringMatching(crafted.error) });
    }
    const tmp = join(server.dataDir, 'tmp');
    expect(existsSync(tmp) ? readdirSync(tmp).filter((f) => f.endsWith('.part')) : []).toEqual([]);
  });

  it('three crafted TIFFs at once answer, the server answering meanwhile', async () => {
    const worst = craftedTiffs().filter((c) => /naming itself|GeoKeyDirectory|sparse/.test(c.name));
    expect(worst).toHaveLength(4);
    const answers = await whileHealthy(() => Promise.all(worst.map((c) => uploadRaster(c.bytes))));
    answers.forEach((res, i) => expect(res.status, `${worst[i]!.name}: ${res.text}`).toBe(422));
  });

  it('every crafted JSON body answers its 4xx, the server answering meanwhile', allWithin(craftedJson().length), async () => {
    for (const crafted of craftedJson()) {
      const headers: Record<string, string> = { 'content-type': 'application/json', ...(crafted.signedIn ? { cookie: `session_token=${own.cookie}` } : {}) };
      const res = await whileHealthy(() => (crafted.refusedOnLength ? sendDeclared(crafted.path, crafted.method, crafted.body, headers) : send(crafted.path, { method: crafted.method, body: crafted.body, headers })));
      expect(res.status, `${crafted.name}: ${res.text.slice(0, 300)}`).toBe(crafted.status);
      expect(JSON.parse(res.text), crafted.name).toEqual(expect.objectContaining({ success: false, error: expect.any(String) }));
    }
    const company = await own.get('/api/auth/company');
    expect(Object.keys(company.body.company.settings ?? {})).not.toContain('zone_rates');
  });

  /** A request whose body is declared 1,000 bytes and stops after 10; `abandon` then closes the connection. */
  function partialBody(path: string, requestId: string, abandon: boolean): Promise<{ status: number; text: string } | undefined> {
    return new Promise((resolve, reject) => {
      const req = http.request(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': '1000', 'accept-language': 'en', 'x-request-id': requestId } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on('error', (err) => (abandon ? resolve(undefined) : reject(err)));
      req.write('{"email":"a', () => {
        if (abandon) setImmediate(() => req.destroy());
      });
    });
  }

  const logLines = () =>
    (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '')
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: number; msg: string; status?: number; requestId?: string });

  it('a JSON body that stops arriving answers 408 after UPLOAD_IDLE_TIMEOUT_S, on login too', async () => {
    const res = await partialBody('/api/auth/login', randomUUID(), false);
    expect(res).toEqual({ status: 408, text: JSON.stringify({ success: false, error: 'The request body stopped arriving and the request was ended' }) });
  });

  it('a client that goes away mid-body is one info line with status 499, no error', async () => {
    // The route must have begun reading before the client leaves: try again until one such request is logged.
    const deadline = Date.now() + 60_000;
    let logged: ReturnType<typeof logLines> = [];
    const ids: string[] = [];
    while (logged.length === 0) {
      if (Date.now() > deadline) throw new Error('no abandoned request was logged within 60 s');
      ids.push(randomUUID());
      await partialBody('/api/auth/login', ids.at(-1)!, true);
      await new Promise((r) => setTimeout(r, 200));
      logged = logLines().filter((l) => l.requestId && ids.includes(l.requestId));
    }
    const id = logged[0]!.requestId;
    const lines = logLines().filter((l) => l.requestId === id);
    expect(lines).toEqual([expect.objectContaining({ level: 30, msg: 'request', status: 499 })]);
    expect(logLines().filter((l) => l.requestId && ids.includes(l.requestId) && l.level >= 50)).toEqual([]);
  });

  it('Origin counts with its scheme and port, and X-Forwarded-Host only from a trusted proxy', async () => {
    const login = (headers: Record<string, string>) => send('/api/auth/login', { method: 'POST', body: JSON.stringify({ email: 'nobody@example.test', password: 'whatever-1' }), headers: { 'content-type': 'application/json', ...headers } });
    const host = new URL(server.url).host;
    const refused = { status: 403, text: JSON.stringify({ success: false, error: 'Request from another site refused' }) };
    expect(await login({ origin: 'http://evil.example', 'x-forwarded-host': 'evil.example' })).toEqual(refused);
    expect(await login({ origin: `https://${host}` })).toEqual(refused);
    expect(await login({ origin: `http://${new URL(server.url).hostname}:1` })).toEqual(refused);
    expect(await login({ origin: 'null' })).toEqual(refused);
    expect((await login({ origin: server.url })).status).toBe(401);
  });

  it('a form of more than 100 parts answers 413 saying so', async () => {
    const form = new FormData();
    for (let i = 0; i < 120; i++) form.append(`p${i}`, 'x');
    // Sent as one buffer of a few kB: streamed part by part, fetch may still be writing when the server
    // answers and closes, and fail with EPIPE before it reads the answer.
    const encoded = new Request('http://form.invalid', { method: 'POST', body: form });
    const body = Buffer.from(await encoded.arrayBuffer());
    const res = await send('/upload', { method: 'POST', body, headers: { cookie: `session_token=${own.cookie}`, 'content-type': encoded.headers.get('content-type')! } });
    expect(res.status, res.text).toBe(413);
    expect(JSON.parse(res.text).error).toMatch(/^The form has more than (100 parts|50 text fields)$/);
  });
});
