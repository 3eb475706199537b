import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { type APIRequestContext, expect, test } from '@playwright/test';
import JSZip from 'jszip';
import sharp from 'sharp';
import en from '../../messages/en.json' with { type: 'json' };
import { INDEX_CLASSES, indexClass, zoneColor } from '../../lib/raster/ramp';
import { NO_VALUE_COLOR, UNSURE_CROP_COLOR, cropColor } from '../../lib/ui/status';
import { isUncertain } from '../../lib/drone/classify';
import { UNDER_NAIP, createField, registerCompany } from './helpers';
import { shapefileZip, square } from '../helpers/shapefile-zip';
import { makeSyntheticSurvey } from '../helpers/synthetic-survey';
import { allNodataIndexTiff, gradientIndexTiff } from '../helpers/tiff';

test.use({ locale: 'en-US', viewport: { width: 1366, height: 768 } });

const SHARED = process.env.FIELDMAP_SHARED ?? join(import.meta.dirname, '..', '..', '..', 'shared');
const NAIP = join(SHARED, 'data', 'raster', 'naip', 'm_4709963_se_14_1_20190904.tif');
const LPIS_CZ = join(SHARED, 'data', 'vector', 'lpis', 'cz_lpis_2023.zip');

test('a real Czech LPIS export imports through the uploads page and its 100 parcels appear on the map', async ({ page }) => {
  test.skip(!existsSync(LPIS_CZ), `shared data not found at ${LPIS_CZ} (set FIELDMAP_SHARED)`);
  await registerCompany(page.request);
  await page.goto('/uploads');
  const form = page.getByRole('form', { name: 'Fields from a shapefile' });
  await form.getByLabel('Shapefile ZIP').setInputFiles(LPIS_CZ);
  await form.getByRole('button', { name: 'Import fields' }).click();
  const result = page.getByTestId('shapefile-result');
  await expect(result).toContainText('100 fields created');
  await expect(result).toContainText('EPSG:4258');
  await result.getByRole('link', { name: 'See them on the map' }).click();
  await expect(page.getByTestId('field-map').locator('path.fm-field')).toHaveCount(100);
  await expect(page.getByTestId('map-summary')).toContainText('100 fields');
});

test('a shapefile ZIP made here imports through the uploads page and its fields appear on the map', async ({ page }) => {
  await registerCompany(page.request);
  const zip = await shapefileZip({ features: [
    { geometry: square(17.1, 48.15, 300), properties: { name: 'Shp North', owner: 'Agro Owner', status: 'Аренда' } },
    { geometry: square(17.11, 48.15, 300), properties: { name: 'Shp South', owner: 'Agro Owner', status: 'Собственность' } },
  ] }).then(Buffer.from);
  await page.goto('/uploads');
  const form = page.getByRole('form', { name: 'Fields from a shapefile' });
  await form.getByLabel('Shapefile ZIP').setInputFiles({ name: 'fields.zip', mimeType: 'application/zip', buffer: zip });
  await form.getByRole('button', { name: 'Import fields' }).click();
  const result = page.getByTestId('shapefile-result');
  await expect(result).toContainText('2 fields created');

  // The same file again creates nothing: the fields are already there.
  await form.getByLabel('Shapefile ZIP').setInputFiles({ name: 'fields.zip', mimeType: 'application/zip', buffer: zip });
  await form.getByRole('button', { name: 'Import fields' }).click();
  await expect(result).toContainText('No fields were created');
  await expect(result).toContainText('2 features were already on the map and skipped');

  await result.getByRole('link', { name: 'See them on the map' }).click();
  await expect(page.getByTestId('field-map').locator('path.fm-field')).toHaveCount(2);
  await expect(page.getByTestId('map-summary')).toContainText('2 fields');
  await page.goto('/owners');
  await expect(page.getByTestId('owners-table')).toContainText('Agro Owner');
});

test('a broken shapefile ZIP is explained in words', async ({ page }) => {
  await registerCompany(page.request);
  await page.goto('/uploads');
  const form = page.getByRole('form', { name: 'Fields from a shapefile' });
  await form.getByLabel('Shapefile ZIP').setInputFiles({ name: 'broken.zip', mimeType: 'application/zip', buffer: Buffer.from('this is not a zip archive') });
  await form.getByRole('button', { name: 'Import fields' }).click();
  // Whatever the server's reason, it reaches the user as its message, not as a silent failure.
  await expect(form.getByRole('alert')).not.toBeEmpty();
  await expect(page.getByTestId('shapefile-result')).toHaveCount(0);
});

test('a NAIP raster uploaded for a field becomes zones shown on the field page', async ({ page }) => {
  test.skip(!existsSync(NAIP), `shared data not found at ${NAIP} (set FIELDMAP_SHARED)`);
  test.setTimeout(120_000);
  await registerCompany(page.request);
  const id = await createField(page.request, { name: 'NAIP field', geometry: UNDER_NAIP });
  await page.goto(`/uploads?field=${id}`);
  const recent = page.getByTestId('recent-tasks');
  await expect(page.getByText(en.uploads.recent.empty)).toBeVisible();
  const form = page.getByRole('form', { name: 'Zones from an index GeoTIFF' });
  // The field the page was opened for is chosen; another is found by name.
  await expect(form.getByTestId('chosen-field')).toContainText('NAIP field');
  await form.getByRole('button', { name: en.uploads.field_change }).click();
  await expect(form.getByText(en.uploads.field_auto)).toBeVisible();
  await form.getByLabel(en.uploads.field).fill('naip');
  await form.getByRole('list', { name: en.map.matches }).getByRole('button', { name: /NAIP field/ }).click();
  await expect(form.getByTestId('chosen-field')).toContainText('NAIP field');
  await form.getByLabel('Number of zones').selectOption('4');
  await form.getByLabel(en.uploads.min_zone_area).fill('0.5');
  // NAIP carries no date of its own: the operator gives it.
  await form.getByLabel(en.uploads.captured_at).fill('2019-09-04');
  await form.getByLabel('GeoTIFF file').setInputFiles({ name: 'naip_2019.tif', mimeType: 'image/tiff', buffer: readFileSync(NAIP) });
  // NAIP has no red-edge band: NDRE is refused at once, in words, and nothing is queued.
  await form.getByLabel(en.uploads.index).selectOption('ndre');
  await form.getByRole('button', { name: 'Upload and build zones' }).click();
  await expect(form.getByRole('alert')).toHaveText(
    "Cannot compute the ndre index: it needs a rededge band, and the raster's bands are red, green, blue, nir (the usual order for their count; name them with bands if the file stores them otherwise)",
  );
  await expect(recent.locator('tbody tr')).toHaveCount(0);
  await form.getByLabel(en.uploads.index).selectOption('ndvi');
  // Water is left out unless unticked.
  await expect(form.getByLabel(en.uploads.mask_water)).toBeChecked();
  await form.getByRole('button', { name: 'Upload and build zones' }).click();
  await expect(form.getByTestId('task-progress')).toBeVisible();
  // The upload is listed among the company's tasks at once, and its outcome follows.
  await expect(recent.locator('tbody tr')).toHaveCount(1);
  await expect(recent.locator('tbody tr')).toContainText(`naip_2019.tif${en.uploads.recent.kind.raster_zones}NAIP field`);
  const result = page.getByTestId('raster-result');
  await expect(result).toContainText(/\d+ zones? created/, { timeout: 90_000 });
  await expect(recent.getByRole('link', { name: en.uploads.recent.open_scan })).toHaveAttribute('href', new RegExp(`^/fields/${id}\\?scan=\\d+$`));
  // The smallest zone asked for is the one the zones were made with.
  const zonedScan = Number((await recent.getByRole('link', { name: en.uploads.recent.open_scan }).getAttribute('href'))!.split('scan=')[1]);
  expect((await (await page.request.get(`/api/scans/${zonedScan}`)).json()).scan.details.zoning.min_zone_area_ha).toBe(0.5);

  await result.getByRole('link', { name: 'Open the field' }).click();
  // Off the link before the field's full-width map opens under it: hovered, a zone's tooltip would open.
  await page.mouse.move(0, 0);
  await expect(page).toHaveURL(new RegExp(`/fields/${id}$`));
  await expect(page.getByTestId('scan-list').locator('li')).toHaveCount(1);
  await expect(page.getByTestId('scan-list').locator('li')).toContainText('Sep 4, 2019');
  await expect(page.getByTestId('scan-facts')).toContainText(`${en.field.captured}Sep 4, 2019`);
  await expect(page.getByTestId('scan-facts')).toContainText(`${en.field.file}naip_2019.tif`);
  // One scan has no trend to draw.
  await expect(page.getByTestId('index-trend')).toHaveCount(0);
  const zones = page.getByTestId('zones-table').locator('tbody tr');
  expect(await zones.count()).toBeGreaterThanOrEqual(2);
  await expect(page.getByTestId('field-detail-map').locator('path.fm-zone').first()).toBeVisible();
  // A zone's tooltip gives its range, its area and its mean.
  // (The pointer over a zone, as Leaflet hears it: the path's own centre may lie in another zone or none.)
  const zonePath = page.getByTestId('field-detail-map').locator('path.fm-zone').first();
  const box = (await zonePath.boundingBox())!;
  await zonePath.dispatchEvent('mouseover', { clientX: box.x + box.width / 2, clientY: box.y + box.height / 2 });
  await expect(page.getByTestId('field-detail-map').locator('.leaflet-tooltip')).toHaveText(/^\d: \S+ · [\d.]+ ha · mean -?\d\.\d{3}$/);
  await expect(page.getByTestId('field-detail-map').getByLabel('Index image')).toBeChecked();
  // The scan's index image is served and drawn over the field.
  const preview = page.getByTestId('scan-list').locator('img');
  await expect(preview).toHaveJSProperty('complete', true);
  expect(await preview.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
  // An uploaded raster has no GeoTIFFs of ours to download.
  await expect(page.getByRole('link', { name: /GeoTIFF/ })).toHaveCount(0);
  // Made for the boundary the field has: nothing to say. Once the boundary is redrawn, the page says
  // so, and shows the zones within the present boundary (two thirds of it is left), as exports take them.
  await expect(page.getByTestId('scan-earlier-boundary')).toHaveCount(0);
  const zonedHa = async () => (await zones.locator('td:nth-child(3)').allInnerTexts()).reduce((sum, text) => sum + Number(text.replace(/,/g, '')), 0);
  const before = await zonedHa();
  const narrower = { type: 'Polygon', coordinates: [[[-99.16, 47.01], [-99.14, 47.01], [-99.14, 47.03], [-99.16, 47.03], [-99.16, 47.01]]] };
  expect((await page.request.put(`/api/fields/${id}`, { data: { geometry: narrower } })).status()).toBe(200);
  await page.reload();
  await expect(page.getByTestId('scan-earlier-boundary')).toHaveText(`${en.field.earlier_boundary} ${en.field.earlier_boundary_rezone}`);
  const after = await zonedHa();
  expect(after / before).toBeGreaterThan(0.55);
  expect(after / before).toBeLessThan(0.75);

  // The agronomist makes the zones again, three of them, for the boundary as it is now: the note
  // goes, and the zones cover what the clipped ones did.
  const rezone = page.getByRole('form', { name: en.field.rezone_title });
  await expect(rezone.getByRole('button', { name: en.field.rezone_submit })).toBeEnabled();
  await expect(rezone.getByLabel(en.uploads.zones)).toHaveValue('4');
  // The zones say how they were made, and the form starts from it.
  await expect(page.getByTestId('zones-made-with')).toHaveText(`${en.uploads.methods.jenks} · 4 zones · smallest 0.5 ha`);
  await expect(rezone.getByLabel(en.uploads.min_zone_area)).toHaveValue('0.5');
  // What no zone covers, by why: the field's lakes as water, nothing without data (the tile covers it).
  const leftOut = (await (await page.request.get(`/api/scans/${zonedScan}`)).json()).scan.details.zoning;
  expect(leftOut.water_ha).toBeGreaterThan(0);
  await expect(page.getByTestId('zones-left-out')).toHaveText(
    en.field.zones_left_out.replace('{water}', leftOut.water_ha.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })).replace('{nodata}', '0.00'),
  );
  await expect(rezone.getByLabel(en.uploads.mask_water)).toBeChecked();
  await rezone.getByLabel(en.uploads.min_zone_area).fill('0.2');
  await rezone.getByLabel(en.uploads.zones).selectOption('3');
  await rezone.getByRole('button', { name: en.field.rezone_submit }).click();
  await expect(rezone.getByRole('status')).toHaveText(en.field.rezone_done, { timeout: 60_000 });
  await expect(page.getByTestId('scan-earlier-boundary')).toHaveCount(0);
  await expect(zones).toHaveCount(3);
  expect(Math.abs((await zonedHa()) / after - 1)).toBeLessThan(0.05);
  await expect(page.getByRole('form', { name: en.field.rezone_title }).getByLabel(en.uploads.zones)).toHaveValue('3');
  await expect(page.getByTestId('zones-made-with')).toHaveText(`${en.uploads.methods.jenks} · 3 zones · smallest 0.2 ha`);

  // A raster is not classified: the agronomist names the crop, which the page then shows as theirs,
  // and can go back to the classification (none here).
  await expect(page.getByText(en.report.no_crop)).toBeVisible();
  const cropForm = page.getByRole('form', { name: en.field.crop_correct });
  await cropForm.getByLabel(en.field.crop_correct).selectOption({ label: en.drone.crops.barley });
  await cropForm.getByRole('button', { name: en.common.save }).click();
  await expect(cropForm.getByRole('status')).toHaveText(en.field.crop_saved);
  await expect(page.getByTestId('crop-classification')).toHaveText(`${en.drone.crops.barley} · ${en.field.crop_named}`);
  const [{ id: scanId }] = (await (await page.request.get(`/api/fields/${id}/scans`)).json()).scans;
  expect((await (await page.request.get(`/api/scan/${scanId}/classify`)).json()).crop_type).toBe('barley');
  await cropForm.getByLabel(en.field.crop_correct).selectOption({ label: en.field.crop_use_automatic });
  await cropForm.getByRole('button', { name: en.common.save }).click();
  await expect(page.getByText(en.report.no_crop)).toBeVisible();

  // The owner deletes the scan after a second step; its zones go with it.
  await page.getByTestId('scan-list').getByRole('button', { name: 'Delete scan' }).click();
  await page.getByRole('group', { name: /^Delete the scan of .+ with its zones and files\?$/ }).getByRole('button', { name: 'Yes, delete' }).click();
  await expect(page.getByText('No scans of this field yet.')).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`/fields/${id}$`));
  expect((await (await page.request.get(`/api/fields/${id}/scans`)).json()).scans).toEqual([]);
});

test('a task being watched outlives a server restart: its polls answered 503 are tried again, and its result still shows', async ({ page }) => {
  test.skip(!existsSync(NAIP), `shared data not found at ${NAIP} (set FIELDMAP_SHARED)`);
  test.setTimeout(120_000);
  await registerCompany(page.request);
  const id = await createField(page.request, { name: 'Restart field', geometry: UNDER_NAIP });
  // The first three polls of the task meet a restarting server.
  let refused = 0;
  await page.route(/\/api\/tasks\/[^/?]+$/, async (route) => {
    if (refused < 3) {
      refused++;
      await route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ success: false, error: 'The service is temporarily unavailable' }) });
    } else await route.continue();
  });
  await page.goto(`/uploads?field=${id}`);
  const form = page.getByRole('form', { name: 'Zones from an index GeoTIFF' });
  await expect(form.getByTestId('chosen-field')).toContainText('Restart field');
  await form.getByLabel(en.uploads.captured_at).fill('2019-09-04');
  await form.getByLabel('GeoTIFF file').setInputFiles({ name: 'naip.tif', mimeType: 'image/tiff', buffer: readFileSync(NAIP) });
  await form.getByRole('button', { name: 'Upload and build zones' }).click();
  await expect(page.getByTestId('raster-result')).toContainText(/\d+ zones? created/, { timeout: 90_000 });
  expect(refused).toBe(3);
});

test('a field’s scans over the years: dated, drawn as a trend, and a scan’s date corrected on its page', async ({ page }) => {
  const years = [2009, 2016].map((y) => join(SHARED, 'data', 'raster', 'naip', `m_4709963_se_14_1_${y === 2009 ? '20090818' : '20160816'}.tif`));
  const absent = [NAIP, ...years].find((f) => !existsSync(f));
  test.skip(!!absent, `shared data not found at ${absent} (set FIELDMAP_SHARED)`);
  test.setTimeout(120_000);
  await registerCompany(page.request);
  const id = await createField(page.request, {
    name: 'Ten years',
    geometry: UNDER_NAIP,
  });
  // Three NAIP years through the API; the 2016 one is given a wrong date, to be corrected on the page.
  const scanIds: number[] = [];
  for (const [file, date] of [[years[0]!, '2009-08-18'], [years[1]!, '2008-08-16'], [NAIP, '2019-09-04']] as const) {
    const res = await page.request.post('/upload', { multipart: { field_id: String(id), zones: '3', captured_at: date, raster_file: { name: basename(file), mimeType: 'image/tiff', buffer: readFileSync(file) } } });
    expect(res.status()).toBe(202);
    const taskId = (await res.json()).task_id as string;
    await expect.poll(async () => (await (await page.request.get(`/api/tasks/${taskId}`)).json()).status, { timeout: 60_000 }).toBe('completed');
    scanIds.push((await (await page.request.get(`/api/tasks/${taskId}`)).json()).result.scan_id);
  }
  const [s2009, s2016, s2019] = scanIds as [number, number, number];

  await page.goto(`/fields/${id}`);
  // The latest taken first, and shown.
  const dates = page.getByTestId('scan-list').locator('li > a > span.font-medium');
  await expect(dates).toHaveText(['Sep 4, 2019', 'Aug 18, 2009', 'Aug 16, 2008']);
  await expect(page.getByTestId('scan-list').locator('li > a').nth(1)).toHaveAttribute('href', `/fields/${id}?scan=${s2009}`);
  const trend = page.getByTestId('index-trend');
  await expect(trend).toContainText(en.field.index_trend.replace('{index}', 'NDVI'));
  const points = trend.locator('a');
  await expect(points).toHaveCount(3);
  await expect(trend.locator('a[aria-current="true"]')).toHaveAttribute('href', `/fields/${id}?scan=${s2019}`);

  // A point opens its scan (a page load: the date form's Save waits, disabled, until the page's script has run).
  await trend.locator(`a[href$="?scan=${s2016}"]`).click();
  await expect(page).toHaveURL(new RegExp(`/fields/${id}\\?scan=${s2016}$`));
  await expect(page.getByTestId('scan-facts')).toContainText(`${en.field.captured}Aug 16, 2008`);

  // Its date corrected: the page stays on it, with the new date, and the list takes the new order.
  const dateForm = page.getByRole('form', { name: en.field.capture_date });
  await dateForm.getByLabel(en.field.capture_date).fill('2016-08-16');
  await dateForm.getByRole('button', { name: en.common.save }).click();
  await expect(dateForm.getByRole('status')).toHaveText(en.field.date_saved);
  await expect(page.getByTestId('scan-facts')).toContainText(`${en.field.captured}Aug 16, 2016`);
  await expect(page).toHaveURL(new RegExp(`\\?scan=${s2016}$`));
  expect((await (await page.request.get(`/api/scans/${s2016}`)).json()).scan.captured_at).toBe('2016-08-16T00:00:00.000Z');

  await expect(dates).toHaveText(['Sep 4, 2019', 'Aug 16, 2016', 'Aug 18, 2009']);
  // Its mean against the scan taken before it, 2009's.
  const meanOf = async (scanId: number) => (await (await page.request.get(`/api/scans/${scanId}`)).json()).scan.stats.mean as number;
  const change = (await meanOf(s2016)) - (await meanOf(s2009));
  await expect(page.getByTestId('index-change')).toHaveText(
    `${en.field.mean_change.replace('{date}', 'Aug 18, 2009')} ${change.toLocaleString('en-US', { minimumFractionDigits: 3, maximumFractionDigits: 3, signDisplay: 'exceptZero' })}`,
  );
  // Opened without a scan named, the field shows the latest taken.
  await page.goto(`/fields/${id}`);
  await expect(page.getByTestId('scan-list').locator('a[aria-current="true"]')).toHaveAttribute('href', `/fields/${id}?scan=${s2019}`);

  // The fields table gives each field's latest scan and its mean index, and sorts by it: a field
  // never scanned goes last.
  const bare = await createField(page.request, { name: 'Never scanned' });
  await page.goto('/fields');
  const rows = page.getByTestId('fields-table').locator('tbody tr');
  await expect(rows.first()).toHaveAttribute('data-testid', `field-row-${bare}`);
  await expect(page.getByTestId(`field-row-${id}`)).toContainText(/Sep 4, 2019\s*NDVI 0\.\d{3}/);
  await page.getByRole('button', { name: en.fields.index_mean }).click();
  await expect(rows.first()).toHaveAttribute('data-testid', `field-row-${id}`);
  await expect(rows.nth(1)).toHaveAttribute('data-testid', `field-row-${bare}`);

  // The map colours fields by their latest scan's mean index, in classes of 0.2, the unscanned grey.
  const mean = (await (await page.request.get(`/api/scans/${s2019}`)).json()).scan.stats.mean as number;
  const k = indexClass(mean);
  await page.goto(`/map?field=${id}`);
  await page.getByLabel(en.map.color_by).selectOption({ label: en.map.color_index });
  await expect(page.locator(`path.fm-field-${id}`)).toHaveAttribute('fill', zoneColor(k, INDEX_CLASSES));
  await expect(page.locator(`path.fm-field-${bare}`)).toHaveAttribute('fill', NO_VALUE_COLOR);
  const legend = page.getByRole('list', { name: en.map.legend });
  await expect(legend.locator('li')).toHaveText([`${((k - 1) / 5).toFixed(2)}–${(k / 5).toFixed(2)}(1)`, `${en.map.no_scan}(1)`]);

  // The statistics' area by crop of a year: 2009's last scan of the field is given a crop.
  await page.request.put(`/api/scans/${s2009}`, { data: { crop_type: 'barley' } });
  await page.goto('/stats?year=2009');
  const byCrop = page.getByRole('list', { name: en.stats.by_crop.replace('{year}', '2009') });
  await expect(byCrop.locator('li')).toHaveCount(2);
  await expect(byCrop.locator('li').filter({ hasText: en.drone.crops.barley })).toHaveCount(1);
  await expect(byCrop.locator('li').filter({ hasText: en.stats.crop_unknown })).toHaveCount(1);
  await expect(page.getByLabel(en.stats.crop_year)).toHaveValue('2009');

  // The map colours fields by the crop of their latest scan, named here, the unknown grey.
  await page.request.put(`/api/scans/${s2019}`, { data: { crop_type: 'sunflower' } });
  await page.goto(`/map?field=${id}`);
  await page.getByLabel(en.map.color_by).selectOption({ label: en.map.color_crop });
  await expect(page.locator(`path.fm-field-${id}`)).toHaveAttribute('fill', cropColor('sunflower'));
  await expect(page.locator(`path.fm-field-${bare}`)).toHaveAttribute('fill', NO_VALUE_COLOR);
  await expect(page.getByRole('list', { name: en.map.legend }).locator('li')).toHaveText([`${en.drone.crops.sunflower}(1)`, `${en.map.no_crop}(1)`]);
});

test('a raster being zoned shows on its field’s page, and one that fails says why there', async ({ page }) => {
  test.skip(!existsSync(NAIP), `shared data not found at ${NAIP} (set FIELDMAP_SHARED)`);
  test.setTimeout(120_000);
  await registerCompany(page.request);
  const under = await createField(page.request, { name: 'Under it', geometry: UNDER_NAIP });
  // A raster that passes the upload's checks but has no valid pixel: its task fails once it runs.
  const blank = allNodataIndexTiff();
  const apart = await createField(page.request, { name: 'Apart', geometry: blank.field });
  const upload = async (fieldId: number, name: string, buffer: Buffer) => {
    const res = await page.request.post('/upload', { multipart: { field_id: String(fieldId), zones: '3', raster_file: { name, mimeType: 'image/tiff', buffer } } });
    expect(res.status(), await res.text()).toBe(202);
  };
  // Zoning runs one task at a time: the blank raster waits behind three others, long enough for its
  // field's page to open while it is under way.
  for (const n of [1, 2, 3]) await upload(under, `naip_${n}.tif`, readFileSync(NAIP));
  await upload(apart, 'wrong_place.tif', blank.bytes);

  await page.goto(`/fields/${apart}`);
  const zoning = page.getByTestId('zoning-tasks');
  await expect(zoning.locator('li')).toHaveCount(1);
  await expect(zoning).toContainText(`${en.field.zoning_under_way}wrong_place.tif`);
  // No scan is made, so the reason stays where the task was followed.
  await expect(zoning.getByRole('alert')).toHaveText(en.errors.raster_no_valid_pixels, { timeout: 60_000 });
  await page.reload();
  await expect(zoning).toHaveCount(0);
  await expect(page.getByText(en.field.no_scans)).toBeVisible();

  await page.goto(`/fields/${under}`);
  await expect(page.getByTestId('scan-list').locator('li')).toHaveCount(3);
  await expect(zoning).toHaveCount(0);
});

/**
 * A survey generated from the NAIP tile (the captures `only`, tests/helpers/synthetic-survey.ts), a
 * field named `name` over the photos' box `box` (pixels), and the photos zipped with `extra` files.
 */
async function syntheticSurveyZip(request: APIRequestContext, name: string, only: number[], box: [number, number, number, number], extra: Record<string, Buffer | string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-survey-'));
  try {
    const survey = await makeSyntheticSurvey({ naipPath: NAIP, dir, only });
    const fieldId = await createField(request, { name, geometry: survey.fieldWgs84(...box) });
    const zip = new JSZip();
    for (const f of survey.files) zip.file(basename(f), readFileSync(f));
    for (const [file, content] of Object.entries(extra)) zip.file(file, content);
    return { fieldId, buffer: await zip.generateAsync({ type: 'nodebuffer' }) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a drone survey whose photos do not overlap fails, and its scan on the field page says why', async ({ page }) => {
  test.skip(!existsSync(NAIP), `shared data not found at ${NAIP} (set FIELDMAP_SHARED)`);
  test.setTimeout(120_000);
  await registerCompany(page.request);
  const { fieldId: id, buffer } = await syntheticSurveyZip(page.request, 'Apart', [0, 4], [0, 0, 800, 420]);
  const res = await page.request.post('/api/drone/upload', { multipart: { drone_images: { name: 'apart.zip', mimeType: 'application/zip', buffer }, data: JSON.stringify({ field_id: id }) } });
  expect(res.status(), await res.text()).toBe(202);
  const taskId = (await res.json()).task_id as string;
  await expect.poll(async () => (await (await page.request.get(`/api/tasks/${taskId}`)).json()).status, { timeout: 90_000 }).toBe('error');

  await page.goto(`/fields/${id}`);
  await expect(page.getByTestId('scan-list').locator('li')).toContainText(en.field.scan_status.error);
  await expect(page.getByTestId('scan-failure')).toHaveText('Could not create the panorama: the photos barely overlap (60–80% is needed)');
});

test('a processed drone survey’s orthomosaic and NDVI download from the field page as GeoTIFFs', async ({ page }) => {
  test.skip(!existsSync(NAIP), `shared data not found at ${NAIP} (set FIELDMAP_SHARED)`);
  test.setTimeout(180_000);
  await registerCompany(page.request);
  // Six multispectral captures along a line.
  const { fieldId: id, buffer } = await syntheticSurveyZip(page.request, 'Drone field', [0, 1, 2, 3, 4, 5], [200, 120, 600, 300]);
  const res = await page.request.post('/api/drone/upload', {
    multipart: { drone_images: { name: 'flight.zip', mimeType: 'application/zip', buffer }, data: JSON.stringify({ field_id: id, crop_type: 'auto' }) },
  });
  expect(res.status(), await res.text()).toBe(202);

  // Opened while the survey is processed, the field page follows its task and shows the finished
  // scan when it ends, without a reload.
  await page.goto(`/fields/${id}`);
  await expect(page.getByTestId('scan-list').getByTestId('task-progress')).toBeVisible();
  await expect(page.getByTestId('scan-list').getByTestId('task-progress')).toHaveCount(0, { timeout: 150_000 });
  // The survey's orthomosaic lies over the map, and the map zooms past the base map's deepest
  // tiles (19 by default; MAP_MAX_ZOOM is 21) to show the mosaic's detail: Leaflet then asks for
  // zoom-19 tiles and draws them four times enlarged.
  const map = page.getByTestId('field-detail-map');
  await expect(map.getByLabel('Orthomosaic')).toBeChecked();
  const zoomIn = map.getByRole('button', { name: 'Zoom in' });
  // Zoomed in step by step until Leaflet disables the button (forced: Playwright waits for a
  // disabled button to become enabled before clicking it).
  await expect(async () => {
    await zoomIn.click({ force: true });
    await expect(zoomIn).toHaveAttribute('aria-disabled', 'true', { timeout: 600 });
  }).toPass({ timeout: 30_000 });
  await expect(map.locator('.fm-base-tiles .leaflet-tile-container').last()).toHaveAttribute('style', /scale\(4\)/);
  await expect(map.locator('.fm-base-tiles img.leaflet-tile').first()).toHaveAttribute('src', /\/19\/\d+\/\d+\.png$/);
  for (const [name, suffix] of [['Orthomosaic (GeoTIFF)', '_orthomosaic.tif'], ['NDVI index (GeoTIFF)', '_ndvi.tif']] as const) {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name }).click()]);
    expect(download.suggestedFilename()).toMatch(new RegExp(`^Drone field_\\d{4}-\\d\\d-\\d\\d${suffix}$`));
    const bytes = readFileSync((await download.path())!);
    expect(bytes.subarray(0, 4).toString('latin1')).toBe('II*\0'); // a little-endian TIFF
  }

  // Coloured by crop, the map shows the classifier's guess as the crop only when it is sure; one too
  // close to call is "Crop unsure", in a colour no crop has, and its tooltip says so.
  const classification = await (await page.request.get(`/api/scan/${(await res.json()).scan_id}/classify`)).json();
  expect(classification.crop_type, 'the survey is classified').toBeTruthy();
  const unsure = isUncertain(classification.details);
  const cropLabel = en.drone.crops[classification.crop_type as keyof typeof en.drone.crops];
  await page.goto(`/map?field=${id}`);
  await page.getByLabel(en.map.color_by).selectOption({ label: en.map.color_crop });
  await expect(page.locator(`path.fm-field-${id}`)).toHaveAttribute('fill', unsure ? UNSURE_CROP_COLOR : cropColor(classification.crop_type));
  await expect(page.getByRole('list', { name: en.map.legend }).locator('li')).toHaveText([`${unsure ? en.map.crop_unsure : cropLabel}(1)`]);
  await page.locator(`path.fm-field-${id}`).hover();
  await expect(page.locator('.leaflet-tooltip')).toContainText(unsure ? en.map.crop_guess.replace('{crop}', cropLabel) : `· ${cropLabel}`);
});

test('a drone ZIP’s files the survey does not use, a photo without GPS among them, are named when it is accepted', async ({ page }) => {
  test.skip(!existsSync(NAIP), `shared data not found at ${NAIP} (set FIELDMAP_SHARED)`);
  test.setTimeout(180_000);
  await registerCompany(page.request);
  // A frame taken before the GPS fix (no EXIF at all), and notes.
  const noFix = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 90, g: 120, b: 40 } } }).jpeg().toBuffer();
  const { buffer } = await syntheticSurveyZip(page.request, 'Named', [0, 1], [0, 0, 800, 420], { 'IMG_nofix.jpg': noFix, 'readme.txt': 'flight notes' });
  await page.goto('/uploads');
  const form = page.getByRole('form', { name: 'Drone photos' });
  await form.getByLabel('Photos ZIP').setInputFiles({ name: 'flight.zip', mimeType: 'application/zip', buffer });
  await form.getByRole('button', { name: 'Upload and process' }).click();
  const ignored = '2 files of the archive were left out (not photos, copies, photos without GPS or of another camera, or photos that match no other): readme.txt, IMG_nofix.jpg';
  await expect(form.getByTestId('drone-ignored')).toHaveText(ignored);
  // Once processed, the company's task list still names them (a day later, that is where one looks).
  await expect(page.getByTestId('task-ignored')).toHaveText(ignored, { timeout: 100_000 });
});

test('a drone ZIP with a single photo is refused with the reason, before any processing', async ({ page }) => {
  await registerCompany(page.request);
  const photo = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 40, g: 120, b: 40 } } }).jpeg().toBuffer();
  const zip = new JSZip();
  zip.file('DJI_0001.JPG', photo);
  const buffer = await zip.generateAsync({ type: 'nodebuffer' });
  await page.goto('/uploads');
  const form = page.getByRole('form', { name: 'Drone photos' });
  await form.getByLabel('Photos ZIP').setInputFiles({ name: 'flight.zip', mimeType: 'application/zip', buffer });
  await form.getByLabel('Crop').selectOption({ label: 'Wheat' });
  await form.getByRole('button', { name: 'Upload and process' }).click();
  await expect(form.getByRole('alert')).toHaveText(en.errors.drone_too_few_images);
  await expect(form.getByTestId('task-progress')).toHaveCount(0);
});

test('a field name typed but not picked from the list stops an upload; a name typed in full is that field', async ({ page }) => {
  await registerCompany(page.request);
  // Accepted by the upload, and found under the field; its zoning fails later, which is no matter here.
  const blank = allNodataIndexTiff();
  const north = await createField(page.request, { name: 'North field', geometry: blank.field });
  await createField(page.request, { name: 'North field east' });
  await page.goto('/uploads');
  const recent = page.getByTestId('recent-tasks');
  await expect(page.getByText(en.uploads.recent.empty)).toBeVisible();

  // Part of a name, not picked: the survey is not sent to whichever field its photos fall on.
  const drone = page.getByRole('form', { name: en.uploads.drone_title });
  await drone.getByLabel(en.uploads.drone_file).setInputFiles({ name: 'survey.zip', mimeType: 'application/zip', buffer: Buffer.from('PK') });
  await drone.getByRole('searchbox', { name: en.uploads.field }).fill('Nort');
  await drone.getByRole('button', { name: en.uploads.start_drone }).click();
  await expect(drone.getByRole('alert')).toHaveText(en.uploads.field_not_chosen);
  await expect(drone.getByRole('searchbox', { name: en.uploads.field })).toBeFocused();
  await expect(drone.locator('input[name=field_id]')).toHaveValue('');
  // Emptied, the box means "find the field": nothing to say.
  await drone.getByRole('searchbox', { name: en.uploads.field }).fill('');
  await expect(drone.getByRole('alert')).toHaveCount(0);

  const raster = page.getByRole('form', { name: en.uploads.raster_title });
  await raster.getByLabel(en.uploads.raster_file).setInputFiles({ name: 'blank.tif', mimeType: 'image/tiff', buffer: blank.bytes });
  await raster.getByRole('searchbox', { name: en.uploads.field }).fill('north fie');
  await raster.getByRole('button', { name: en.uploads.start_zoning }).click();
  await expect(raster.getByRole('alert')).toHaveText(en.uploads.field_not_chosen);
  await expect(raster.getByTestId('task-progress')).toHaveCount(0);
  await expect(page.getByText(en.uploads.recent.empty)).toBeVisible();
  // One field's whole name, in any case, is that field (the other only begins with it).
  await raster.getByRole('searchbox', { name: en.uploads.field }).fill('NORTH FIELD');
  await expect(raster.getByRole('alert')).toHaveCount(0);
  await expect(raster.locator('input[name=field_id]')).toHaveValue(String(north));
  await raster.getByRole('button', { name: en.uploads.start_zoning }).click();
  await expect(recent.locator('tbody tr')).toHaveCount(1);
  await expect(recent.locator('tbody tr')).toContainText(`blank.tif${en.uploads.recent.kind.raster_zones}North field`);
});

/** A field with one scan made from a small generated index raster (zoned in a moment), on its page. */
async function fieldWithScan(page: import('@playwright/test').Page) {
  await registerCompany(page.request);
  const raster = gradientIndexTiff();
  const id = await createField(page.request, { name: 'Gradient', geometry: raster.field });
  const upload = await page.request.post('/upload', { multipart: { field_id: String(id), zones: '3', raster_file: { name: 'gradient.tif', mimeType: 'image/tiff', buffer: raster.bytes } } });
  expect(upload.status(), await upload.text()).toBe(202);
  const taskId = (await upload.json()).task_id as string;
  await expect.poll(async () => (await (await page.request.get(`/api/tasks/${taskId}`)).json()).status, { timeout: 60_000 }).toBe('completed');
  return id;
}

/** What a reverse proxy answers while the server is away: HTML, no JSON envelope. */
const PROXY_502 = { status: 502, contentType: 'text/html', body: '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>' };

test('making zones again, whose task the server no longer knows, says so and frees its button', async ({ page }) => {
  const id = await fieldWithScan(page);
  await page.goto(`/fields/${id}`);
  const form = page.getByRole('form', { name: en.field.rezone_title });
  const submit = form.getByRole('button', { name: en.field.rezone_submit });
  await page.route(/\/api\/tasks\/[^/?]+$/, (route) => route.fulfill({ status: 404, contentType: 'application/json', body: JSON.stringify({ success: false, error: en.errors.not_found }) }));
  await submit.click();
  await expect(form.getByRole('alert')).toHaveText(en.errors.not_found);
  await expect(submit).not.toHaveAttribute('aria-busy');
  await expect(form.getByTestId('task-progress')).toHaveCount(0);
});

test('a task’s polls answered by a proxy’s HTML 502 are said as the network error after a while, and polling goes on', async ({ page }) => {
  test.setTimeout(240_000);
  const id = await fieldWithScan(page);
  await page.goto(`/fields/${id}`);
  const form = page.getByRole('form', { name: en.field.rezone_title });
  const submit = form.getByRole('button', { name: en.field.rezone_submit });
  let polls = 0;
  await page.route(/\/api\/tasks\/[^/?]+$/, (route) => {
    polls++;
    return route.fulfill(PROXY_502);
  });
  await submit.click();
  await expect.poll(() => polls, { timeout: 30_000 }).toBeGreaterThanOrEqual(2);
  // A restart's few seconds are not worth a message.
  await expect(form.getByRole('alert')).toHaveCount(0);
  // Said after the fifth failed poll in a row (waits of 1, 2, 4 and 8 s between them).
  await expect(form.getByRole('alert')).toHaveText(en.common.network_error, { timeout: 90_000 });
  expect(polls).toBeGreaterThanOrEqual(5);
  await expect(submit).toHaveAttribute('aria-busy', 'true');
  // The server is back: the next poll finds the task done.
  await page.unrouteAll();
  await expect(form.getByRole('status').filter({ hasText: en.field.rezone_done })).toBeVisible({ timeout: 90_000 });
});

test('the recent tasks list, followed while a task runs, says the network error when a proxy answers HTML 502 for a while', async ({ page }) => {
  test.setTimeout(240_000);
  await fieldWithScan(page);
  const listed = (await (await page.request.get('/api/tasks')).json()).tasks as { status: string; percent: number }[];
  await page.goto('/uploads');
  await expect(page.getByTestId('recent-tasks').locator('tbody tr')).toHaveCount(1);
  // The list is asked again (as after an upload from this page): it shows a task under way, and then the server is away.
  let asked = 0;
  await page.route((url) => url.pathname === '/api/tasks', (route) => {
    asked++;
    if (asked === 1) return route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ success: true, tasks: [{ ...listed[0], status: 'running', percent: 40 }] }) });
    return route.fulfill(PROXY_502);
  });
  // The rows above are the server's HTML: until the page has hydrated, nobody listens for the event.
  // It is sent again until the list has asked, which is the state the rest needs (a single event sent
  // at once was lost on a busy machine).
  await expect
    .poll(async () => {
      if (asked === 0) await page.evaluate(() => window.dispatchEvent(new Event('fieldmap:tasks-changed')));
      return asked;
    }, { timeout: 60_000 })
    .toBeGreaterThan(0);
  await expect(page.getByTestId('recent-tasks').locator('progress')).toHaveCount(1, { timeout: 30_000 });
  // Polls every 2 s, then ever later; the error is said after the fifth failure in a row.
  await expect.poll(() => asked, { timeout: 60_000 }).toBeGreaterThanOrEqual(3);
  await expect(page.getByRole('main').getByRole('alert')).toHaveCount(0);
  await expect(page.getByRole('main').getByRole('alert')).toHaveText(en.common.network_error, { timeout: 90_000 });
});
