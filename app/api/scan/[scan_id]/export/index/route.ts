import { openDroneGeotiff } from '@/lib/scans/scans';
import { fileResponse } from '@/lib/http/respond';
import { route } from '@/lib/http/route';
import { pathId } from '@/lib/http/validate';

export const GET = route('GET /api/scan/{scan_id}/export/index', async ({ db, params }) => {
  const { stream, fileName, size } = await openDroneGeotiff(db, pathId(params.scan_id), 'index');
  return fileResponse(stream, { name: fileName, type: 'image/tiff', size });
});
