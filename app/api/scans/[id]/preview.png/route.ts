import { scanPreview } from '@/lib/scans/scans';
import { route } from '@/lib/http/route';
import { pathId } from '@/lib/http/validate';

export const GET = route('GET /api/scans/{id}/preview.png', async ({ db, params }) => {
  const { png, bounds } = await scanPreview(db, pathId(params.id));
  return new Response(new Uint8Array(png), {
    headers: { 'content-type': 'image/png', 'cache-control': 'private, max-age=3600', ...(bounds ? { 'x-bounds': bounds } : {}) },
  });
});
