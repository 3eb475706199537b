import { attachment } from '@/lib/exports/load';
import { openDroneGeotiff } from '@/lib/fields/scans';
import { route } from '@/lib/http/route';
import { pathId } from '@/lib/http/validate';

export const GET = route('GET /api/scan/{scan_id}/export/orthomosaic', async ({ db, params }) => {
  const { stream, fileName } = await openDroneGeotiff(db, pathId(params.scan_id), 'orthomosaic');
  // Sent in chunks: Next.js drops a route's Content-Length.
  return new Response(stream, { headers: attachment(fileName, 'image/tiff') });
});
