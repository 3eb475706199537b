import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import JSZip from 'jszip';
import en from '../../messages/en.json' with { type: 'json' };
import { tiffBytes } from '../helpers/tiff';
import { createField, registerCompany, square } from './helpers';

test.use({ locale: 'en-US', viewport: { width: 1366, height: 768 } });

test('the fields table filters, sorts, edits a row in place and totals the areas', async ({ page }) => {
  await registerCompany(page.request);
  const owner = await (await page.request.post('/api/owners', { data: { name: 'Kolkhoz Rassvet' } })).json();
  const a = await createField(page.request, { name: 'Alpha', geometry: square(17.1, 48.15), status: 'Собственность', parcel_number: '1:2:3' });
  await createField(page.request, { name: 'Beta', geometry: square(17.2, 48.15, 0.008), status: 'Аренда' });
  const fields = (await (await page.request.get('/api/fields')).json()).features as { properties: { area: number } }[];
  const total = fields.reduce((s, f) => s + f.properties.area, 0);

  await page.goto('/fields');
  const table = page.getByTestId('fields-table');
  await expect(table.locator('tbody tr')).toHaveCount(2);
  await expect(page.getByTestId('fields-total-count')).toHaveText('Total: 2 fields');
  await expect(page.getByTestId('fields-total-area')).toHaveText(total.toLocaleString('en-US', { minimumFractionDigits: 4, maximumFractionDigits: 4 }));
  // Stored Russian statuses read in the page's language.
  await expect(table).toContainText('Owned');
  await expect(table).toContainText('Leased');

  // Sorting by area, largest first, puts Beta on top.
  await table.getByRole('button', { name: 'Area, ha' }).click();
  await table.getByRole('button', { name: /Area, ha/ }).click();
  await expect(table.locator('tbody tr').first()).toContainText('Beta');

  // Search by parcel number.
  await page.getByLabel('Search').fill('1:2:3');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(/q=1%3A2%3A3/);
  await expect(table.locator('tbody tr')).toHaveCount(1);
  await expect(table).toContainText('Alpha');

  // Inline edit: name, owner, status.
  const row = page.getByTestId(`field-row-${a}`);
  await row.getByRole('button', { name: 'Edit' }).click();
  await row.getByLabel('Name').fill('Alpha renamed');
  await row.getByLabel('Owner').selectOption({ label: 'Kolkhoz Rassvet' });
  await row.getByLabel('Status').selectOption({ label: 'Subleased' });
  await row.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('status')).toHaveText('Field “Alpha renamed” saved');
  await expect(row).toContainText('Alpha renamed');
  await expect(row).toContainText('Kolkhoz Rassvet');
  await expect(row).toContainText('Subleased');
  const stored = await (await page.request.get(`/api/fields/${a}`)).json();
  expect(stored).toMatchObject({ name: 'Alpha renamed', status: 'Субаренда', owner: { id: owner.id, name: 'Kolkhoz Rassvet' } });

  // A bad parcel number is refused before it is sent, with the rule in words, and nothing changes.
  await row.getByRole('button', { name: 'Edit' }).click();
  await row.getByLabel('Parcel number').fill('12-34');
  await row.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('main').getByRole('alert')).toHaveText('Parcel number: groups of digits separated by colons, e.g. 61:02:0600010:123');
  expect((await (await page.request.get(`/api/fields/${a}`)).json()).parcel_number).toBe('1:2:3');

  // Filter by owner.
  await page.goto(`/fields?owner_id=${owner.id}`);
  await expect(table.locator('tbody tr')).toHaveCount(1);
  await expect(table).toContainText('Alpha renamed');

  // The rows shown, as a spreadsheet opens them.
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Table as CSV' }).click()]);
  expect(file.suggestedFilename()).toBe('Fields.csv');
  const area = ((await (await page.request.get(`/api/fields/${a}`)).json()).area as number).toFixed(4);
  expect(readFileSync((await file.path())!, 'utf8')).toBe(
    `\uFEFFName,"Area, ha",Owner,Status,Parcel number,Last scan,Index,Mean index\r\nAlpha renamed,${area},Kolkhoz Rassvet,Subleased,1:2:3,,,\r\n`,
  );
  // And their boundaries, for a GIS.
  const [boundaries] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Boundaries as GeoJSON' }).click()]);
  expect(boundaries.suggestedFilename()).toBe('Fields.geojson');
  const collection = JSON.parse(readFileSync((await boundaries.path())!, 'utf8'));
  expect(collection.type).toBe('FeatureCollection');
  expect(collection.features.map((f: { id: number; properties: { name: string } }) => [f.id, f.properties.name])).toEqual([[a, 'Alpha renamed']]);
  expect(collection.features[0].geometry.type).toBe('Polygon');
});

test('a row’s edit from the keyboard: its name takes the focus, and the row’s Edit gets it back after Save or Cancel', async ({ page }) => {
  await registerCompany(page.request);
  const a = await createField(page.request, { name: 'Gamma', geometry: square(17.1, 48.15) });
  await page.goto('/fields');
  const row = page.getByTestId(`field-row-${a}`);
  const edit = (name: string) => row.getByRole('button', { name: `Edit “${name}”`, exact: true });
  await edit('Gamma').focus();
  await page.keyboard.press('Enter');
  await expect(row.getByLabel('Name')).toBeFocused();
  await row.getByRole('button', { name: 'Cancel' }).focus();
  await page.keyboard.press('Enter');
  await expect(edit('Gamma')).toBeFocused();

  await page.keyboard.press('Enter');
  await expect(row.getByLabel('Name')).toBeFocused();
  await page.keyboard.press('End');
  await page.keyboard.type(' East');
  await row.getByRole('button', { name: 'Save' }).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('status')).toHaveText('Field “Gamma East” saved');
  await expect(edit('Gamma East')).toBeFocused();
});

test('the field page edits properties and downloads KMZ and PDF exports', async ({ page }) => {
  await registerCompany(page.request);
  const id = await createField(page.request, { name: 'Export me', status: 'Аренда' });
  await page.goto(`/fields/${id}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Export me');
  await expect(page.getByTestId('field-properties')).toContainText('Leased');
  await expect(page.getByTestId('field-detail-map').locator('path.fm-field-outline')).toHaveCount(1);
  await expect(page.getByText('No scans of this field yet.')).toBeVisible();

  await page.getByRole('button', { name: 'Edit' }).click();
  // The form takes the focus from the Edit button it replaces, and gives it back when it closes.
  await expect(page.getByLabel('Name')).toBeFocused();
  await page.getByLabel('Name').fill('Exported field');
  await page.getByLabel('Parcel number').fill('55:1');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Exported field');
  await expect(page.getByRole('button', { name: 'Edit' })).toBeFocused();
  await expect(page.getByTestId('field-properties')).toContainText('55:1');

  await page.getByRole('button', { name: 'Flight plan (KMZ)' }).click();
  await page.getByLabel('Flight height, m').fill('80');
  const kmzWait = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download' }).click();
  const kmz = await kmzWait;
  expect(kmz.suggestedFilename()).toBe('Exported_field.kmz');
  const kmzBytes = await (await kmz.createReadStream()).toArray();
  expect(Buffer.concat(kmzBytes).subarray(0, 2).toString()).toBe('PK');
  // What the flight takes, as the answer's headers give it, for the operator to count batteries by.
  await expect(page.getByTestId('flight-summary')).toHaveText(/^Flight plan saved: about \d+ min in the air, [\d.]+ km, \d+ photos \(take-off, landing and battery changes not included\)\.$/);

  const pdfWait = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Report (PDF)' }).click();
  const pdf = await pdfWait;
  expect(pdf.suggestedFilename()).toBe('Exported field.pdf');
  const pdfBytes = Buffer.concat(await (await pdf.createReadStream()).toArray());
  expect(pdfBytes.subarray(0, 5).toString()).toBe('%PDF-');

  // An out-of-range flight parameter is explained, not downloaded.
  await page.getByRole('button', { name: 'Flight plan (KMZ)' }).click();
  // (The input's own limit is lifted to show what the server says about it.)
  await page.getByLabel('Flight height, m').evaluate((el: HTMLInputElement) => el.removeAttribute('max'));
  await page.getByLabel('Flight height, m').fill('900');
  await page.getByRole('button', { name: 'Download' }).click();
  await expect(page.getByRole('main').getByRole('alert')).toContainText('height');
});

test('the flight plan is written for the drone chosen, and the browser remembers the choice', async ({ page }) => {
  await registerCompany(page.request);
  const id = await createField(page.request, { name: 'Survey' });
  await page.goto(`/fields/${id}`);
  await page.getByRole('button', { name: en.exports.kmz }).click();
  const form = page.getByRole('form', { name: en.exports.kmz });
  const drone = form.getByLabel(en.exports.drone);
  await expect(drone).toHaveValue('mavic3m');
  await expect(drone.locator('option')).toHaveText([
    en.exports.drone_mavic3m, en.exports.drone_mavic3e, en.exports.drone_matrice3d, en.exports.drone_matrice4e, en.exports.drone_m350_p1, en.exports.drone_m300_p1,
  ]);
  await drone.selectOption({ label: en.exports.drone_m350_p1 });
  const [request, file] = await Promise.all([
    page.waitForRequest((r) => r.url().includes(`/api/field/export/kmz/${id}?`)),
    page.waitForEvent('download'),
    form.getByRole('button', { name: en.exports.download }).click(),
  ]);
  expect(new URL(request.url()).searchParams.get('drone')).toBe('m350_p1');
  // The aircraft Pilot 2 checks on import: Matrice 350 RTK (89) with the Zenmuse P1 (50).
  const zip = await JSZip.loadAsync(Buffer.concat(await (await file.createReadStream()).toArray()));
  const waylines = await zip.file('wpmz/waylines.wpml')!.async('string');
  expect(waylines).toContain('<wpml:droneEnumValue>89</wpml:droneEnumValue>');
  expect(waylines).toContain('<wpml:payloadEnumValue>50</wpml:payloadEnumValue>');

  // Another day, another field: the same aircraft is offered.
  await page.reload();
  await page.getByRole('button', { name: en.exports.kmz }).click();
  await expect(page.getByRole('form', { name: en.exports.kmz }).getByLabel(en.exports.drone)).toHaveValue('m350_p1');
});

test('the fields table names each row’s controls, and its KMZ buttons use the remembered drone and are busy while the plan downloads', async ({ page }) => {
  await registerCompany(page.request);
  const alpha = await createField(page.request, { name: 'Alpha', geometry: square(17.3, 48.15) });
  await createField(page.request, { name: 'Beta', geometry: square(17.31, 48.15) });
  // The drone the field page's export panel remembered.
  await page.addInitScript(() => window.localStorage.setItem('fieldmap.kmz.drone', 'm350_p1'));
  await page.goto('/fields');
  const row = page.getByTestId(`field-row-${alpha}`);
  const name = (template: string) => template.replace('{name}', 'Alpha');
  await expect(row.getByRole('link', { name: name(en.fields.show_on_map_of), exact: true })).toHaveAttribute('href', `/map?field=${alpha}`);
  await expect(row.getByRole('button', { name: name(en.fields.edit_of), exact: true })).toBeVisible();
  const kmz = row.getByRole('button', { name: name(en.fields.kmz_of), exact: true });
  await expect(page.getByRole('button', { name: 'Edit “Beta”', exact: true })).toBeVisible();

  // Each plan is held back until the test has seen the button busy and clicked it again meanwhile
  // (a fixed hold was too short for a busy machine).
  const asked: string[] = [];
  const held: (() => void)[] = [];
  await page.route('**/api/field/export/kmz/**', async (route) => {
    asked.push(route.request().url());
    await new Promise<void>((release) => held.push(release));
    await route.continue();
  });
  const releasePlan = async (n: number) => {
    await expect.poll(() => asked.length).toBe(n);
    await expect.poll(() => held.length).toBe(1);
    held.shift()!();
  };
  const saved = page.waitForEvent('download');
  await kmz.click();
  await expect(kmz).toHaveAttribute('aria-busy', 'true');
  await expect(kmz).toHaveAttribute('aria-disabled', 'true');
  // Forced: Playwright waits for an aria-disabled button to be enabled, a person clicks it at once.
  await kmz.click({ force: true });
  await releasePlan(1);
  const file = await saved;
  expect(file.suggestedFilename()).toBe('Alpha.kmz');
  await expect(kmz).not.toHaveAttribute('aria-busy', 'true');
  expect(asked).toHaveLength(1);
  expect(new URL(asked[0]!).searchParams.get('drone')).toBe('m350_p1');
  const waylines = await (await JSZip.loadAsync(Buffer.concat(await (await file.createReadStream()).toArray()))).file('wpmz/waylines.wpml')!.async('string');
  expect(waylines).toContain('<wpml:droneEnumValue>89</wpml:droneEnumValue>');

  const all = page.getByRole('button', { name: en.fields.export_all_kmz });
  const zipSaved = page.waitForEvent('download');
  await all.click();
  await expect(all).toHaveAttribute('aria-busy', 'true');
  await all.click({ force: true });
  await releasePlan(2);
  expect((await zipSaved).suggestedFilename()).toBe('fields_kmz.zip');
  expect(asked).toHaveLength(2);
  expect(new URL(asked[1]!).pathname).toBe('/api/field/export/kmz/all');
  expect(new URL(asked[1]!).searchParams.get('drone')).toBe('m350_p1');
});

test('a long fields table shows a hundred rows a page, totals all of them, and sorts across pages', async ({ page }) => {
  await registerCompany(page.request);
  // 105 fields: Field 001 (the smallest) to Field 105 (the largest).
  for (let start = 1; start <= 105; start += 15) {
    await Promise.all(
      Array.from({ length: Math.min(15, 106 - start) }, (_, k) => start + k).map((i) =>
        createField(page.request, { name: `Field ${String(i).padStart(3, '0')}`, geometry: square(17 + i * 0.02, 48.15, 0.001 + i * 0.00001) }),
      ),
    );
  }
  await page.goto('/fields');
  const table = page.getByTestId('fields-table');
  const pager = page.getByTestId('fields-pager');
  await expect(table.locator('tbody tr')).toHaveCount(100);
  await expect(page.getByTestId('fields-total-count')).toHaveText('Total: 105 fields');
  await expect(page.getByTestId('fields-range')).toHaveText('Fields 1–100 of 105');
  await expect(pager.getByRole('button', { name: 'Previous' })).toBeDisabled();

  await pager.getByRole('button', { name: 'Next' }).click();
  await expect(table.locator('tbody tr')).toHaveCount(5);
  await expect(page.getByTestId('fields-range')).toHaveText('Fields 101–105 of 105');
  await expect(table.locator('tbody tr').first()).toContainText('Field 101');
  await expect(pager.getByRole('button', { name: 'Next' })).toBeDisabled();

  // Sorting orders all the rows, not the page, and starts again at the first page.
  await table.getByRole('button', { name: 'Area, ha' }).click();
  await table.getByRole('button', { name: /Area, ha/ }).click();
  await expect(page.getByTestId('fields-range')).toHaveText('Fields 1–100 of 105');
  await expect(table.locator('tbody tr').first()).toContainText('Field 105');
  await expect(table.locator('tbody tr').last()).toContainText('Field 006');

  // The order and page live in the address: Back from a field shows the table as it was left.
  await expect(page).toHaveURL(/\/fields\?sort=area&dir=desc$/);
  await pager.getByRole('button', { name: 'Next' }).click();
  await expect(page).toHaveURL(/\/fields\?sort=area&dir=desc&page=2$/);
  await table.getByRole('link', { name: 'Field 001', exact: true }).click();
  await expect(page).toHaveURL(/\/fields\/\d+$/);
  await page.goBack();
  await expect(page.getByTestId('fields-range')).toHaveText('Fields 101–105 of 105');
  await expect(table.locator('tbody tr').last()).toContainText('Field 001');
  await page.reload();
  await expect(page.getByTestId('fields-range')).toHaveText('Fields 101–105 of 105');
  await pager.getByRole('button', { name: 'Previous' }).click();
  await expect(page).toHaveURL(/\/fields\?sort=area&dir=desc$/);
  await expect(table.locator('tbody tr').first()).toContainText('Field 105');

  // A register imported without statuses: all 105 fields leased in one go, from the page's
  // selection widened to every matching field.
  const bulk = page.getByRole('region', { name: 'Change the selected fields' });
  await expect(bulk).toHaveCount(0);
  await table.getByLabel('Select the fields on this page').check();
  await expect(bulk).toContainText('100 fields selected');
  await bulk.getByRole('button', { name: 'Select all 105' }).click();
  await expect(bulk).toContainText('105 fields selected');
  await expect(bulk.getByRole('button', { name: 'Apply to the selected' })).toBeDisabled();
  await bulk.getByLabel('Status').selectOption({ label: 'Leased' });
  await bulk.getByRole('button', { name: 'Apply to the selected' }).click();
  await expect(page.getByRole('status')).toHaveText('105 fields updated');
  await expect(bulk).toHaveCount(0);
  await expect(table.locator('tbody tr').first()).toContainText('Leased');
  expect((await (await page.request.get('/api/stats')).json()).by_status).toEqual({ Аренда: expect.any(Number) });

  // Two fields to one owner; their status stays.
  const owner = await (await page.request.post('/api/owners', { data: { name: 'Agro Owner' } })).json();
  await page.goto('/fields');
  for (const name of ['Field 001', 'Field 002']) await table.getByLabel(`Select “${name}”`).check();
  await bulk.getByLabel('Owner').selectOption({ label: 'Agro Owner' });
  await bulk.getByRole('button', { name: 'Apply to the selected' }).click();
  await expect(page.getByRole('status')).toHaveText('2 fields updated');
  await expect(table.locator('tbody tr').filter({ hasText: 'Agro Owner' })).toHaveCount(2);
  const owned = (await (await page.request.get(`/api/fields?owner_id=${owner.id}`)).json()).features as { properties: { name: string; status: string } }[];
  expect(owned.map((f) => [f.properties.name, f.properties.status]).sort()).toEqual([['Field 001', 'Аренда'], ['Field 002', 'Аренда']]);
});

test('two adjacent parcels selected in the table are merged into one field, which lists the other', async ({ page }) => {
  await registerCompany(page.request);
  const west = await createField(page.request, { name: 'West parcel', geometry: square(18.1, 49.1, 0.004), parcel_number: '10:1' });
  const east = await createField(page.request, { name: 'East parcel', geometry: square(18.104, 49.1, 0.004), parcel_number: '10:2' });
  const areas = (await (await page.request.get('/api/fields')).json()).features.map((f: { properties: { area: number } }) => f.properties.area) as number[];

  await page.goto('/fields');
  const table = page.getByTestId('fields-table');
  await table.getByLabel('Select “West parcel”').check();
  const bulk = page.getByRole('region', { name: 'Change the selected fields' });
  // One field cannot be merged.
  await expect(bulk.getByRole('button', { name: 'Merge into one field…' })).toHaveCount(0);
  await table.getByLabel('Select “East parcel”').check();
  await bulk.getByRole('button', { name: 'Merge into one field…' }).click();

  const merge = page.getByRole('region', { name: 'Merge the selected fields into one' });
  // The larger (here the same size: the first) is offered; the person keeps the east one, renamed.
  await merge.getByLabel(/East parcel/).check();
  await merge.getByLabel('Name of the merged field').fill('Whole field');
  await merge.getByRole('button', { name: 'Merge 2 fields' }).click();

  await expect(page.getByRole('status')).toHaveText('2 fields merged into “Whole field”');
  await expect(table.locator('tbody tr')).toHaveCount(1);
  await expect(table.locator('tbody tr')).toContainText('Whole field');
  await expect(table.locator('tbody tr')).toContainText('10:2');
  const merged = await (await page.request.get(`/api/fields/${east}`)).json();
  expect(merged.area).toBeCloseTo(areas[0]! + areas[1]!, 3);
  expect((await page.request.get(`/api/fields/${west}`)).status()).toBe(404);

  await page.goto(`/fields/${east}`);
  const mergedFrom = page.getByTestId('merged-from');
  await expect(mergedFrom).toContainText('West parcel');
  await expect(mergedFrom).toContainText('10:1');

  // Farmed apart again: taken back out, it is a field of its own, with its old id and parcel number.
  await mergedFrom.getByRole('button', { name: 'Take out the parcel “West parcel” into a field of its own' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'The parcel “West parcel” is a field of its own again.' })).toBeVisible();
  await expect(mergedFrom).toHaveCount(0);
  expect(await (await page.request.get(`/api/fields/${west}`)).json()).toMatchObject({ name: 'West parcel', parcel_number: '10:1' });
  expect((await (await page.request.get(`/api/fields/${east}`)).json()).area).toBeCloseTo(areas[1]!, 3);
  await page.getByRole('status').getByRole('link', { name: 'Open field page' }).click();
  await expect(page).toHaveURL(new RegExp(`/fields/${west}$`));
});

/** A one-band index GeoTIFF rising from west to east (three zones make three strips), and a field within it. */
function gradientIndexTiff() {
  const [west, north, pixel, width, height] = [21, 50, 0.0001, 200, 150];
  const pixels = new Float32Array(width * height).map((_, i) => 0.1 + (0.8 * (i % width)) / (width - 1));
  const bytes = tiffBytes({ width, height, pixels, georef: { epsg: 4326, origin: [west, north], pixel } });
  const [w, e, s, n] = [west + 20 * pixel, west + 180 * pixel, north - 130 * pixel, north - 20 * pixel];
  return { bytes, field: { type: 'Polygon', coordinates: [[[w, s], [e, s], [e, n], [w, n], [w, s]]] } };
}

test('ISOXML task data waits for a rate for every zone, and says which are missing, when the company has no default rates', async ({ page }) => {
  const account = await registerCompany(page.request);
  const raster = gradientIndexTiff();
  const id = await createField(page.request, { name: 'Prescription', geometry: raster.field });
  const res = await page.request.post('/upload', { multipart: { field_id: String(id), zones: '3', raster_file: { name: 'gradient.tif', mimeType: 'image/tiff', buffer: raster.bytes } } });
  expect(res.status(), await res.text()).toBe(202);
  const taskId = (await res.json()).task_id as string;
  await expect.poll(async () => (await (await page.request.get(`/api/tasks/${taskId}`)).json()).status, { timeout: 60_000 }).toBe('completed');

  await page.goto(`/fields/${id}`);
  await expect(page.getByTestId('zones-table').locator('tbody tr')).toHaveCount(3);
  await page.getByRole('button', { name: en.exports.isoxml }).click();
  const form = page.getByRole('form', { name: en.exports.isoxml });
  const rates = form.getByLabel(en.exports.rates);
  const download = form.getByRole('button', { name: en.exports.download });
  // No example rates that look filled in: the box is empty, says why, and nothing downloads.
  await expect(rates).toHaveValue('');
  await expect(rates).not.toHaveAttribute('placeholder', /\d:\d/);
  await expect(form.getByTestId('rates-missing')).toHaveText(en.exports.rates_missing.replace('{classes}', '1, 2, 3'));
  await expect(download).toBeDisabled();
  await rates.fill('1:100, 2:120');
  await expect(form.getByTestId('rates-missing')).toHaveText(en.exports.rates_missing.replace('{classes}', '3'));
  await expect(download).toBeDisabled();
  await rates.fill('1:100, 2:120, 3:0');
  await expect(form.getByTestId('rates-missing')).toHaveCount(0);
  const isoWait = page.waitForEvent('download');
  await download.click();
  const iso = await isoWait;
  expect(iso.suggestedFilename()).toMatch(/\.zip$/i);
  await expect(page.getByRole('main').getByRole('alert')).toHaveCount(0);

  // With the company's default rates set, the box starts with them and Download is ready.
  const put = await page.request.put('/api/auth/company', { data: { name: account.company, settings: { zone_rates: { 1: 90, 2: 110, 3: 130 } } } });
  expect(put.status(), await put.text()).toBe(200);
  await page.reload();
  await page.getByRole('button', { name: en.exports.isoxml }).click();
  await expect(rates).toHaveValue('1:90,2:110,3:130');
  await expect(form.getByTestId('rates-missing')).toHaveCount(0);
  await expect(download).toBeEnabled();
  // Emptied, the company's rates still cover every zone.
  await rates.fill('');
  await expect(download).toBeEnabled();
});

test('a scan over part of a field says on its page how much of the field is zoned, and lists the rest as not zoned', async ({ page }) => {
  await registerCompany(page.request);
  const raster = gradientIndexTiff();
  const [w, s, e, n] = bboxOf(raster.field);
  // One field under the raster, one reaching as far again east, 140 of its 320 columns beyond the raster's.
  const whole = await createField(page.request, { name: 'Under the raster', geometry: raster.field });
  const half = await createField(page.request, { name: 'Half beyond it', geometry: { type: 'Polygon', coordinates: [[[w, s], [e + (e - w), s], [e + (e - w), n], [w, n], [w, s]]] } });
  const zoned = async (id: number) => {
    const res = await page.request.post('/upload', { multipart: { field_id: String(id), zones: '3', raster_file: { name: 'gradient.tif', mimeType: 'image/tiff', buffer: raster.bytes } } });
    expect(res.status(), await res.text()).toBe(202);
    const taskId = (await res.json()).task_id as string;
    await expect.poll(async () => (await (await page.request.get(`/api/tasks/${taskId}`)).json()).status, { timeout: 60_000 }).toBe('completed');
    const scanId = (await (await page.request.get(`/api/tasks/${taskId}`)).json()).result.scan_id as number;
    const zones = (await (await page.request.get(`/api/scans/${scanId}`)).json()).scan.zones.features as { properties: { area_ha: number } }[];
    const area = (await (await page.request.get(`/api/fields/${id}`)).json()).area as number;
    return { zonedHa: zones.reduce((sum, z) => sum + z.properties.area_ha, 0), area };
  };
  const ha = (v: number) => v.toLocaleString('en-US', { minimumFractionDigits: 4, maximumFractionDigits: 4 });
  const line = (zonedHa: number, area: number) =>
    en.report.coverage_zoned.replace('{zoned}', ha(zonedHa)).replace('{field}', ha(area)).replace('{share}', Math.min(1, zonedHa / area).toLocaleString('en-US', { style: 'percent', maximumFractionDigits: 0 }));

  const partial = await zoned(half);
  // The raster's columns 20-200 of the field's 20-340.
  expect(partial.zonedHa / partial.area).toBeCloseTo(180 / 320, 2);
  await page.goto(`/fields/${half}`);
  const facts = page.getByTestId('scan-facts');
  await expect(facts.getByTestId('scan-coverage')).toHaveText(line(partial.zonedHa, partial.area));
  await expect(facts.getByTestId('scan-coverage')).toHaveAttribute('data-partial', 'true');
  await expect(facts).toContainText(`${en.report.coverage}${line(partial.zonedHa, partial.area)}${en.field.coverage_partial}`);
  // The zone table's shares are of the field, and the ground without data is a row of its own.
  const table = page.getByTestId('zones-table');
  await expect(table.locator('thead')).toContainText(en.report.zone_share_field);
  await expect(table.locator('tbody tr')).toHaveCount(3);
  await expect(table.getByTestId('zones-unzoned')).toHaveText(en.report.zone_unzoned);
  await expect(table.locator('tfoot tr')).toContainText(`${en.report.zone_unzoned}${ha(partial.area - partial.zonedHa)}${(1 - partial.zonedHa / partial.area).toLocaleString('en-US', { style: 'percent', minimumFractionDigits: 1, maximumFractionDigits: 1 })}`);

  // Wholly under the raster: all of it zoned, nothing flagged, no row for ground without data.
  const full = await zoned(whole);
  await page.goto(`/fields/${whole}`);
  await expect(facts.getByTestId('scan-coverage')).toHaveText(line(full.zonedHa, full.area));
  await expect(facts.getByTestId('scan-coverage')).toContainText('(100%)');
  await expect(facts.getByTestId('scan-coverage')).not.toHaveAttribute('data-partial', 'true');
  await expect(facts).not.toContainText(en.field.coverage_partial);
  await expect(table.locator('tbody tr')).toHaveCount(3);
  await expect(table.locator('tfoot')).toHaveCount(0);
});

function bboxOf(polygon: { coordinates: number[][][] }): [number, number, number, number] {
  const ring = polygon.coordinates[0]!;
  const xs = ring.map((p) => p[0]!), ys = ring.map((p) => p[1]!);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}
