// Small shapefile archives made in the test: GeoJSON written as a shapefile by GDAL's ogr2ogr (the
// reference implementation, from Debian's gdal-bin), then zipped, with parts left out or broken at will.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import JSZip from 'jszip';

export interface ShapefileOptions {
  /** Features in lon/lat (EPSG:4326). */
  features: { geometry: object; properties?: Record<string, string | number | null> }[];
  /** Written in this CRS (ogr2ogr -t_srs), e.g. 'EPSG:32633'. */
  srs?: string;
  /** DBF code page (ogr2ogr -lco ENCODING=...). */
  encoding?: string;
  layer?: string;
  /** Extensions to leave out of the archive ('prj', 'dbf', ...). */
  omit?: string[];
  /** Replace a part's content: { prj: 'garbage' }. */
  replace?: Record<string, string | Uint8Array>;
  /** Folder inside the archive. */
  folder?: string;
}

export function ogr2ogrAvailable(): boolean {
  try {
    execFileSync('ogr2ogr', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export async function shapefileZip(opts: ShapefileOptions): Promise<Uint8Array> {
  const dir = mkdtempSync(join(tmpdir(), 'shp-make-'));
  try {
    const layer = opts.layer ?? 'fields';
    const src = join(dir, 'in.geojson');
    writeFileSync(src, JSON.stringify({ type: 'FeatureCollection', features: opts.features.map((f) => ({ type: 'Feature', properties: f.properties ?? {}, geometry: f.geometry })) }));
    const out = join(dir, 'out');
    // GeoJSON strings like '7:1' would otherwise be read as times.
    const args = ['-f', 'ESRI Shapefile', out, src, '-nln', layer, '-s_srs', 'EPSG:4326', '-t_srs', opts.srs ?? 'EPSG:4326', '-oo', 'DATE_AS_STRING=YES'];
    if (opts.encoding) args.push('-lco', `ENCODING=${opts.encoding}`);
    execFileSync('ogr2ogr', args, { stdio: 'pipe' });
    const zip = new JSZip();
    for (const name of readdirSync(out)) {
      const ext = name.split('.').pop()!.toLowerCase();
      if (opts.omit?.includes(ext)) continue;
      zip.file(`${opts.folder ? `${opts.folder}/` : ''}${name}`, opts.replace?.[ext] ?? readFileSync(join(out, name)));
    }
    return await zip.generateAsync({ type: 'uint8array', compression: 'DEFLATE' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A square of about `sizeM` metres at lon/lat. */
export function square(lon: number, lat: number, sizeM = 100) {
  const dLat = sizeM / 111_320;
  const dLon = sizeM / (111_320 * Math.cos((lat * Math.PI) / 180));
  return { type: 'Polygon', coordinates: [[[lon, lat], [lon + dLon, lat], [lon + dLon, lat + dLat], [lon, lat + dLat], [lon, lat]]] };
}
