// Zoning as a user meets it, through a real server: a NAIP tile uploaded for a 676 ha field until its
// task completes, then the scan's zones made again (POST /api/scans/{id}/zones) with other classes
// and methods. Each time runs from the request to the task's end, a worker thread's start included.
import { scratchSqlite } from '../lib/db/scratch';
import { Api } from '../tests/helpers/api';
import { registerCompany } from '../tests/helpers/company';
import { startServer } from '../tests/helpers/server';
import { missingShared, sharedPath } from '../tests/helpers/shared-data';
import { type Row, median, printTable, round, writeResults } from './lib';

const NAIP = ['raster', 'naip', 'm_4709963_se_14_1_20190904.tif'] as const;
const FIELD = { type: 'Polygon', coordinates: [[[-99.175, 47.01], [-99.135, 47.01], [-99.135, 47.03], [-99.175, 47.03], [-99.175, 47.01]]] };
const RUNS = 3;

async function untilDone(api: Api, taskId: string): Promise<{ status: string; result: { scan_id: number; zones_created: number } }> {
  for (;;) {
    const task = (await api.get(`/api/tasks/${taskId}`)).body;
    if (task.status === 'completed' || task.status === 'error') return task;
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function timed(api: Api, start: () => Promise<{ status: number; text: string; body: { task_id: string } }>) {
  const t = performance.now();
  const res = await start();
  if (res.status !== 202) throw new Error(`answered ${res.status}: ${res.text}`);
  const task = await untilDone(api, res.body.task_id);
  if (task.status !== 'completed') throw new Error(`task ended ${task.status}`);
  return { ms: performance.now() - t, task };
}

export async function benchZoningTasks(): Promise<Row[]> {
  const missing = missingShared(...NAIP);
  if (missing) {
    console.warn(`skipping the zoning tasks bench: ${missing}`);
    return [];
  }
  const scratch = scratchSqlite();
  const server = await startServer({ env: { ...scratch.env, LOG_LEVEL: 'error' } });
  try {
    const { api } = await registerCompany(server.url);
    await api.post('/api/fields', { name: 'NAIP', geometry: FIELD });
    const upload = () => api.upload('/upload', { raster_file: { file: sharedPath(...NAIP), name: 'naip.tif', type: 'image/tiff' }, zones: '5' });
    const uploads = [];
    for (let i = 0; i < RUNS; i++) uploads.push(await timed(api, upload));
    const scanId = uploads[0]!.task.result.scan_id;
    const rows: Row[] = [{ metric: 'NAIP tile (2.6 MB) uploaded to 5 zones of a 676 ha field, median', value: round(median(uploads.map((u) => u.ms)) / 1000, 2), unit: 's' }];
    for (const [zones, method] of [[3, 'quantile'], [7, 'jenks'], [4, 'kmeans']] as const) {
      const runs = [];
      for (let i = 0; i < RUNS; i++) runs.push(await timed(api, () => api.post(`/api/scans/${scanId}/zones`, { zones, method })));
      rows.push({ metric: `zones made again: ${zones}, ${method}, median`, value: round(median(runs.map((r) => r.ms)) / 1000, 2), unit: 's' });
    }
    writeResults('zoning-tasks', rows, { runs: RUNS });
    printTable('Zoning tasks through the server (request to completed task)', rows);
    return rows;
  } finally {
    await server.stop();
    await scratch.drop();
  }
}
