// An index raster's upload before its task runs (lib/scans/zoning.ts), on a real SQLite file: the
// field under it is found even where the clipper gives up, and a raster whose task row could not be
// written is not left in the field's folder.
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, createDb } from '@/lib/db/client';
import { migrate } from '@/lib/db/migrate';
import { type ScratchDb, scratchSqlite } from '@/lib/db/scratch';
import { type TenantDb, tenantDb } from '@/lib/db/tenant';
import { fieldDataDir } from '@/lib/fields/files';
import { fieldUnderRaster, submitRasterZoning } from '@/lib/scans/zoning';
import { boundingBox, type FieldGeometry } from '@/lib/geo/geometry';
import { allNodataIndexTiff } from '../../helpers/tiff';

let scratch: ScratchDb;
let db: Db;
let companyId: number;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'raster-upload-'));
  // The field's folder in a scratch data folder (read when the configuration is first asked for).
  process.env.DATA_DIR = dataDir;
  scratch = scratchSqlite();
  await migrate(scratch.target);
  db = createDb(scratch.target);
  companyId = (await db.company.create({ data: { name: 'Rasters', slug: 'rasters' } })).id;
});

afterAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  await db?.$disconnect();
  await scratch?.drop();
});

const newField = async (geometry: FieldGeometry) => (await db.field.create({ data: { companyId, name: 'F', area: 1, geometry: JSON.stringify(geometry), ...boundingBox(geometry) } })).id;

describe('the field under a raster', () => {
  it('is found where the clipper throws on the pair (a boundary and its copy from another coordinate system)', async () => {
    // The pair tests/unit/uploads/shapefile-read.test.ts has turf's clipper throw on: the same rectangle, its
    // edges a fifth of a millimetre apart. The upload had answered 500.
    const utm: FieldGeometry = { type: 'Polygon', coordinates: [[[39.54, 47.099999999999994], [39.54, 47.10499999999999], [39.550000000000004, 47.10499999999999], [39.550000000000004, 47.1], [39.54, 47.099999999999994]]] };
    const laea: FieldGeometry = { type: 'Polygon', coordinates: [[[39.53999999999999, 47.100000002145386], [39.54000000000001, 47.10500000214633], [39.550000000000004, 47.10500000214633], [39.55000000000001, 47.100000002145364], [39.53999999999999, 47.100000002145386]]] };
    const id = await newField(laea);
    expect((await fieldUnderRaster(tenantDb(db, companyId), utm)).id).toBe(id);
  });
});

describe('a raster whose task row is never written', () => {
  it('is removed from the field’s folder (the field was deleted between the check and the task)', async () => {
    const { bytes, field } = allNodataIndexTiff();
    const fieldId = await newField(field);
    const upload = join(dataDir, 'upload.tif');
    writeFileSync(upload, bytes);
    const tenant = tenantDb(db, companyId);
    // The field goes just before the task row is written, as when another request deletes it then:
    // the insert fails on its foreign key.
    const racing = new Proxy(tenant, {
      get(target, prop, receiver) {
        if (prop !== 'task') return Reflect.get(target, prop, receiver);
        return {
          create: async (args: Parameters<TenantDb['task']['create']>[0]) => {
            await db.field.delete({ where: { id: fieldId } });
            return target.task.create(args);
          },
        };
      },
    });
    const file = { part: 'raster_file', filename: 'ndvi.tif', path: upload, size: bytes.length, sha256: '', mimeType: 'image/tiff' };
    await expect(submitRasterZoning(racing, companyId, 1, file, { field_id: String(fieldId) })).rejects.toMatchObject({ code: 'P2003' });
    const rasters = join(fieldDataDir(companyId, fieldId), 'rasters');
    expect(existsSync(rasters) ? readdirSync(rasters) : []).toEqual([]);
    expect(await db.task.count()).toBe(0);
  });
});
