// The field page says what the colours of a scan's index image mean: a legend over the map, in the
// user's language and numbers, shown with the image only.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import ru from '../../messages/ru.json' with { type: 'json' };
import { createField, registerCompany } from './helpers';

test.use({ locale: 'ru-RU', viewport: { width: 1366, height: 768 } });

const SHARED = process.env.FIELDMAP_SHARED ?? join(import.meta.dirname, '..', '..', '..', 'shared');
const NAIP = join(SHARED, 'data', 'raster', 'naip', 'm_4709963_se_14_1_20190904.tif');
// Inside the NAIP tile's footprint (-99.1856..-99.1241 E, 47.0041..47.0366 N).
const FIELD = { type: 'Polygon', coordinates: [[[-99.16, 47.015], [-99.15, 47.015], [-99.15, 47.025], [-99.16, 47.025], [-99.16, 47.015]]] };

test('a raster scan’s index image has a legend naming the index and its range in the user’s numbers, hidden with the image', async ({ page }) => {
  test.skip(!existsSync(NAIP), `shared data not found at ${NAIP} (set FIELDMAP_SHARED)`);
  await registerCompany(page.request, 'ru');
  const id = await createField(page.request, { name: 'Легенда', geometry: FIELD });
  const res = await page.request.post('/upload', { multipart: { field_id: String(id), zones: '3', raster_file: { name: 'naip_2019.tif', mimeType: 'image/tiff', buffer: readFileSync(NAIP) } } });
  expect(res.status(), await res.text()).toBe(202);
  const taskId = (await res.json()).task_id as string;
  await expect.poll(async () => (await (await page.request.get(`/api/tasks/${taskId}`)).json()).status, { timeout: 60_000 }).toBe('completed');
  const scanId = (await (await page.request.get(`/api/tasks/${taskId}`)).json()).result.scan_id as number;
  const ticks = (await (await page.request.get(`/api/scans/${scanId}`)).json()).scan.preview.legend.ticks as { value: number }[];
  // NDVI over a field spans tenths: two decimals tell its ticks apart, with a Russian decimal comma.
  const number = (v: number) => v.toLocaleString('ru-RU', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

  await page.goto(`/fields/${id}`);
  const map = page.getByTestId('field-detail-map');
  const legend = map.getByTestId('preview-legend');
  await expect(legend).toBeVisible();
  await expect(legend).toContainText('NDVI');
  await expect(legend).toContainText(ticks.map((t) => number(t.value)).join(''));
  // Read out whole as the range it shows.
  const label = ru.field.legend_label.replace('{index}', 'NDVI').replace('{min}', number(ticks[0]!.value)).replace('{max}', number(ticks.at(-1)!.value));
  await expect(map.getByRole('img', { name: label })).toBeVisible();

  // Without the index image there are no colours to explain.
  const layer = map.getByLabel(ru.field.layer_index);
  await layer.uncheck();
  await expect(legend).toHaveCount(0);
  await layer.check();
  await expect(legend).toBeVisible();
});
