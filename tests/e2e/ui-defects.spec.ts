// Defects seen in the browser (issue 39, point 6): statistics bars and crop year, shapefile imports in
// the recent tasks, the uploads page's dates, time zone names, Escape on an owner's rename.
import { expect, test } from '@playwright/test';
import en from '../../messages/en.json' with { type: 'json' };
import ru from '../../messages/ru.json' with { type: 'json' };
import sk from '../../messages/sk.json' with { type: 'json' };
import { shapefileZip, square as metreSquare } from '../helpers/shapefile-zip';
import { gradientIndexTiff } from '../helpers/tiff';
import { createField, registerCompany, square } from './helpers';

const MESSAGES = { ru, en, sk } as const;

test.use({ viewport: { width: 1366, height: 900 } });

test('statistics: every bar of a list has a track of one width, and the crop year is chosen among the years with scans, the latest first', async ({ page }) => {
  await registerCompany(page.request, 'en');
  // Areas of very different lengths written out ("0.0168 ha" and "1,681.x ha"): each row's own grid gave them tracks of different widths.
  await createField(page.request, { name: 'Tiny', geometry: square(17.1, 48.15, 0.0001), status: 'Аренда' });
  await createField(page.request, { name: 'Huge', geometry: square(17.2, 48.15, 0.05), status: 'Собственность' });
  const raster = gradientIndexTiff();
  const scanned = await createField(page.request, { name: 'Scanned', geometry: raster.field });
  const upload = await page.request.post('/upload', { multipart: { field_id: String(scanned), zones: '3', captured_at: '2021-06-01', raster_file: { name: 'g.tif', mimeType: 'image/tiff', buffer: raster.bytes } } });
  expect(upload.status(), await upload.text()).toBe(202);
  const taskId = (await upload.json()).task_id as string;
  await expect.poll(async () => (await (await page.request.get(`/api/tasks/${taskId}`)).json()).status, { timeout: 30_000 }).toBe('completed');

  await page.goto('/stats');
  const bars = page.getByRole('list', { name: en.stats.by_status });
  // Leased, owned, and the scanned field with no status.
  await expect(bars.locator('li')).toHaveCount(3);
  const widths = await bars.getByTestId('stats-bar-track').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().width));
  expect(widths).toHaveLength(3);
  expect(Math.max(...widths) - Math.min(...widths)).toBeLessThan(0.5);

  // The year with data, not this year (which has none); only years with scans are offered.
  const year = page.getByRole('combobox', { name: en.stats.crop_year });
  await expect(year).toHaveValue('2021');
  await expect(year.locator('option')).toHaveText(['2021']);
  await expect(page.getByRole('heading', { name: en.stats.by_crop.replace('{year}', '2021') })).toBeVisible();
  // A year asked for by a link is still shown, marked as having no scans.
  await page.goto('/stats?year=2019');
  await expect(year).toHaveValue('2019');
  await expect(year.locator('option')).toHaveText(['2021', en.stats.year_no_scans.replace('{year}', '2019')]);
  await year.selectOption('2021');
  await page.getByRole('button', { name: en.common.apply }).click();
  await expect(page).toHaveURL(/year=2021/);
});

test('uploads: a shapefile import is in the recent tasks list, dated as other pages date', async ({ page }) => {
  await registerCompany(page.request, 'en');
  await page.goto('/uploads');
  await expect(page.getByText(en.uploads.recent.empty)).toBeVisible();
  const zip = await shapefileZip({ features: [{ geometry: metreSquare(17.1, 48.1), properties: { name: 'A' } }] });
  const form = page.getByRole('form', { name: en.uploads.shapefile_title });
  await form.getByLabel(en.uploads.shapefile_file).setInputFiles({ name: 'parcels.zip', mimeType: 'application/zip', buffer: Buffer.from(zip) });
  await form.getByRole('button', { name: en.uploads.import }).click();
  await expect(page.getByTestId('shapefile-result')).toBeVisible();
  const row = page.getByTestId('recent-tasks').locator('tbody tr');
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('parcels.zip');
  await expect(row).toContainText(en.uploads.shapefile_title);
  await expect(row).toContainText('1 field created');
  // "Nov 28, 2026, 9:05 AM" as the company and profile pages write it, not "11/28/26, 9:05 AM".
  await expect(row.locator('td').first()).toHaveText(/^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2}\s[AP]M$/);
});

for (const lang of ['ru', 'en', 'sk'] as const) {
  test(`company: time zones are named in the page's language (${lang})`, async ({ page }) => {
    const m = MESSAGES[lang];
    await registerCompany(page.request, lang);
    await page.goto('/company');
    const zone = page.getByLabel(m.company.time_zone);
    const moscow = zone.locator('option[value="Europe/Moscow"]');
    const name = { ru: /^Москва/, en: /^Moscow/, sk: /^moskovsk/ }[lang];
    await expect(moscow).toHaveText(new RegExp(`${name.source}.*\\(Europe/Moscow, GMT\\+03:00\\)$`));
    await zone.selectOption('Europe/Moscow');
    await page.getByRole('button', { name: m.common.save, exact: true }).last().click();
    await expect(page.getByText(m.auth.company_updated)).toBeVisible();
    expect((await (await page.request.get('/api/auth/company')).json()).company.settings.time_zone).toBe('Europe/Moscow');
  });
}

test('owners: Escape cancels a rename, as Cancel does, and gives the focus back to Rename', async ({ page }) => {
  await registerCompany(page.request, 'en');
  await page.request.post('/api/owners', { data: { name: 'Kolkhoz Zarya' } });
  await page.goto('/owners');
  const table = page.getByTestId('owners-table');
  await table.getByRole('button', { name: en.owners.rename_of.replace('{name}', 'Kolkhoz Zarya') }).click();
  const name = table.getByRole('textbox', { name: en.owners.name });
  await expect(name).toBeFocused();
  await name.fill('Something else');
  await page.keyboard.press('Escape');
  await expect(name).toHaveCount(0);
  await expect(table).toContainText('Kolkhoz Zarya');
  await expect(table.getByRole('button', { name: en.owners.rename_of.replace('{name}', 'Kolkhoz Zarya') })).toBeFocused();
  expect(JSON.stringify(await (await page.request.get('/api/owners')).json())).not.toContain('Something else');
});
