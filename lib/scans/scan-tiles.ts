// Map tiles of a scan (docs/tiles.md): its drone orthomosaic (`ortho`) or its index (`index`, through
// the index's fixed ramp), drawn from the GeoTIFF the scan keeps, with an ETag that changes only
// when the file, the ramp or the renderer does.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { TenantDb } from '../db/tenant';
import { orthomosaicPath } from '../drone/files';
import { notFound } from '../errors';
import { tileablePath } from '../raster/cog';
import { indexRamp } from '../raster/ramp';
import { openTileRaster } from '../raster/tile-source';
import { TILE_FORMATS, type TileFormat, type TileStyle, encodeTile, isTile, renderTile, rgbSamples } from '../raster/tiles';
import { rasterIndexPlan } from '../raster/zones';
import { resolveDataPath } from '../uploads/data-path';
import { keptRaster } from './rezone';

export const TILE_LAYERS = ['ortho', 'index'] as const;
export type TileLayer = (typeof TILE_LAYERS)[number];

/** Bumped when the renderer paints differently, so browsers drop tiles they keep. */
const RENDER_VERSION = 1;
/** A day: a scan's rasters do not change, and the ETag revalidates a tile after that. */
export const TILE_MAX_AGE_S = 86_400;

export interface TileAddress {
  layer: TileLayer;
  z: number;
  x: number;
  y: number;
  format: TileFormat;
}

/** The tile a path names (`{layer}`, `{z}`, `{x}`, `{y}.png`); 404 `tile_not_found` for anything else. */
export function parseTileAddress(params: { layer?: unknown; z?: unknown; x?: unknown; y?: unknown }): TileAddress {
  const match = typeof params.y === 'string' ? /^(\d{1,8})\.(\w+)$/.exec(params.y) : null;
  const [z, x, y] = [params.z, params.x, match?.[1]].map((v) => (typeof v === 'string' && /^\d{1,8}$/.test(v) ? Number(v) : NaN));
  const layer = TILE_LAYERS.find((l) => l === params.layer);
  const format = TILE_FORMATS.find((f) => f === match?.[2]);
  if (!layer || !format || !isTile(z!, x!, y!)) throw notFound('tile_not_found');
  return { layer, z: z!, x: x!, y: y!, format };
}

export type ScanTile = { etag: string; notModified: true } | { etag: string; notModified: false; body: Buffer; contentType: string };

/**
 * The tile's bytes and ETag, or only the ETag when `ifNoneMatch` holds it (nothing is drawn then).
 * 404 for a scan of another company or none, and `scan_no_layer` for a layer the scan lacks.
 */
export async function scanTile(db: TenantDb, scanId: number, at: TileAddress, ifNoneMatch: string | null): Promise<ScanTile> {
  const { path, style } = await tileLayer(db, scanId, at.layer);
  const raster = await openTileRaster(path);
  const paint = style(raster);
  const ramp = paint.kind === 'index' ? [paint.ramp.min, paint.ramp.max] : [];
  const etag = `"${createHash('sha1').update(JSON.stringify([RENDER_VERSION, raster.key, at, ramp])).digest('base64url')}"`;
  if (ifNoneMatch && matchesEtag(ifNoneMatch, etag)) return { etag, notModified: true };
  const body = await encodeTile(await renderTile(raster, at.z, at.x, at.y, paint), at.format);
  return { etag, notModified: false, body, contentType: `image/${at.format}` };
}

/** RFC 9110 If-None-Match: `*`, or a list of tags compared weakly. */
export function matchesEtag(header: string, etag: string): boolean {
  const bare = (t: string) => t.trim().replace(/^W\//, '');
  return header.trim() === '*' || header.split(',').some((t) => bare(t) === etag);
}

type StyleOf = (raster: Awaited<ReturnType<typeof openTileRaster>>) => TileStyle;

/** Where a scan's layer is read from, and how it is painted. */
async function tileLayer(db: TenantDb, scanId: number, layer: TileLayer): Promise<{ path: string; style: StyleOf }> {
  const scan = await db.scan.findUnique({ where: { id: scanId }, select: { id: true, source: true, status: true, dataPath: true, indexName: true, statsJson: true } });
  if (!scan) throw notFound();
  if (scan.status !== 'completed' || !scan.dataPath) throw notFound('scan_no_layer');
  // Copies made for tiles lie in the scan's own folder, which goes with the scan.
  const tilesDir = join(dirname(resolveDataPath(scan.dataPath)), 'tiles');
  if (layer === 'ortho') {
    const mosaic = scan.source === 'drone' ? orthomosaicPath(dirname(resolveDataPath(scan.dataPath))) : null;
    if (!mosaic || !existsSync(mosaic)) throw notFound('scan_no_layer');
    return { path: await tileablePath(mosaic, tilesDir), style: (raster) => ({ kind: 'rgb', samples: rgbSamples(raster) }) };
  }
  const kept = await keptRaster(db, scan);
  if (!kept || !existsSync(kept.rasterPath)) throw notFound('scan_no_layer');
  const stats = scan.statsJson ? (JSON.parse(scan.statsJson) as { min?: number; max?: number }) : null;
  return {
    path: await tileablePath(kept.rasterPath, tilesDir),
    style: (raster) => {
      const plan = rasterIndexPlan(raster.raster, kept.options.index, kept.options.bandOrder);
      return { kind: 'index', samples: plan.samples, compute: plan.compute, ramp: indexRamp(scan.indexName, stats) };
    },
  };
}
