// The data folder moved to another path (a bigger disk, a backup restored elsewhere, a volume mounted
// elsewhere): a server started on the same database with the new DATA_DIR finds every file of a scan,
// since the database records them relative to DATA_DIR (lib/uploads/data-path.ts). A dedicated
// server, on SQLite in the SQLite pass and PostgreSQL in the PostgreSQL pass.
import { existsSync, mkdtempSync, readdirSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '@/lib/db/client';
import type { ScratchDb } from '@/lib/db/scratch';
import { registerCompany } from '../helpers/company';
import { scratchOfThisPass } from '../helpers/context';
import { removeDir, startServer, type TestServer } from '../helpers/server';
import { missingShared, sharedPath } from '../helpers/shared-data';
import { waitForTask } from '../helpers/tasks';

const NAIP = ['raster', 'naip', 'm_4709963_se_14_1_20190904.tif'] as const;
const missing = missingShared(...NAIP);
if (missing) console.warn(`skipping the moved data folder test: ${missing}`);
// A field well inside the NAIP tile.
const FIELD = { type: 'Polygon', coordinates: [[[-99.17, 47.01], [-99.14, 47.01], [-99.14, 47.03], [-99.17, 47.03], [-99.17, 47.01]]] };

/** Every file (not folder) under `dir`, relative; [] when it does not exist. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => !d.isDirectory())
    .map((d) => join(d.parentPath, d.name).slice(dir.length + 1))
    .sort();
}

describe.skipIf(!!missing)('a data folder moved to another path', () => {
  let scratch: ScratchDb;
  let server: TestServer;
  let movedTo: string;

  beforeAll(async () => {
    scratch = await scratchOfThisPass();
    server = await startServer({ env: scratch.env });
  });
  afterAll(async () => {
    await server?.stop();
    await scratch?.drop();
    if (movedTo) removeDir(dirname(movedTo));
  });

  it('keeps scans’ previews, the remaking of their zones and their deletion working; paths an earlier release recorded become relative', async () => {
    const { api, user } = await registerCompany(server.url);
    const companyId = user.company.id as number;
    const fieldId = (await api.post('/api/fields', { name: 'Moved', geometry: FIELD })).body.id as number;
    const zoned = async () => {
      const upload = await api.upload('/upload', { raster_file: { file: sharedPath(...NAIP), name: 'naip.tif', type: 'image/tiff' }, zones: '4' });
      expect(upload.status, upload.text).toBe(202);
      const task = await waitForTask(api, upload.body.task_id);
      expect(task.status, task.error).toBe('completed');
      return { taskId: upload.body.task_id as string, scanId: task.result.scan_id as number };
    };
    const [made, old] = [await zoned(), await zoned()];
    const preview = (scanId: number) => fetch(`${server.url}/api/scans/${scanId}/preview.png`, { headers: { cookie: `session_token=${api.cookie}` } });
    expect((await preview(made.scanId)).status).toBe(200);
    const db = createDb(scratch.target);
    const recorded = async () => ({
      dataPath: (await db.scan.findUniqueOrThrow({ where: { id: old.scanId } })).dataPath!,
      rasterPath: JSON.parse((await db.task.findUniqueOrThrow({ where: { id: old.taskId } })).payloadJson).rasterPath as string,
    });
    try {
      // Recorded inside the folder, not by where the folder was.
      expect((await db.scan.findUniqueOrThrow({ where: { id: made.scanId } })).dataPath).toBe(`companies/${companyId}/tasks/${made.taskId}/preview.png`);

      // Stopped, the folder moved, started again on the same database (and port, so the session goes on).
      await server.stop();
      movedTo = join(mkdtempSync(join(tmpdir(), 'fieldmap-moved-')), 'data');
      renameSync(server.dataDir, movedTo);
      // The second scan's paths as a release before this one recorded them, had it run there: absolute.
      const relative = await recorded();
      expect(relative.rasterPath).toMatch(new RegExp(`^companies/${companyId}/fields/${fieldId}/rasters/[0-9a-f-]{36}\\.tif$`));
      await db.scan.update({ where: { id: old.scanId }, data: { dataPath: join(movedTo, relative.dataPath) } });
      const payload = JSON.parse((await db.task.findUniqueOrThrow({ where: { id: old.taskId } })).payloadJson);
      await db.task.update({ where: { id: old.taskId }, data: { payloadJson: JSON.stringify({ ...payload, rasterPath: join(movedTo, relative.rasterPath) }) } });
      server = await startServer({ env: scratch.env, dataDir: movedTo, port: server.port });
      // Made relative again when the server started.
      expect(await recorded()).toEqual(relative);
    } finally {
      await db.$disconnect();
    }
    const company = join(movedTo, 'companies', String(companyId));
    const files = filesUnder(company);
    expect(files).toContain(`tasks/${made.taskId}/preview.png`);
    expect(files.filter((f) => f.startsWith(`fields/${fieldId}/rasters/`))).toHaveLength(2);

    for (const scanId of [made.scanId, old.scanId]) {
      const png = await preview(scanId);
      expect([png.status, png.headers.get('content-type')]).toEqual([200, 'image/png']);
      expect(Buffer.from(await png.arrayBuffer()).subarray(1, 4).toString()).toBe('PNG');

      const rezone = await api.post(`/api/scans/${scanId}/zones`, { zones: 3 });
      expect(rezone.status, rezone.text).toBe(202);
      const remade = await waitForTask(api, rezone.body.task_id);
      expect([remade.status, remade.error]).toEqual(['completed', null]);
      expect(remade.result).toMatchObject({ scan_id: scanId, zones_created: 3 });

      const deleted = await api.del(`/api/scans/${scanId}`);
      expect(deleted.status, deleted.text).toBe(200);
    }
    // Their previews (the tasks' folders) and the rasters they were made from are gone from the moved folder.
    expect(filesUnder(company)).toEqual([]);
  });
});
