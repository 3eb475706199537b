// Importing a large shapefile through POST /upload: ~100,000 real Slovak LPIS parcels (S-JTSK/Krovak,
// CP1252), made by copying the 100 parcels of sk_lpis_2024 on a grid, zipped. Reports the server's
// wall time, CPU time and peak RSS (the highest VmHWM of the server's processes: the one that took
// the upload), and GDAL's ogr2ogr converting the same archive to GeoJSON in WGS84 as a reference.
// Usage: npx tsx bench/shapefile.ts [copies]   (default 1000 copies = 100,000 parcels)
import { execFileSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, openAsBlob, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import { scratchSqlite } from '../lib/db/scratch';
import { registerCompany } from '../tests/helpers/company';
import { peakProcessRssMb, treeCpuMs } from '../tests/helpers/proc';
import { startServer } from '../tests/helpers/server';
import { sharedPath } from '../tests/helpers/shared-data';
import { type Row, printTable, round, writeResults } from './lib';

const COPIES = Number(process.argv[2] ?? 1000);
const DIR = `/tmp/shapefile-bench-${COPIES}`;
const SOURCE = sharedPath('vector', 'lpis', 'sk_lpis_2024.zip');

async function buildInput(): Promise<string> {
  const zip = join(DIR, 'parcels.zip');
  if (existsSync(zip)) return zip;
  rmSync(DIR, { recursive: true, force: true });
  mkdirSync(DIR, { recursive: true });
  // Plain GeoJSON keeps the source's Krovak coordinates (GeoJSONSeq would turn them to WGS84).
  const source = join(DIR, 'source.geojson');
  const shp = execFileSync('unzip', ['-Z1', SOURCE], { encoding: 'utf8' }).split('\n').find((n) => n.endsWith('.shp'))!;
  execFileSync('ogr2ogr', ['-f', 'GeoJSON', source, `/vsizip/${SOURCE}/${shp}`]);
  const features = JSON.parse(readFileSync(source, 'utf8')).features;
  // Copies shifted on a grid of 2 km x 1 km steps, so all stay in Slovakia (the copies overlap one
  // another, which an import allows within one file).
  const side = Math.ceil(Math.sqrt(COPIES));
  const out = createWriteStream(join(DIR, 'copies.geojsonl'));
  for (let c = 0; c < COPIES; c++) {
    const [dx, dy] = [(c % side) * 2000 - 1000 * side, Math.floor(c / side) * 1000 - 500 * side];
    for (const f of features) {
      const move = (ring: number[][]) => ring.map(([x, y]) => [x! + dx, y! + dy]);
      const g = f.geometry;
      const coordinates = g.type === 'Polygon' ? g.coordinates.map(move) : g.coordinates.map((p: number[][][]) => p.map(move));
      if (!out.write(JSON.stringify({ type: 'Feature', properties: f.properties, geometry: { type: g.type, coordinates } }) + '\n')) await once(out, 'drain');
    }
  }
  out.end();
  await once(out, 'finish');
  const layerDir = join(DIR, 'layer');
  mkdirSync(layerDir);
  execFileSync('ogr2ogr', ['-f', 'ESRI Shapefile', join(layerDir, 'parcels.shp'), join(DIR, 'copies.geojsonl'), '-a_srs', 'EPSG:5514', '-lco', 'ENCODING=CP1252', '-nlt', 'PROMOTE_TO_MULTI']);
  execFileSync('zip', ['-q', '-j', zip, ...['shp', 'shx', 'dbf', 'prj', 'cpg'].map((e) => join(layerDir, `parcels.${e}`)).filter(existsSync)]);
  return zip;
}


async function main() {
  const t0 = performance.now();
  const zip = await buildInput();
  const buildSeconds = (performance.now() - t0) / 1000;
  const zipMb = statSync(zip).size / 2 ** 20;
  const shpMb = (Number(execFileSync('unzip', ['-l', zip], { encoding: 'utf8' }).trim().split('\n').at(-1)!.trim().split(/\s+/)[0]) || 0) / 2 ** 20;

  const scratch = scratchSqlite();
  const server = await startServer({ env: { ...scratch.env, LOG_LEVEL: 'error' } });
  try {
    const { api } = await registerCompany(server.url);
    const rssBefore = peakProcessRssMb(server.proc.pid!);
    const form = new FormData();
    form.append('shapefile_zip', await openAsBlob(zip), 'parcels.zip');
    // CPU of all the server's processes and their threads: a figure others' work on the machine changes less than the wall time.
    const cpuBefore = treeCpuMs(server.proc.pid!) / 1000;
    const t = performance.now();
    const res = await api.request('POST', '/upload', form);
    const seconds = (performance.now() - t) / 1000;
    const cpu = treeCpuMs(server.proc.pid!) / 1000 - cpuBefore;
    if (res.status !== 200) throw new Error(`upload answered ${res.status}: ${res.text.slice(0, 500)}`);
    const peak = peakProcessRssMb(server.proc.pid!);

    const gdalOut = join(DIR, 'gdal.geojson');
    rmSync(gdalOut, { force: true });
    const tg = performance.now();
    execFileSync('ogr2ogr', ['-f', 'GeoJSON', gdalOut, `/vsizip/${zip}/parcels.shp`, '-t_srs', 'EPSG:4326']);
    const gdalSeconds = (performance.now() - tg) / 1000;

    const rows: Row[] = [
      { metric: `parcels in the archive`, value: COPIES * 100, unit: '' },
      { metric: 'archive size (zipped)', value: round(zipMb, 1), unit: 'MB' },
      { metric: 'shapefile size (unzipped .shp+.dbf+...)', value: round(shpMb, 1), unit: 'MB' },
      { metric: 'fields created', value: res.body.fields_created, unit: '' },
      { metric: 'import through POST /upload', value: round(seconds, 1), unit: 's', target: '< 30', ok: seconds < 30 },
      { metric: 'server CPU time during the import', value: round(cpu, 1), unit: 's' },
      { metric: 'server peak RSS (VmHWM)', value: round(peak, 0), unit: 'MB', target: '< 600', ok: peak < 600 },
      { metric: 'server RSS before the upload', value: round(rssBefore, 0), unit: 'MB' },
      { metric: 'reference: ogr2ogr to GeoJSON (WGS84)', value: round(gdalSeconds, 1), unit: 's' },
    ];
    writeResults('shapefile', rows, { buildSeconds, copies: COPIES, crs: res.body.crs, encoding: res.body.encoding });
    printTable('Shapefile import', rows);
  } finally {
    await server.stop();
    await scratch.drop();
  }
}

await main();
