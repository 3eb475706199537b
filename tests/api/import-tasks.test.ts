// Shapefile imports in the recent tasks list: each import, done within its request, is kept as a
// finished task (its file, who, how many fields, or why it was refused), as rasters and surveys are.
import { describe, expect, it } from 'vitest';
import { createCompany, registerCompany } from '../helpers/company';
import { baseUrl } from '../helpers/context';
import { ogr2ogrAvailable, shapefileZip, square } from '../helpers/shapefile-zip';

const gdal = ogr2ogrAvailable();
if (!gdal) console.warn('import-tasks: skipped, ogr2ogr (gdal-bin) is not installed');

describe.skipIf(!gdal)('shapefile imports as tasks', () => {
  it('lists an import with its file, its author and the fields it made, and a refused one with its reason', async () => {
    const { api } = await registerCompany(baseUrl(), { language: 'en' });
    const zip = await shapefileZip({ features: [{ geometry: square(17.1, 48.1), properties: { name: 'A' } }, { geometry: square(17.2, 48.1), properties: { name: 'B' } }] });
    const up = await api.upload('/upload', { shapefile_zip: { data: zip, name: 'parcels.zip', type: 'application/zip' } });
    expect(up.status).toBe(200);
    expect(up.body.fields_created).toBe(2);

    const broken = await shapefileZip({ features: [{ geometry: square(17.3, 48.1) }], omit: ['shp'] });
    const refused = await api.upload('/upload', { shapefile_zip: { data: broken, name: 'broken.zip', type: 'application/zip' } });
    expect(refused.status).toBe(422);

    const { tasks } = (await api.get('/api/tasks')).body;
    expect(tasks).toHaveLength(2);
    expect(tasks[1]).toMatchObject({ kind: 'shapefile', status: 'completed', percent: 100, file_name: 'parcels.zip', result: { fields_created: 2, skipped: 0 }, error: null });
    expect(tasks[1].created_by.name).toBeTruthy();
    expect(tasks[1].finished_at).toBeTruthy();
    expect(tasks[0]).toMatchObject({ kind: 'shapefile', status: 'error', file_name: 'broken.zip', error: refused.body.error });
    // The list's kind filter knows the kind.
    expect((await api.get('/api/tasks?kind=shapefile')).body.tasks).toHaveLength(2);
    expect((await api.get('/api/tasks?kind=drone')).body.tasks).toHaveLength(0);
  });

  it('another company sees none of them', async () => {
    const a = await createCompany(baseUrl());
    const b = await registerCompany(baseUrl());
    const zip = await shapefileZip({ features: [{ geometry: square(17.1, 48.1) }] });
    expect((await b.api.upload('/upload', { shapefile_zip: { data: zip, name: 'theirs.zip', type: 'application/zip' } })).status).toBe(200);
    const theirs = (await b.api.get('/api/tasks')).body.tasks[0].task_id;
    expect((await a.as.owner.get('/api/tasks')).body.tasks).toHaveLength(0);
    expect((await a.as.owner.get(`/api/tasks/${theirs}`)).status).toBe(404);
  });
});
