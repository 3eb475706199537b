// Coordinate systems of shapefiles: the .prj (ESRI or OGC WKT, or a bare EPSG code) to a proj4
// definition and a transformation to WGS84 lon/lat. Names and codes that EPSG knows resolve to the
// EPSG definition (with its datum shift, e.g. S-JTSK), which a WKT often lacks; anything else goes
// through proj4's own WKT parser.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import proj4 from 'proj4';
import { unprocessable } from '../http/errors';

export interface Crs {
  name: string;
  proj4: string;
  epsg?: number;
}

export function epsgDefinition(code: number): string | undefined {
  try {
    const def = JSON.parse(readFileSync(join(process.cwd(), 'node_modules', 'epsg-index', 's', `${code}.json`), 'utf8')) as { proj4?: string };
    return def.proj4?.replace(/\s*\+type=crs/, '');
  } catch {
    return undefined;
  }
}

/** EPSG codes for the names ESRI and OGC WKT give common systems. */
function epsgFromName(name: string): number | undefined {
  const n = name.replace(/[\s-]+/g, '_').toUpperCase();
  let m = /^(?:WGS_1984|WGS_84|WGS84)_UTM_ZONE_(\d{1,2})([NS])$/.exec(n);
  if (m) return (m[2] === 'N' ? 32600 : 32700) + Number(m[1]);
  m = /^(?:ETRS_1989|ETRS89)_UTM_ZONE_(?:N)?(\d{1,2})N?$/.exec(n);
  if (m) return 25800 + Number(m[1]);
  if (/^S_JTSK_KROVAK_EAST_NORTH$/.test(n) || /^S_JTSK_\/?_?KROVAK_EAST_NORTH$/.test(n)) return 5514;
  if (/^(GCS_)?(WGS_1984|WGS_84|WGS84)$/.test(n)) return 4326;
  if (/^(GCS_)?(ETRS_1989|ETRS89)$/.test(n)) return 4258;
  return undefined;
}

let shiftsByDatum: Map<string, string> | undefined;
const datumKey = (name: string) => name.replace(/^D_/i, '').replace(/[^a-z0-9]/gi, '').toLowerCase();

/** EPSG's default shift to WGS84 for each datum name, from the geographic systems that state one. */
function datumShifts(): Map<string, string> {
  if (shiftsByDatum) return shiftsByDatum;
  shiftsByDatum = new Map();
  const all = JSON.parse(readFileSync(join(process.cwd(), 'node_modules', 'epsg-index', 'all.json'), 'utf8')) as Record<string, { kind?: string; wkt?: string }>;
  for (const code of Object.keys(all).sort((a, b) => Number(a) - Number(b))) {
    const e = all[code]!;
    if (e.kind !== 'CRS-GEOGCRS' || !e.wkt) continue;
    const m = /DATUM\["([^"]+)".*?TOWGS84\[([^\]]+)\]/.exec(e.wkt);
    if (m && !shiftsByDatum.has(datumKey(m[1]!))) shiftsByDatum.set(datumKey(m[1]!), m[2]!);
  }
  return shiftsByDatum;
}

/**
 * ESRI WKT never carries TOWGS84, so a system EPSG has no code for here (Pulkovo Gauss-Kruger as
 * ESRI names it, Russian MSK zones) would lose its datum shift: hundreds of metres. The datum's name
 * finds EPSG's default shift, as GDAL does.
 */
export function withDatumShift(wkt: string): string {
  if (/TOWGS84/i.test(wkt)) return wkt;
  const datum = /DATUM\s*\[\s*"([^"]+)"\s*,\s*SPHEROID\s*\[[^\]]*\]/i.exec(wkt);
  const shift = datum ? datumShifts().get(datumKey(datum[1]!)) : undefined;
  if (!datum || !shift || /^0(,0)*$/.test(shift.replace(/\s/g, ''))) return wkt;
  return wkt.replace(datum[0], `${datum[0]},TOWGS84[${shift}]`);
}

export function crsFromPrj(text: string): Crs {
  const wkt = text.trim().replace(/^\uFEFF/, '');
  const bare = /^(?:EPSG:)?(\d{4,6})$/i.exec(wkt);
  if (bare) {
    const code = Number(bare[1]);
    const def = epsgDefinition(code);
    if (!def) throw unprocessable('shp_bad_prj', { detail: `EPSG:${code}` });
    return { name: `EPSG:${code}`, proj4: def, epsg: code };
  }
  const name = /^(?:PROJCS|GEOGCS|PROJCRS|GEOGCRS|GEODCRS)\s*\[\s*"([^"]+)"/i.exec(wkt)?.[1] ?? 'unknown';
  // The outermost authority is the last one in WKT1 and the last ID in WKT2.
  const authorities = [...wkt.matchAll(/(?:AUTHORITY|ID)\s*\[\s*"EPSG"\s*,\s*"?(\d+)"?\s*\]/gi)];
  const code = authorities.length ? Number(authorities.at(-1)![1]) : epsgFromName(name);
  const def = code ? epsgDefinition(code) : undefined;
  if (code && def) return { name, proj4: def, epsg: code };
  const withShift = withDatumShift(wkt);
  try {
    proj4(withShift, 'EPSG:4326', [0, 0]);
    return { name, proj4: withShift };
  } catch {
    throw unprocessable('shp_bad_prj', { detail: name });
  }
}

// S-JTSK has national 7-parameter shifts to WGS84 (EPSG "S-JTSK to WGS 84 (4)" for Slovakia, "(5)"
// for Czechia, 1 m); PROJ picks the one whose area holds the data, and so do we. The border is taken
// as the line from Kúty (16.94 E, 48.62 N) to the Bílé Karpaty (18.85 E, 49.52 N).
const SJTSK_SLOVAKIA = '+towgs84=485,169.5,483.8,7.786,4.398,4.103,0';
const SJTSK_CZECHIA = '+towgs84=572.213,85.334,461.94,4.9732,1.529,5.2484,3.5378';
const inSlovakia = (lon: number, lat: number) => lon > 18.85 || (lon >= 16.84 && lat < 48.62 + ((lon - 16.94) * 0.9) / 1.91);

// Pulkovo 1942 has one shift for the whole former USSR ("(16)", 4.5 m) and a better one for Russia
// ("(20)", 3 m). PROJ, and so GDAL, prefers the latter wherever the data lies within the bounding
// box of Russia's area of use (which takes in Ukraine and Kazakhstan too): so do we, to agree with it.
// epsg-index states "(16)" with the rotations of the coordinate-frame convention; proj4 reads
// TOWGS84 as position vector, so they are given here with their signs turned.
const PULKOVO_EPSG_INDEX = ['25', '-141', '-78.5', '0', '-0.35', '-0.736', '0'];
const PULKOVO_USSR = '25,-141,-78.5,0,0.35,0.736,0';
const PULKOVO_RUSSIA = '23.57,-140.95,-79.8,0,0.35,0.79,-0.22';
const inRussiaBox = (lon: number, lat: number) => lat >= 41.18 && lat <= 81.91 && (lon >= 19.57 || lon <= -168.97);
const PULKOVO_SHIFT = new RegExp(`(\\+towgs84=|TOWGS84\\[)${PULKOVO_EPSG_INDEX.join(',').replace(/\./g, '\\.')}`);

/** The CRS with the datum shift that suits where the data lies (a point of it, in the CRS). */
export function crsForLocation(crs: Crs, sample: number[]): Crs {
  if (crs.epsg === 5514 && /\+towgs84=/.test(crs.proj4)) {
    const [lon, lat] = toWgs84(crs)(sample);
    const shift = inSlovakia(lon, lat) ? SJTSK_SLOVAKIA : SJTSK_CZECHIA;
    return { ...crs, proj4: crs.proj4.replace(/\+towgs84=\S+/, shift) };
  }
  if (PULKOVO_SHIFT.test(crs.proj4)) {
    const [lon, lat] = toWgs84(crs)(sample);
    return { ...crs, proj4: crs.proj4.replace(PULKOVO_SHIFT, `$1${inRussiaBox(lon, lat) ? PULKOVO_RUSSIA : PULKOVO_USSR}`) };
  }
  return crs;
}

/** A function from the CRS's coordinates to [lon, lat]. */
export function toWgs84(crs: Crs): (xy: number[]) => [number, number] {
  const converter = proj4(crs.proj4, 'EPSG:4326');
  return (xy) => {
    const [lon, lat] = converter.forward([xy[0]!, xy[1]!]);
    return [lon!, lat!];
  };
}
