// Which band is which, and how a vegetation index is computed from them.
import { z } from 'zod';
import { unprocessable } from '@/lib/errors';

export type BandRole = 'blue' | 'green' | 'red' | 'rededge' | 'nir' | 'swir1' | 'swir2' | 'other';
/** The indexes computed from two bands; `auto` takes the first the bands allow, in this order. */
export const INDEX_NAMES = ['auto', 'ndvi', 'ndre', 'gndvi'] as const;
export type IndexName = (typeof INDEX_NAMES)[number];

/** Normalized differences: (a - b) / (a + b). */
const FORMULAS: Record<Exclude<IndexName, 'auto'>, [BandRole, BandRole]> = {
  ndvi: ['nir', 'red'],
  ndre: ['nir', 'rededge'],
  gndvi: ['nir', 'green'],
};

export interface IndexPlan {
  name: string;
  /** Sample indices to read: one for a single-band index, two (a, b) for a normalized difference. */
  samples: number[];
  /** Turns the raw sample values of one pixel into the index (NaN when it cannot be computed). */
  compute: (a: number, b: number) => number;
}

// 4-band aerial cameras (NAIP) store R,G,B,NIR; 5-band drone cameras (DJI P4M, MicaSense) B,G,R,RE,NIR.
const DEFAULT_ORDER: Record<number, BandRole[]> = {
  4: ['red', 'green', 'blue', 'nir'],
  5: ['blue', 'green', 'red', 'rededge', 'nir'],
};

/**
 * Satellite band numbers as their products name them (`B4`, `B04`, `B8A`; Landsat 8-9 collection
 * 2 as `SR_B5`): Sentinel-2's, unless the name is Landsat's.
 */
const SENTINEL2: Record<string, BandRole> = { 2: 'blue', 3: 'green', 4: 'red', 5: 'rededge', 6: 'rededge', 7: 'rededge', 8: 'nir', '8a': 'nir', 11: 'swir1', 12: 'swir2' };
const LANDSAT89: Record<string, BandRole> = { 2: 'blue', 3: 'green', 4: 'red', 5: 'nir', 6: 'swir1', 7: 'swir2' };

/** Reads a band's role from a description such as "NIR", "Red Edge", "B4 (red)", "B08", "SR_B5". */
export function roleFromName(name: string): BandRole {
  const s = name.toLowerCase().trim();
  const numbered = /^(sr_)?b0?(\d{1,2}a?)$/.exec(s);
  if (numbered) return (numbered[1] ? LANDSAT89 : SENTINEL2)[numbered[2]!] ?? 'other';
  if (/swir.?2|swir2/.test(s)) return 'swir2';
  if (/swir/.test(s)) return 'swir1';
  if (/red.?edge|^re$|\bre\b/.test(s)) return 'rededge';
  // Before red: "Infrared" and "near infrared" contain it.
  if (/nir|infra|^n$/.test(s)) return 'nir';
  if (/red|^r$/.test(s)) return 'red';
  if (/green|^g$/.test(s)) return 'green';
  if (/blue|^b$/.test(s)) return 'blue';
  return 'other';
}

/**
 * A band order as a person writes it: band names or roles separated by commas (`swir1,nir,red,green`,
 * `B4,B3,B2,B8`; `other` for a band that takes no part). 422 `raster_band_order` naming the roles.
 */
export const bandOrder = z
  .string()
  .transform((text, ctx) => {
    const tokens = text.split(',').map((t) => t.trim());
    const roles = tokens.map((t) => (/^(other|-)$/i.test(t) ? 'other' : roleFromName(t)));
    if (tokens.some((t, i) => !t || (roles[i] === 'other' && !/^(other|-)$/i.test(t)))) {
      ctx.addIssue({ code: 'custom', params: { key: 'raster_band_order' } });
      return z.NEVER;
    }
    return roles as BandRole[];
  });

/** Where a raster's band order came from: the `bands` part, the file's own band descriptions or colour interpretations, or the usual order for the count. */
export type BandOrderSource = 'given' | 'file' | 'assumed';

export interface BandOrder {
  roles: BandRole[];
  source: BandOrderSource;
}

/**
 * Band roles: explicit order, else the file's band descriptions, else its GDAL colour
 * interpretations (GDAL 3.10 writes `NIR`, `RedEdge`, `SWIR` beside `Red`, `Green`, `Blue`), else the
 * usual order for the band count; undefined when none applies. The TIFF's Photometric tag is not
 * read: writers set RGB on any 3-or-more-band file (the Landsat tile here is SWIR1,NIR,Red,Green
 * tagged RGB).
 */
export function bandOrderOf(bands: number, names?: string[], order?: BandRole[], colorInterps?: Array<string | undefined>): BandOrder | undefined {
  if (order) return order.length === bands ? { roles: order, source: 'given' } : undefined;
  for (const labels of [names, colorInterps]) {
    const fromFile = labels?.length === bands ? labels.map((l) => (l ? roleFromName(l) : 'other')) : undefined;
    if (fromFile?.some((r) => r === 'nir')) return { roles: fromFile, source: 'file' };
  }
  const usual = DEFAULT_ORDER[bands];
  return usual ? { roles: usual, source: 'assumed' } : undefined;
}

/** Band roles: explicit order, else descriptions, else the usual order for the band count. */
export function bandRoles(bands: number, names?: string[], order?: BandRole[]): BandRole[] | undefined {
  return bandOrderOf(bands, names, order)?.roles;
}

export interface SingleBandScaling {
  sampleFormat: number; // 1 uint, 2 int, 3 float
  bitsPerSample: number;
  scale?: number;
  offset?: number;
}

/** How a single-band index's stored numbers were turned into the index. */
export type IndexEncoding = 'float' | 'file_scale' | 'int_x10000';

/**
 * A single band's index named by its description (GDAL's band description, `NDVI`), when that is a
 * short name: the description is the file maker's free text, shown on pages and in reports.
 */
function indexNameOf(bandName: string | undefined): string {
  const name = bandName?.trim().toLowerCase() ?? '';
  return /^[a-z][a-z0-9_-]{0,15}$/.test(name) ? name : 'index';
}

/**
 * How to get the index out of the file. A single band is the index itself: floating point as it
 * is, integers by the file's scale/offset metadata or, without them, only signed integers by the
 * x10000 convention (MODIS, VIIRS, Landsat and Sentinel-2 index products); unsigned integers
 * without a scale are written in too many scales (0..255 for -1..1, NDVI x 100, DN/250 - 0.08) to
 * guess, and answer 422 `raster_index_scale_unknown`. Several bands compute a normalized difference;
 * when the bands are known but the index needs one they do not have, 422 `raster_band_missing`.
 */
export function indexPlan(
  bands: number,
  requested: IndexName,
  roles: BandRole[] | undefined,
  single: SingleBandScaling,
  bandName?: string,
  /** Each band's scale and offset from the file's metadata, turning its counts into reflectance. */
  bandScaling: { scale?: number; offset?: number }[] = [],
  /** Whether `roles` were given, read from the file or assumed (for the message when a band is missing). */
  source?: BandOrderSource,
): IndexPlan & { encoding?: IndexEncoding } {
  if (bands === 1) {
    const { scale, offset, encoding } = singleBandScale(single);
    const name = requested !== 'auto' ? requested : indexNameOf(bandName);
    return { name, samples: [0], compute: (a) => a * scale + offset, encoding };
  }
  // A single band is the index itself, under any name; several bands need a formula we know.
  if (requested !== 'auto' && !Object.hasOwn(FORMULAS, requested)) throw unprocessable('raster_index_unknown', { index: requested, known: Object.keys(FORMULAS).join(', ') });
  const wanted = requested === 'auto' ? (['ndvi', 'ndre', 'gndvi'] as const) : ([requested] as const);
  for (const name of wanted) {
    const [ra, rb] = FORMULAS[name];
    const ia = roles?.indexOf(ra) ?? -1;
    const ib = roles?.indexOf(rb) ?? -1;
    if (ia >= 0 && ib >= 0) {
      // Counts with an offset (Sentinel-2's BOA_ADD_OFFSET since 2022) give a ratio only as reflectance.
      const [sa = 1, oa = 0] = [bandScaling[ia]?.scale, bandScaling[ia]?.offset];
      const [sb = 1, ob = 0] = [bandScaling[ib]?.scale, bandScaling[ib]?.offset];
      const plain = sa === 1 && oa === 0 && sb === 1 && ob === 0;
      const ratio = (a: number, b: number) => (a + b > 0 ? (a - b) / (a + b) : NaN);
      return { name, samples: [ia, ib], compute: plain ? ratio : (a, b) => ratio(a * sa + oa, b * sb + ob) };
    }
  }
  // The bands are known (given, described or the usual order) and lack one the index needs: say
  // which, not that the order is unknown.
  if (roles) {
    const name = wanted[0];
    const missing = FORMULAS[name].find((r) => !roles.includes(r))!;
    throw unprocessable('raster_band_missing', { index: name, missing, order: roles.join(', '), source: source ?? 'given' });
  }
  throw unprocessable('raster_bands_unknown', { bands, index: requested });
}

/** The water test's own index: which samples, and the normalized difference of them (`a` green). */
export interface WaterPlan {
  name: 'mndwi' | 'ndwi';
  samples: [number, number];
  compute: (a: number, b: number) => number;
}

/**
 * The water index the bands allow: MNDWI (green, SWIR1; Xu 2006) where there is a SWIR band, as it
 * also finds turbid rivers, else NDWI (green, NIR; McFeeters 1996); undefined without green.
 */
export function waterPlan(roles: BandRole[] | undefined, bandScaling: { scale?: number; offset?: number }[] = []): WaterPlan | undefined {
  const green = roles?.indexOf('green') ?? -1;
  if (!roles || green < 0) return undefined;
  const swir = roles.indexOf('swir1');
  const [name, other] = swir >= 0 ? (['mndwi', swir] as const) : (['ndwi', roles.indexOf('nir')] as const);
  if (other < 0) return undefined;
  const [sa = 1, oa = 0] = [bandScaling[green]?.scale, bandScaling[green]?.offset];
  const [sb = 1, ob = 0] = [bandScaling[other]?.scale, bandScaling[other]?.offset];
  return { name, samples: [green, other], compute: (a, b) => normalizedDifference(a * sa + oa, b * sb + ob) };
}

const normalizedDifference = (a: number, b: number) => (a + b > 0 ? (a - b) / (a + b) : NaN);

const INTEGER_TYPE: Record<string, string> = { '1/8': 'Byte', '1/16': 'UInt16', '1/32': 'UInt32', '2/8': 'Int8', '2/16': 'Int16', '2/32': 'Int32' };

function singleBandScale({ sampleFormat, bitsPerSample, scale, offset }: SingleBandScaling): { scale: number; offset: number; encoding: IndexEncoding } {
  if (scale !== undefined || offset !== undefined) return { scale: scale ?? 1, offset: offset ?? 0, encoding: 'file_scale' };
  if (sampleFormat === 3) return { scale: 1, offset: 0, encoding: 'float' };
  // Signed: the common x10000 encoding (MODIS, Sentinel L2 products). Unsigned: no one convention.
  if (sampleFormat === 2 && bitsPerSample >= 16) return { scale: 1 / 10_000, offset: 0, encoding: 'int_x10000' };
  throw unprocessable('raster_index_scale_unknown', { type: integerTypeName(sampleFormat, bitsPerSample) });
}

/** GDAL's name of an integer sample type (`Byte`, `Int16`). */
export const integerTypeName = (sampleFormat: number, bitsPerSample: number) => INTEGER_TYPE[`${sampleFormat}/${bitsPerSample}`] ?? `${bitsPerSample}-bit`;
