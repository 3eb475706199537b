// Map tiles of a 250 MP drone mosaic (docs/tiles.md): the mosaic is made once with GDAL from the
// drone photos of the shared data (4 x 7 of them side by side, 3 cm pixels in UTM 33N, RGB + alpha,
// tiled DEFLATE as the drone pipeline wrote it before COGs), then copied to two COGs: one by the
// tiles' own converter (DEFLATE, as an uploaded raster or an old mosaic is; timed: the one-off cost a
// mosaic without overviews pays at its first tile), one as the drone pipeline writes mosaics now
// (JPEG in YCbCr, alpha as the internal mask). For each:
// - server time per 256 px PNG tile (open, read, reproject, paint, encode), each from an empty block
//   cache, over zooms 14-22 at random places on the mosaic: p50, p95, max;
// - the same per stage at zooms 16-21: open (the cached file), plan (reprojected grid, level, blocks),
//   blocks (read and decode), paint (warp, style), encode;
// - resident memory over 10 rounds of 50 tiles drawn at once (new places each round) once the block
//   cache is full.
// Usage: npx tsx bench/tiles.ts [workdir]   (default /tmp/tiles-bench; the mosaic is kept there)
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import proj4 from 'proj4';
import { mosaicCogOptions, writeCog } from '@/lib/drone/cog';
import { convertToCog, isTileable } from '@/lib/raster/cog';
import { type TileRaster, clearTileBlocks, openTileRaster, tileCacheUse } from '@/lib/raster/tile-source';
import { type TileStyle, encodeTile, loadTileBlocks, paintTile, planTile, renderTile, rgbSamples } from '@/lib/raster/tiles';
import { sharedPath } from '@/tests/helpers/shared-data';
import { type Row, printTable, round, writeResults } from './lib';

const [ACROSS, DOWN, PHOTO_W, PHOTO_H] = [4, 7, 4000, 2250];
const [E0, N0, GSD] = [500_000, 5_540_000, 0.03];
const UTM33 = '+proj=utm +zone=33 +datum=WGS84 +units=m +no_defs';
const ZOOMS = [14, 15, 16, 17, 18, 19, 20, 21, 22];
const STAGE_ZOOMS = [16, 17, 18, 19, 20, 21];
const STAGES = ['open', 'plan', 'blocks', 'paint', 'encode'] as const;
const TILES_PER_ZOOM = 30;
const ROUNDS = 20;
const CONCURRENT = 50;

const dir = process.argv[2] ?? '/tmp/tiles-bench';
mkdirSync(dir, { recursive: true });

/** The mosaic as the drone pipeline writes it today: tiled DEFLATE GeoTIFF without overviews. */
function buildMosaic(): string {
  const tif = join(dir, 'mosaic.tif');
  if (existsSync(tif)) return tif;
  const photos = readdirSync(sharedPath('drone', 'brighton_beach', 'images')).filter((f) => /\.jpe?g$/i.test(f)).sort();
  const sources = Array.from({ length: ACROSS * DOWN }, (_, i) => {
    const file = sharedPath('drone', 'brighton_beach', 'images', photos[i % photos.length]!);
    const [x, y] = [(i % ACROSS) * PHOTO_W, Math.floor(i / ACROSS) * PHOTO_H];
    return `<SimpleSource><SourceFilename>${file}</SourceFilename><SourceBand>BAND</SourceBand><SrcRect xOff="0" yOff="0" xSize="${PHOTO_W}" ySize="${PHOTO_H}"/><DstRect xOff="${x}" yOff="${y}" xSize="${PHOTO_W}" ySize="${PHOTO_H}"/></SimpleSource>`;
  });
  const band = (b: number, interp: string) =>
    `<VRTRasterBand dataType="Byte" band="${b}"><ColorInterp>${interp}</ColorInterp>${sources.map((s) => s.replace('BAND', String(b))).join('')}</VRTRasterBand>`;
  const vrt = join(dir, 'mosaic.vrt');
  writeFileSync(vrt, `<VRTDataset rasterXSize="${ACROSS * PHOTO_W}" rasterYSize="${DOWN * PHOTO_H}">${band(1, 'Red')}${band(2, 'Green')}${band(3, 'Blue')}</VRTDataset>`);
  execFileSync('gdal_translate', ['-q', '-b', '1', '-b', '2', '-b', '3', '-b', 'mask', '-colorinterp_4', 'alpha', '-a_srs', UTM33,
    '-a_ullr', String(E0), String(N0), String(E0 + ACROSS * PHOTO_W * GSD), String(N0 - DOWN * PHOTO_H * GSD),
    '-co', 'TILED=YES', '-co', 'COMPRESS=DEFLATE', '-co', 'PREDICTOR=2', '-co', 'ZLEVEL=3', '-co', 'BIGTIFF=IF_SAFER', '-co', 'NUM_THREADS=2', vrt, tif]);
  return tif;
}

const toMercator = proj4(UTM33, 'EPSG:3857');
const WORLD = 2 * Math.PI * 6378137;
/** A random tile at `z` holding a point of the mosaic. */
function randomTile(z: number): [number, number] {
  const e = E0 + Math.random() * ACROSS * PHOTO_W * GSD;
  const n = N0 - Math.random() * DOWN * PHOTO_H * GSD;
  const [mx, my] = toMercator.forward([e, n]) as [number, number];
  return [Math.floor(((mx + WORLD / 2) / WORLD) * 2 ** z), Math.floor(((WORLD / 2 - my) / WORLD) * 2 ** z)];
}

const rssMb = () => round(process.memoryUsage.rss() / 2 ** 20, 0);
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;

const mosaic = buildMosaic();
const mosaicMp = round((ACROSS * PHOTO_W * DOWN * PHOTO_H) / 1e6, 0);

/** A COG of the mosaic made once (and how long it took, when made in this run). */
async function cogOf(name: string, make: (target: string) => Promise<void>): Promise<{ path: string; madeS: number | null }> {
  const path = join(dir, name);
  if (existsSync(path)) return { path, madeS: null };
  const t = performance.now();
  await make(path);
  return { path, madeS: round((performance.now() - t) / 1000, 1) };
}
const deflateCog = await cogOf('mosaic.cog.tif', (target) => convertToCog(mosaic, target));
// The drone pipeline hands GDAL its alpha as an Alpha band, which the JPEG COG keeps as its internal mask.
const jpegCog = await cogOf('mosaic.jpeg.cog.tif', async (target) => {
  const rgba = join(dir, 'mosaic-rgba.vrt');
  execFileSync('gdal_translate', ['-q', '-of', 'VRT', '-colorinterp', 'red,green,blue,alpha', mosaic, rgba]);
  await writeCog(rgba, target, mosaicCogOptions(['red', 'green', 'blue']));
});
console.log(`mosaic ${mosaicMp} MP: ${round(statSync(mosaic).size / 2 ** 20, 0)} MB as written, ${round(statSync(deflateCog.path).size / 2 ** 20, 0)} MB as a DEFLATE COG, ${round(statSync(jpegCog.path).size / 2 ** 20, 0)} MB as a JPEG COG; tileable as written: ${await isTileable(mosaic)}`);

/** Every tile from an empty block cache, wall and CPU time (the process's, libuv's threads included). */
async function coldTiles(raster: TileRaster, draw: (z: number, x: number, y: number) => Promise<unknown>) {
  const perZoom: Record<number, number[]> = {};
  const cpu: number[] = [];
  for (const z of ZOOMS) {
    perZoom[z] = [];
    for (let i = 0; i < TILES_PER_ZOOM; i++) {
      const [x, y] = randomTile(z);
      clearTileBlocks();
      const c = process.cpuUsage();
      const t = performance.now();
      await draw(z, x, y);
      perZoom[z].push(performance.now() - t);
      const used = process.cpuUsage(c);
      cpu.push((used.user + used.system) / 1000);
    }
  }
  return { perZoom, cpu };
}

/** Wall time of each stage of a cold tile, per zoom: the mean and p95 in ms. */
async function stageProfile(path: string, raster: TileRaster, style: TileStyle) {
  const profile: Record<number, Record<string, { mean: number; p95: number }>> = {};
  for (const z of STAGE_ZOOMS) {
    const times: Record<string, number[]> = Object.fromEntries(STAGES.map((s) => [s, []]));
    for (let i = 0; i < TILES_PER_ZOOM; i++) {
      const [x, y] = randomTile(z);
      clearTileBlocks();
      let t = performance.now();
      const lap = (stage: (typeof STAGES)[number]) => {
        const now = performance.now();
        times[stage]!.push(now - t);
        t = now;
      };
      await openTileRaster(path);
      lap('open');
      const plan = planTile(raster, z, x, y);
      lap('plan');
      const blocks = plan ? await loadTileBlocks(raster, plan) : null;
      lap('blocks');
      const rgba = plan && blocks ? paintTile(raster, plan, blocks, style) : null;
      lap('paint');
      await encodeTile(rgba, 'png');
      lap('encode');
    }
    profile[z] = Object.fromEntries(STAGES.map((s) => [s, { mean: round(times[s]!.reduce((a, b) => a + b, 0) / times[s]!.length, 2), p95: round(quantile(times[s]!, 0.95), 2) }]));
  }
  return profile;
}

/**
 * RSS across rounds of tiles drawn at once, new places each round, the caches kept (they are
 * bounded): rounds until the block cache is nine tenths full (JPEG blocks, smaller, take longer to
 * fill it), at least half of ROUNDS, then half of ROUNDS more, over which memory must stay flat.
 * Answers every round's RSS and the round from which it is measured.
 */
async function memoryRounds(draw: (z: number, x: number, y: number) => Promise<unknown>) {
  const rss: number[] = [rssMb()];
  const round = () => Promise.all(Array.from({ length: CONCURRENT }, () => {
    const z = ZOOMS[Math.floor(Math.random() * ZOOMS.length)]!;
    return draw(z, ...randomTile(z));
  }));
  const full = () => tileCacheUse().blockBytes >= 0.9 * tileCacheUse().blockBudget;
  while (rss.length <= ROUNDS / 2 || (!full() && rss.length <= 4 * ROUNDS)) {
    await round();
    rss.push(rssMb());
  }
  const settledAt = rss.length - 1;
  for (let r = 0; r < ROUNDS / 2; r++) {
    await round();
    rss.push(rssMb());
  }
  return { rss, settledAt };
}

const rows: Row[] = [];
const extra: Record<string, unknown> = { mosaic: { megapixels: mosaicMp, gsdM: GSD, bytes: statSync(mosaic).size } };
const loadBefore = loadavg()[0]!;
for (const [label, cog] of [['JPEG COG (drone mosaics)', jpegCog], ['DEFLATE COG (converted rasters)', deflateCog]] as const) {
  const t0 = performance.now();
  const raster = await openTileRaster(cog.path);
  const openMs = round(performance.now() - t0, 1);
  const style: TileStyle = { kind: 'rgb', samples: rgbSamples(raster) };
  const drawTile = async (z: number, x: number, y: number) => encodeTile(await renderTile(raster, z, x, y, style), 'png');
  const { perZoom, cpu } = await coldTiles(raster, drawTile);
  const all = Object.values(perZoom).flat();
  // The target spans zooms 14-22; the map itself stops at 21, reported beside it.
  const mapZooms = Object.entries(perZoom).filter(([z]) => Number(z) <= 21).flatMap(([, ms]) => ms);
  const p95 = round(quantile(all, 0.95), 1);
  const cpuP95 = round(quantile(cpu, 0.95), 1);
  const stages = await stageProfile(cog.path, raster, style);
  const { rss, settledAt } = await memoryRounds(drawTile);
  const settled = rss[settledAt]!;
  const last = rss.at(-1)!;
  const growth = round(((last - settled) / settled) * 100, 1);
  rows.push(
    { metric: `${label}: tile (256 px PNG), cold, zooms 14-22, p95`, value: p95, unit: 'ms', target: '< 40', ok: p95 < 40 },
    { metric: `${label}: tile, cold, zooms 14-21 (the map's), p95`, value: round(quantile(mapZooms, 0.95), 1), unit: 'ms' },
    { metric: `${label}: tile, cold, p50`, value: round(quantile(all, 0.5), 1), unit: 'ms' },
    // CPU of every thread (libvips and zlib beside the main one): the tile's cost, not its latency.
    { metric: `${label}: tile, cold, CPU time p95`, value: cpuP95, unit: 'ms' },
    { metric: `${label}: tile, cold, CPU time p50`, value: round(quantile(cpu, 0.5), 1), unit: 'ms' },
    { metric: `${label}: tile, cold, max`, value: round(Math.max(...all), 1), unit: 'ms' },
    { metric: `${label}: opening the COG (once per file)`, value: openMs, unit: 'ms' },
    { metric: `${label}: RSS growth over ${ROUNDS / 2} rounds of ${CONCURRENT} at once, block cache full`, value: growth, unit: '%', target: '< 10', ok: growth < 10 },
    { metric: `${label}: RSS after ${rss.length - 1} rounds`, value: last, unit: 'MB' },
    { metric: `${label}: RSS peak`, value: Math.max(...rss), unit: 'MB' },
  );
  extra[label] = {
    cogBytes: statSync(cog.path).size,
    levels: raster.levels.length,
    ...(cog.madeS === null ? {} : { madeS: cog.madeS }),
    p95PerZoom: Object.fromEntries(Object.entries(perZoom).map(([z, ms]) => [z, round(quantile(ms, 0.95), 1)])),
    stagesPerZoom: stages,
    rssMbPerRound: rss,
    rssSettledAtRound: settledAt,
    caches: tileCacheUse(),
  };
  console.log(`${label}: p95 per zoom (ms):`, Object.entries(perZoom).map(([z, ms]) => `${z}: ${round(quantile(ms, 0.95), 1)}`).join(', '));
  for (const [z, s] of Object.entries(stages)) console.log(`  z${z} stages mean (p95) ms:`, STAGES.map((st) => `${st} ${s[st]!.mean} (${s[st]!.p95})`).join(', '));
}
rows.push({ metric: 'load average (1 min) of the machine at the start', value: round(loadBefore, 1), unit: '' });
if (deflateCog.madeS !== null) rows.push({ metric: `copying the ${mosaicMp} MP mosaic to a DEFLATE COG (first tile of a mosaic without overviews)`, value: deflateCog.madeS, unit: 's' });
if (jpegCog.madeS !== null) rows.push({ metric: `writing the ${mosaicMp} MP mosaic as a JPEG COG`, value: jpegCog.madeS, unit: 's' });
writeResults('tiles', rows, extra);
printTable('Map tiles of a 250 MP mosaic', rows);
