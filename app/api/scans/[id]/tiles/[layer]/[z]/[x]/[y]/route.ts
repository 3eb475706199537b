import { TILE_MAX_AGE_S, parseTileAddress, scanTile } from '@/lib/scans/scan-tiles';
import { route } from '@/lib/http/route';
import { pathId } from '@/lib/http/validate';

// A map tile of a scan's mosaic or index (docs/tiles.md): 304 when the caller holds it already.
export const GET = route('GET /api/scans/{id}/tiles/{layer}/{z}/{x}/{y}', async ({ db, params, req }) => {
  const id = pathId(params.id);
  const tile = await scanTile(db, id, parseTileAddress(params), req.headers.get('if-none-match'));
  const headers = { etag: tile.etag, 'cache-control': `private, max-age=${TILE_MAX_AGE_S}` };
  if (tile.notModified) return new Response(null, { status: 304, headers });
  return new Response(new Uint8Array(tile.body), { headers: { ...headers, 'content-type': tile.contentType } });
});
