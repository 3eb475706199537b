// Zoning a 500 ha field on a ~1 GB tiled, deflate-compressed NDVI GeoTIFF built from the NAIP tile
// (GDAL tools build the input; the work runs in a child process whose peak RSS (VmHWM) is reported).
// GDAL's gdal_polygonize.py on the same field's classified raster is timed as a reference.
// Usage: npx tsx bench/raster-zones.ts [workdir]   (default /tmp/raster-zones-bench)
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import proj4 from 'proj4';
import { computeZones } from '@/lib/raster/zones';
import { sharedPath } from '@/tests/helpers/shared-data';

const NAIP = sharedPath('raster', 'naip', 'm_4709963_se_14_1_20190904.tif');
const UTM14 = '+proj=utm +zone=14 +datum=NAD83 +units=m +no_defs';
const PIXEL_M = 0.22;

function peakRssMb(): number {
  const kb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]);
  return kb / 1024;
}

/** A 2236 m square (500 ha) in the middle of the NAIP tile, as lon/lat. */
function field500ha() {
  const [cx, cy] = [488234, 5207438];
  const h = Math.sqrt(5_000_000) / 2;
  const ring = [[cx - h, cy - h], [cx + h, cy - h], [cx + h, cy + h], [cx - h, cy + h], [cx - h, cy - h]].map((p) => proj4(UTM14, 'WGS84', p));
  return { type: 'Polygon' as const, coordinates: [ring] };
}

async function worker(tif: string): Promise<void> {
  const t0 = performance.now();
  // Seconds at which each step started: reading, classifying, zoning (smooth, merge, polygonize, clip).
  const phases: Record<string, number> = {};
  const result = await computeZones(tif, field500ha(), { zones: 5, method: 'jenks', minZoneAreaHa: 0.1 }, (_, step) => {
    phases[step] ??= (performance.now() - t0) / 1000;
  });
  const seconds = (performance.now() - t0) / 1000;
  const areaHa = result.zones.reduce((s, z) => s + z.areaHa, 0);
  console.log(JSON.stringify({ seconds, phases, peakRssMb: peakRssMb(), zones: result.zones.length, areaHa, validAreaHa: result.validAreaHa, cellFactor: result.cellFactor, stats: result.stats }));
}

function buildInput(dir: string): string {
  const big = join(dir, 'ndvi-big.tif');
  if (existsSync(big)) return big;
  const ndvi = join(dir, 'ndvi.tif');
  execFileSync('gdal_calc.py', ['-A', NAIP, '--A_band=1', '-B', NAIP, '--B_band=4', '--type=Float32', '--NoDataValue=-2', '--overwrite', '--quiet',
    '--calc=numpy.where((A>0)*(B>0),(B.astype(float)-A)/(B.astype(float)+A+1e-9),-2)', `--outfile=${ndvi}`]);
  execFileSync('gdalwarp', ['-q', '-overwrite', '-tr', String(PIXEL_M), String(PIXEL_M), '-r', 'bilinear', '-co', 'TILED=YES', '-co', 'BLOCKXSIZE=512',
    '-co', 'BLOCKYSIZE=512', '-co', 'COMPRESS=DEFLATE', '-co', 'BIGTIFF=YES', '-wm', '512', '-multi', ndvi, big]);
  return big;
}

/** The field's window at the same cell size, classified in 5 equal classes, polygonized by GDAL. */
function gdalReference(dir: string, big: string, cellFactor: number, min: number, max: number): number {
  const [cx, cy] = [488234, 5207438];
  const h = Math.sqrt(5_000_000) / 2;
  const win = join(dir, 'window.tif');
  const classes = join(dir, 'classes.tif');
  const gpkg = join(dir, 'zones.gpkg');
  const cell = PIXEL_M * cellFactor;
  execFileSync('gdalwarp', ['-q', '-overwrite', '-te', String(cx - h), String(cy - h), String(cx + h), String(cy + h), '-tr', String(cell), String(cell), '-r', 'average', big, win]);
  const step = (max - min) / 5;
  const calc = `numpy.where(A<-1,0,1+(A>=${min + step})+(A>=${min + 2 * step})+(A>=${min + 3 * step})+(A>=${min + 4 * step}))`;
  execFileSync('gdal_calc.py', ['-A', win, '--type=Byte', '--NoDataValue=0', '--overwrite', '--quiet', `--calc=${calc}`, `--outfile=${classes}`]);
  rmSync(gpkg, { force: true });
  const t0 = performance.now();
  execFileSync('gdal_polygonize.py', ['-q', '-overwrite', classes, '-f', 'GPKG', gpkg, 'zones', 'class']);
  return (performance.now() - t0) / 1000;
}

async function main(): Promise<void> {
  if (process.argv[2] === '--worker') return worker(process.argv[3]!);
  const dir = process.argv[2] ?? '/tmp/raster-zones-bench';
  mkdirSync(dir, { recursive: true });
  const tb = performance.now();
  const reusedInput = existsSync(join(dir, 'ndvi-big.tif'));
  const big = buildInput(dir);
  const buildSeconds = (performance.now() - tb) / 1000;
  const fileMb = statSync(big).size / 2 ** 20;
  const child = spawnSync(process.execPath, [...process.execArgv, import.meta.filename, '--worker', big], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (child.status !== 0) throw new Error(`worker failed: ${child.stderr}`);
  const work = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as { seconds: number; peakRssMb: number; cellFactor: number; stats: { min: number; max: number } };
  const gdalSeconds = gdalReference(dir, big, work.cellFactor, work.stats.min, work.stats.max);
  const result = {
    input: { path: big, fileMb, pixelM: PIXEL_M, buildSeconds, reusedInput },
    ...work,
    gdalPolygonizeSeconds: gdalSeconds,
    ratioToGdalPolygonize: work.seconds / gdalSeconds,
    targets: { seconds: 90, peakRssMb: 600 },
    withinTargets: work.seconds < 90 && work.peakRssMb < 600,
  };
  mkdirSync(join(import.meta.dirname, 'results'), { recursive: true });
  writeFileSync(join(import.meta.dirname, 'results', 'raster-zones.json'), JSON.stringify(result, null, 2) + '\n');
  console.log(JSON.stringify(result, null, 2));
}

await main();
