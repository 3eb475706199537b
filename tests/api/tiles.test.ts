// GET /api/scans/{id}/tiles/{layer}/{z}/{x}/{y}.png|.webp against a real server: an uploaded index
// raster of known values and a drone scan's RGBA mosaic made with GDAL. Images of 256 px, the
// index's pixel at a known point in its fixed ramp's colour, transparency outside the data, ETag and
// 304, and who may see them.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import proj4 from 'proj4';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { saveScan } from '@/lib/scans/scans';
import { INDEX_RANGES, previewLegend, rampColor } from '@/lib/raster/ramp';
import en from '../../messages/en.json';
import type { Api } from '../helpers/api';
import { type TestCompany, createCompany } from '../helpers/company';
import { baseUrl, directDb, retried } from '../helpers/context';
import { waitForTask } from '../helpers/tasks';
import { gradientIndexTiff } from '../helpers/tiff';

const toMercator = proj4('EPSG:4326', 'EPSG:3857');
const WORLD = 2 * Math.PI * 6378137;
/** The tile at `z` holding lon/lat, and the pixel of it that does. */
function tilePixel(lon: number, lat: number, z: number) {
  const [mx, my] = toMercator.forward([lon, lat]) as [number, number];
  const fx = ((mx + WORLD / 2) / WORLD) * 2 ** z;
  const fy = ((WORLD / 2 - my) / WORLD) * 2 ** z;
  return { x: Math.floor(fx), y: Math.floor(fy), px: Math.floor((fx % 1) * 256), py: Math.floor((fy % 1) * 256) };
}

async function getTile(api: Api | null, path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${baseUrl()}${path}`, { headers: { ...headers, ...(api?.cookie ? { cookie: `session_token=${api.cookie}` } : {}) } });
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

async function pixels(bytes: Buffer) {
  const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, info, at: (px: number, py: number) => [...data.subarray((py * info.width + px) * 4, (py * info.width + px) * 4 + 4)] };
}

let company: TestCompany;
let other: TestCompany;
let indexScan: number;
let droneScan: number;
// Pixel (30, 20) of the gradient raster: 0.1 + 0.8 * 30 / 59, at its centre.
const KNOWN = { lon: 21 + 30.5 * 0.0001, lat: 49 - 20.5 * 0.0001, value: 0.1 + (0.8 * 30) / 59 };
// The drone mosaic: a 0.001° square of one colour, south-east of the index raster.
const MOSAIC = { west: 21.01, north: 48.99, side: 0.001, rgba: [200, 120, 40, 255] };

beforeAll(async () => {
  [company, other] = await Promise.all([createCompany(baseUrl()), createCompany(baseUrl())]);
  const { bytes, field } = gradientIndexTiff();
  const fieldId = (await company.as.owner.post('/api/fields', { name: 'Tiles', geometry: field })).body.id as number;
  const up = await company.as.operator.upload('/upload', { raster_file: { data: bytes, name: 'ndvi.tif', type: 'image/tiff' }, field_id: String(fieldId), index: 'ndvi', zones: '3' });
  expect(up.status, up.text).toBe(202);
  const task = await waitForTask(company.as.operator, up.body.task_id);
  expect(task.status, JSON.stringify(task.error)).toBe('completed');
  indexScan = task.result.scan_id as number;

  // A drone scan as the pipeline leaves it: preview.png with mosaic.tif (RGB + alpha) beside it.
  const dir = mkdtempSync(join(tmpdir(), 'tiles-scan-'));
  const previewPath = join(dir, 'preview.png');
  writeFileSync(previewPath, await sharp({ create: { width: 2, height: 2, channels: 3, background: '#00ff00' } }).png().toBuffer());
  const { west, north, side, rgba } = MOSAIC;
  execFileSync('gdal_create', ['-q', '-of', 'GTiff', '-outsize', '100', '100', '-bands', '4', '-ot', 'Byte', ...rgba.flatMap((v) => ['-burn', String(v)]),
    '-a_srs', 'EPSG:4326', '-a_ullr', String(west), String(north), String(west + side), String(north - side), '-co', 'PHOTOMETRIC=RGB', '-co', 'ALPHA=YES', '-co', 'TILED=YES', join(dir, 'mosaic.tif')]);
  const db = directDb();
  droneScan = (await retried(() => saveScan(db, company.id, fieldId, {
    source: 'drone', fileName: null, indexName: 'vari', capturedAt: null, stats: { mean: 0.1, std: 0.1, median: 0.1 },
    histogram: { min: 0, max: 1, counts: [1] }, previewPath, previewBounds: [[north - side, west], [north, west + side]],
  }, []))).id;
  await db.$disconnect();
}, 180_000);

describe('scan tiles', () => {
  it('draws the index at a known point in its fixed ramp’s colour, as a 256 px PNG and WebP, transparent outside the data', async () => {
    const { x, y, px, py } = tilePixel(KNOWN.lon, KNOWN.lat, 17);
    const { res, bytes } = await getTile(company.as.viewer, `/api/scans/${indexScan}/tiles/index/17/${x}/${y}.png`);
    expect(res.status, bytes.toString()).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    const png = await pixels(bytes);
    expect((await sharp(bytes).metadata()).format).toBe('png');
    expect([png.info.width, png.info.height]).toEqual([256, 256]);
    const { min, max } = INDEX_RANGES.ndvi!;
    expect(png.at(px, py)).toEqual([...rampColor((KNOWN.value - min) / (max - min)), 255]);

    const webp = await getTile(company.as.viewer, `/api/scans/${indexScan}/tiles/index/17/${x}/${y}.webp`);
    expect(webp.res.headers.get('content-type')).toBe('image/webp');
    const meta = await sharp(webp.bytes).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 256, 256]);

    // The scan names its layers and the index layer's legend: NDVI's fixed range.
    const { tiles } = (await company.as.viewer.get(`/api/scans/${indexScan}`)).body.scan;
    expect(tiles).toEqual({ index: `/api/scans/${indexScan}/tiles/index/{z}/{x}/{y}.png`, ortho: null, legend: previewLegend('ndvi', INDEX_RANGES.ndvi!) });

    // Beyond the raster's east edge at the same zoom: a transparent tile, not an error.
    const away = await getTile(company.as.viewer, `/api/scans/${indexScan}/tiles/index/17/${x + 40}/${y}.png`);
    expect(away.res.status).toBe(200);
    const empty = await pixels(away.bytes);
    expect([empty.info.width, empty.info.height]).toEqual([256, 256]);
    expect(empty.data.every((v, i) => i % 4 !== 3 || v === 0)).toBe(true);
  });

  it('draws a drone scan’s mosaic in its own colours, and is transparent around it', async () => {
    const { west, north, side, rgba } = MOSAIC;
    const { x, y, px, py } = tilePixel(west + side / 2, north - side / 2, 18);
    const { res, bytes } = await getTile(company.as.viewer, `/api/scans/${droneScan}/tiles/ortho/18/${x}/${y}.png`);
    expect(res.status, bytes.toString()).toBe(200);
    const tile = await pixels(bytes);
    expect(tile.at(px, py)).toEqual(rgba);
    const corner = tilePixel(west - side / 4, north + side / 4, 18);
    if (corner.x === x && corner.y === y) expect(tile.at(corner.px, corner.py)[3]).toBe(0);
  });

  it('answers ETag and private caching, and 304 to If-None-Match', async () => {
    const { x, y } = tilePixel(KNOWN.lon, KNOWN.lat, 16);
    const path = `/api/scans/${indexScan}/tiles/index/16/${x}/${y}.png`;
    const first = await getTile(company.as.viewer, path);
    const etag = first.res.headers.get('etag');
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(first.res.headers.get('cache-control')).toMatch(/^private, max-age=\d+$/);
    const again = await getTile(company.as.viewer, path, { 'if-none-match': etag! });
    expect(again.res.status).toBe(304);
    expect(again.bytes.length).toBe(0);
    expect(again.res.headers.get('etag')).toBe(etag);
    // Weak and listed forms match too; another tile's ETag does not.
    expect((await getTile(company.as.viewer, path, { 'if-none-match': `"x", W/${etag}` })).res.status).toBe(304);
    const neighbour = await getTile(company.as.viewer, `/api/scans/${indexScan}/tiles/index/16/${x + 1}/${y}.png`);
    expect(neighbour.res.headers.get('etag')).not.toBe(etag);
    expect((await getTile(company.as.viewer, path, { 'if-none-match': neighbour.res.headers.get('etag')! })).res.status).toBe(200);
    // The WebP of the same tile is another resource.
    const webp = await getTile(company.as.viewer, `/api/scans/${indexScan}/tiles/index/16/${x}/${y}.webp`);
    expect(webp.res.headers.get('etag')).not.toBe(etag);
  });

  it('is the company’s own: 404 to another company, 401 without a session, every role from viewer up', async () => {
    const path = `/api/scans/${indexScan}/tiles/index/10/0/0.png`;
    const foreign = await getTile(other.as.owner, path);
    expect(foreign.res.status).toBe(404);
    expect(JSON.parse(foreign.bytes.toString())).toEqual({ success: false, error: en.errors.not_found });
    expect((await getTile(null, path)).res.status).toBe(401);
    for (const role of ['viewer', 'operator', 'agronomist', 'admin', 'owner'] as const) expect((await getTile(company.as[role], path)).res.status, role).toBe(200);
  });

  it('answers 404 with a reason for a layer the scan lacks or an address that names no tile', async () => {
    const lacks = await getTile(company.as.viewer, `/api/scans/${indexScan}/tiles/ortho/10/0/0.png`);
    expect(lacks.res.status).toBe(404);
    expect(JSON.parse(lacks.bytes.toString()).error).toBe(en.errors.scan_no_layer);
    for (const bad of ['zones/10/0/0.png', 'index/10/0/0.jpg', 'index/25/0/0.png', 'index/3/8/0.png', 'index/3/0/-1.png', 'index/a/0/0.png']) {
      const res = await getTile(company.as.viewer, `/api/scans/${indexScan}/tiles/${bad}`);
      expect(res.res.status, bad).toBe(404);
      expect(JSON.parse(res.bytes.toString()).error, bad).toBe(en.errors.tile_not_found);
    }
    expect((await getTile(company.as.viewer, `/api/scans/999999999/tiles/index/10/0/0.png`)).res.status).toBe(404);
  });
});
