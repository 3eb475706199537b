import { route } from '@/lib/http/route';
import { healthReport } from '@/lib/health';
import { json } from '@/lib/http/respond';

export const dynamic = 'force-dynamic';

export const GET = route('GET /api/health', async ({ baseDb }) => {
  const report = await healthReport(baseDb);
  return json(report, { status: report.success ? 200 : 503 });
});
