// Coordinate systems of shapefiles: the .prj (ESRI or OGC WKT, or a bare EPSG code) to a proj4
// definition and a transformation to WGS84 lon/lat. Names and codes that EPSG knows resolve to the
// EPSG definition (with its datum shift, e.g. S-JTSK), which a WKT often lacks; anything else goes
// through proj4's own WKT parser.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import proj4 from 'proj4';
import { unprocessable } from '../errors';

export interface Crs {
  name: string;
  proj4: string;
  epsg?: number;
  /**
   * Coordinates written as southing, westing: S-JTSK's own axes (EPSG:5513, EPSG:2065 from Ferro,
   * ESRI's S-JTSK_Krovak), which proj4 cannot take. They are read as EPSG:5514's easting and
   * northing, negated.
   */
  southWest?: boolean;
}

let coordinateFrame: Set<string> | undefined;
/** epsg-index's shifts that EPSG states in the coordinate-frame convention (lib/geo/frame-rotations-cli.ts). */
const coordinateFrameShifts = () =>
  (coordinateFrame ??= new Set((JSON.parse(readFileSync(join(process.cwd(), 'lib', 'geo', 'frame-rotations.json'), 'utf8')) as { coordinate_frame: string[] }).coordinate_frame));

/**
 * A seven-parameter shift as epsg-index states it (EPSG's own numbers), in the position-vector
 * convention proj4 reads TOWGS84 in: a coordinate-frame transformation's rotations change sign.
 */
export function positionVector(shift: string): string {
  if (!coordinateFrameShifts().has(shift)) return shift;
  const p = shift.split(',');
  return [p[0], p[1], p[2], ...p.slice(3, 6).map((r) => String(-Number(r))), p[6]].join(',');
}

/** The proj4 definition of an EPSG code, with its datum shift in proj4's convention; undefined when epsg-index does not know it. */
export function epsgDefinition(code: number): string | undefined {
  if (!Number.isInteger(code) || code <= 0) return undefined;
  try {
    const def = JSON.parse(readFileSync(join(process.cwd(), 'node_modules', 'epsg-index', 's', `${code}.json`), 'utf8')) as { proj4?: string };
    return def.proj4?.replace(/\s*\+type=crs/, '').replace(/\+towgs84=(\S+)/, (_, shift: string) => `+towgs84=${positionVector(shift)}`) || undefined;
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

/** S-JTSK systems on Krovak's own south-west axes. */
const KROVAK_SOUTH_WEST = new Set([2065, 5513]);
/** ESRI's names for them, which carry no EPSG code (X_Scale -1 with a 90° turn makes ESRI's East North instead). */
const isEsriKrovakSouthWest = (name: string, wkt: string) =>
  /^S_JTSK_(?:FERRO_)?KROVAK$/.test(name.replace(/[\s-]+/g, '_').toUpperCase()) && !/"X_Scale"\s*,\s*-1/i.test(wkt);

let projectedByName: Map<string, number> | undefined;
/** A name as ESRI and EPSG both write it, compared: `Pulkovo_1942_Adj_1958_Poland_Zone_I` and `Pulkovo 1942(58) / Poland zone I`. */
const nameKey = (name: string) =>
  name
    .toLowerCase()
    .replace(/_adj_(?:19)?(\d\d)(?=_|$)/g, '_$1')
    .replace(/gauss.?kruger/g, 'gk')
    .replace(/[^a-z0-9]/g, '');

/** The EPSG code of a projected or geographic system by its name, for ESRI WKT, which names it without a code. */
function epsgByName(name: string): number | undefined {
  if (!projectedByName) {
    projectedByName = new Map();
    for (const [code, e] of Object.entries(epsgIndex())) {
      if ((e.kind === 'CRS-PROJCRS' || e.kind === 'CRS-GEOGCRS') && e.name && !projectedByName.has(nameKey(e.name))) projectedByName.set(nameKey(e.name), Number(code));
    }
  }
  return projectedByName.get(nameKey(name));
}

let index: Record<string, { kind?: string; wkt?: string; name?: string }> | undefined;
const epsgIndex = () => (index ??= JSON.parse(readFileSync(join(process.cwd(), 'node_modules', 'epsg-index', 'all.json'), 'utf8')) as Record<string, { kind?: string; wkt?: string; name?: string }>);

let shiftsByDatum: Map<string, string> | undefined;
// ESRI's `D_Hungarian_1972` is EPSG's `Hungarian Datum 1972`.
const datumKey = (name: string) => name.replace(/^D_/i, '').replace(/datum/gi, '').replace(/[^a-z0-9]/gi, '').toLowerCase();

/** EPSG's default shift to WGS84 for each datum name, from the geographic systems that state one. */
function datumShifts(): Map<string, string> {
  if (shiftsByDatum) return shiftsByDatum;
  shiftsByDatum = new Map();
  const all = epsgIndex();
  for (const code of Object.keys(all).sort((a, b) => Number(a) - Number(b))) {
    const e = all[code]!;
    if (e.kind !== 'CRS-GEOGCRS' || !e.wkt) continue;
    const m = /DATUM\["([^"]+)".*?TOWGS84\[([^\]]+)\]/.exec(e.wkt);
    if (m && !shiftsByDatum.has(datumKey(m[1]!))) shiftsByDatum.set(datumKey(m[1]!), positionVector(m[2]!.replace(/\s/g, '')));
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
  const code = authorities.length ? Number(authorities.at(-1)![1]) : (epsgFromName(name) ?? epsgByName(name));
  if ((code && KROVAK_SOUTH_WEST.has(code)) || (!authorities.length && isEsriKrovakSouthWest(name, wkt))) {
    return { name, proj4: epsgDefinition(5514)!, epsg: code && KROVAK_SOUTH_WEST.has(code) ? code : undefined, southWest: true };
  }
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
// Both in proj4's position-vector convention (epsgDefinition turns "(16)"'s coordinate-frame rotations).
const PULKOVO_USSR = '25,-141,-78.5,0,0.35,0.736,0';
const PULKOVO_RUSSIA = '23.57,-140.95,-79.8,0,0.35,0.79,-0.22';
const inRussiaBox = (lon: number, lat: number) => lat >= 41.18 && lat <= 81.91 && (lon >= 19.57 || lon <= -168.97);
const PULKOVO_SHIFT = new RegExp(`(\\+towgs84=|TOWGS84\\[)${PULKOVO_USSR.replace(/\./g, '\\.')}`);

/** The CRS with the datum shift that suits where the data lies (a point of it, in the CRS). */
export function crsForLocation<C extends { proj4: string; epsg?: number; southWest?: boolean }>(crs: C, sample: number[]): C {
  if ((crs.epsg === 5514 || crs.southWest) && /\+towgs84=/.test(crs.proj4)) {
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
export function toWgs84(crs: { proj4: string; southWest?: boolean }): (xy: number[]) => [number, number] {
  const converter = proj4(crs.proj4, 'EPSG:4326');
  const southWest = crs.southWest === true;
  return (xy) => {
    const [lon, lat] = converter.forward(southWest ? [-xy[1]!, -xy[0]!] : [xy[0]!, xy[1]!]);
    return [lon!, lat!];
  };
}
