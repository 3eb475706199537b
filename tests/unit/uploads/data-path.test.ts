// Files in the data folder are recorded relative to DATA_DIR (lib/uploads/data-path.ts), and paths an
// earlier release recorded absolute are made relative at start-up (lib/db/data-paths.ts), on SQLite
// and on PostgreSQL.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { type Db, createDb } from '@/lib/db/client';
import { makeDataPathsRelative } from '@/lib/db/data-paths';
import { migrate } from '@/lib/db/migrate';
import { type ScratchDb, postgresAvailable, scratchPostgres, scratchSqlite } from '@/lib/db/scratch';
import { boundingBox } from '@/lib/geo/geometry';
import { resolveDataPath, storeDataPath } from '@/lib/uploads/data-path';

const DATA = '/srv/data';

describe('recorded file paths', () => {
  it('a file inside DATA_DIR is recorded relative to it and found again under wherever the folder is now', () => {
    const stored = storeDataPath(`${DATA}/companies/1/tasks/t1/preview.png`, DATA);
    expect(stored).toBe('companies/1/tasks/t1/preview.png');
    expect(resolveDataPath(stored, '/mnt/bigger/data')).toBe('/mnt/bigger/data/companies/1/tasks/t1/preview.png');
    expect(storeDataPath(`${DATA}/..data/x.tif`, DATA)).toBe('..data/x.tif');
  });

  it('a path outside DATA_DIR, the folder itself and a path already relative are recorded as they are', () => {
    for (const path of ['/srv/data2/x.tif', '/srv/x.tif', '/tmp/scan-1/preview.png', DATA, '/srv']) expect(storeDataPath(path, DATA)).toBe(path);
    expect(storeDataPath('companies/1/x.tif', DATA)).toBe('companies/1/x.tif');
  });

  it('a path an earlier release recorded absolute is used as it is', () => {
    expect(resolveDataPath('/srv/data/companies/1/tasks/t1/preview.png', '/mnt/bigger/data')).toBe('/srv/data/companies/1/tasks/t1/preview.png');
  });
});

const scratches: ScratchDb[] = [];
const clients: Db[] = [];
afterAll(async () => {
  for (const c of clients) await c.$disconnect();
  for (const s of scratches) await s.drop();
});

// A folder name that is no plain ASCII (lengths count characters, not bytes) and holds what JSON
// escapes and LIKE reads as wildcards.
const UPGRADED = '/srv/Поля "1"/data_%';

async function oldDatabase(scratch: ScratchDb) {
  scratches.push(scratch);
  await migrate(scratch.target);
  const db = createDb(scratch.target);
  clients.push(db);
  const companyId = (await db.company.create({ data: { name: 'Old', slug: `old-${randomUUID()}` } })).id;
  const geometry = { type: 'Polygon' as const, coordinates: [[[30, 50], [30.01, 50], [30.01, 50.01], [30, 50.01], [30, 50]]] };
  const fieldId = (await db.field.create({ data: { companyId, name: 'F', area: 70, geometry: JSON.stringify(geometry), ...boundingBox(geometry) } })).id;
  const scan = (dataPath: string | null) => db.scan.create({ data: { companyId, fieldId, source: 'raster', status: 'completed', dataPath } }).then((s) => s.id);
  const task = async (kind: string, payload: object) => {
    const id = randomUUID();
    await db.task.create({ data: { id, companyId, fieldId, kind, status: 'completed', payloadJson: JSON.stringify(payload) } });
    return id;
  };
  const inside = (path: string) => `${UPGRADED}/companies/${companyId}/${path}`;
  return {
    db,
    scans: {
      inside: await scan(inside('tasks/t1/preview.png')),
      outside: await scan('/tmp/scan-1/preview.png'),
      sibling: await scan(`${UPGRADED}x/companies/1/tasks/t1/preview.png`),
      relative: await scan('companies/1/tasks/t2/preview.png'),
      none: await scan(null),
    },
    tasks: {
      zoning: await task('raster_zones', { rasterPath: inside('fields/1/rasters/a.tif'), fileName: 'a.tif', fieldGeometry: geometry, options: { zones: 5 } }),
      rezone: await task('rezone', { rasterPath: inside('tasks/t3/vari.tif'), fieldGeometry: geometry, options: {} }),
      drone: await task('drone', { photoPaths: [inside('fields/1/drone/t4/a.jpg'), inside('fields/1/drone/t4/b.jpg')], fileName: 'd.zip', fieldGeometry: geometry }),
      outside: await task('raster_zones', { rasterPath: '/elsewhere/a.tif', fileName: 'a.tif', fieldGeometry: geometry, options: {} }),
      // Another folder that the wildcards in the name would take for this one.
      lookalike: await task('raster_zones', { rasterPath: '/srv/Поля "1"/dataX%/companies/1/a.tif', fileName: 'a.tif', fieldGeometry: geometry, options: {} }),
    },
    companyId,
    geometry,
  };
}

async function upgradesOnce(scratch: ScratchDb) {
  const old = await oldDatabase(scratch);
  const { db, companyId: c } = old;
  // Two processes starting at once: between them each row is changed once.
  const [a, b] = await Promise.all([makeDataPathsRelative(db, UPGRADED), makeDataPathsRelative(db, UPGRADED)]);
  expect({ scans: a.scans + b.scans, tasks: a.tasks + b.tasks }).toEqual({ scans: 1, tasks: 3 });
  expect(await makeDataPathsRelative(db, UPGRADED)).toEqual({ scans: 0, tasks: 0 });

  const dataPath = async (id: number) => (await db.scan.findUniqueOrThrow({ where: { id } })).dataPath;
  expect(await dataPath(old.scans.inside)).toBe(`companies/${c}/tasks/t1/preview.png`);
  expect(await dataPath(old.scans.outside)).toBe('/tmp/scan-1/preview.png');
  expect(await dataPath(old.scans.sibling)).toBe(`${UPGRADED}x/companies/1/tasks/t1/preview.png`);
  expect(await dataPath(old.scans.relative)).toBe('companies/1/tasks/t2/preview.png');
  expect(await dataPath(old.scans.none)).toBeNull();

  const payload = async (id: string) => JSON.parse((await db.task.findUniqueOrThrow({ where: { id } })).payloadJson);
  expect(await payload(old.tasks.zoning)).toEqual({ rasterPath: `companies/${c}/fields/1/rasters/a.tif`, fileName: 'a.tif', fieldGeometry: old.geometry, options: { zones: 5 } });
  expect((await payload(old.tasks.rezone)).rasterPath).toBe(`companies/${c}/tasks/t3/vari.tif`);
  expect((await payload(old.tasks.drone)).photoPaths).toEqual([`companies/${c}/fields/1/drone/t4/a.jpg`, `companies/${c}/fields/1/drone/t4/b.jpg`]);
  expect((await payload(old.tasks.outside)).rasterPath).toBe('/elsewhere/a.tif');
  expect((await payload(old.tasks.lookalike)).rasterPath).toBe('/srv/Поля "1"/dataX%/companies/1/a.tif');
}

describe('making the absolute paths an earlier release recorded relative', async () => {
  it('SQLite: paths inside DATA_DIR become relative, once, whoever runs it; others stay', () => upgradesOnce(scratchSqlite()));

  const available = await postgresAvailable();
  if (!available) console.warn('skipping the PostgreSQL data path test: no server at 127.0.0.1:5432');
  it.skipIf(!available)('PostgreSQL: paths inside DATA_DIR become relative, once, whoever runs it; others stay', async () => upgradesOnce(await scratchPostgres()));
});
