// A drone task that ends in error takes the scan announced at its upload with it, on a real SQLite file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, createDb } from '@/lib/db/client';
import { migrate } from '@/lib/db/migrate';
import { type ScratchDb, scratchSqlite } from '@/lib/db/scratch';
import { boundingBox } from '@/lib/geo/geometry';
import { AppError } from '@/lib/http/errors';
import { claimTask, requeueInterrupted, runClaimedTask } from '@/lib/tasks/lifecycle';
import { MAX_ATTEMPTS } from '@/lib/tasks/types';

let scratch: ScratchDb;
let db: Db;
let companyId: number;
let fieldId: number;

beforeAll(async () => {
  scratch = scratchSqlite();
  await migrate(scratch.target);
  db = createDb(scratch.target);
  companyId = (await db.company.create({ data: { name: 'Drones', slug: 'drones' } })).id;
  const geometry = { type: 'Polygon' as const, coordinates: [[[30, 50], [30.01, 50], [30.01, 50.01], [30, 50.01], [30, 50]]] };
  fieldId = (await db.field.create({ data: { companyId, name: 'F', area: 70, geometry: JSON.stringify(geometry), ...boundingBox(geometry) } })).id;
});

afterAll(async () => {
  await db?.$disconnect();
  await scratch?.drop();
});

/** A drone upload as the server records it: the scan announced as processing, its task naming it. */
async function droneUpload(id: string, task: { status: string; attempts: number }) {
  const scan = await db.scan.create({ data: { companyId, fieldId, source: 'drone', status: 'processing' } });
  await db.task.create({ data: { id, companyId, fieldId, scanId: scan.id, kind: 'drone', ...task } });
  return scan.id;
}

describe('a failed drone task', () => {
  it('fails its scan with it when the job refuses the photos', async () => {
    const scanId = await droneUpload('refused', { status: 'pending', attempts: 0 });
    expect(await claimTask(db, 'refused', 'test')).toBe(true);
    await runClaimedTask(db, 'refused', async () => {
      throw new AppError('unprocessable', 'drone_stitch_failed');
    });
    expect(await db.task.findUniqueOrThrow({ where: { id: 'refused' } })).toMatchObject({ status: 'error', error: JSON.stringify({ key: 'drone_stitch_failed', params: {} }) });
    expect((await db.scan.findUniqueOrThrow({ where: { id: scanId } })).status).toBe('error');
  });

  it('fails its scan with it when the server stopped during its last attempt', async () => {
    const lastScan = await droneUpload('interrupted-last', { status: 'running', attempts: MAX_ATTEMPTS });
    const retriedScan = await droneUpload('interrupted-first', { status: 'running', attempts: 1 });
    expect(await requeueInterrupted(db)).toEqual(['interrupted-first']);
    expect((await db.task.findUniqueOrThrow({ where: { id: 'interrupted-last' } })).status).toBe('error');
    expect((await db.scan.findUniqueOrThrow({ where: { id: lastScan } })).status).toBe('error');
    // One that will run again keeps its scan processing.
    expect((await db.scan.findUniqueOrThrow({ where: { id: retriedScan } })).status).toBe('processing');
  });
});
