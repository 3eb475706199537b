// The flight plan drawn before its KMZ is downloaded: the same waypoints as the file, redrawn as the
// parameters change, in each language.
import { expect, test, type Page } from '@playwright/test';
import JSZip from 'jszip';
import en from '../../messages/en.json' with { type: 'json' };
import ru from '../../messages/ru.json' with { type: 'json' };
import sk from '../../messages/sk.json' with { type: 'json' };
import { createField, registerCompany, square } from './helpers';

const MESSAGES = { ru, en, sk } as const;

test.use({ viewport: { width: 1366, height: 900 } });

/** The waypoints the preview shows once it has caught up with the form (the attribute is absent while it plans). */
async function previewWaypoints(page: Page): Promise<number> {
  const summary = page.getByTestId('flight-preview-summary');
  await expect(summary).toHaveAttribute('data-waypoints', /^\d+$/);
  return Number(await summary.getAttribute('data-waypoints'));
}

async function kmzWaypoints(page: Page, button: string): Promise<number> {
  const wait = page.waitForEvent('download');
  await page.getByRole('button', { name: button }).click();
  const bytes = Buffer.concat(await (await (await wait).createReadStream()).toArray());
  const waylines = await (await JSZip.loadAsync(bytes)).file('wpmz/waylines.wpml')!.async('string');
  return (waylines.match(/<Placemark>/g) ?? []).length;
}

test('the preview draws as many waypoints as the downloaded KMZ has, and changes with height and overlap', async ({ page }) => {
  await registerCompany(page.request, 'en');
  const id = await createField(page.request, { name: 'Preview', geometry: square(17.1, 48.15, 0.006) });
  await page.goto(`/fields/${id}`);
  await page.getByRole('button', { name: en.exports.kmz }).click();
  const preview = page.getByTestId('flight-preview');
  await expect(preview.getByRole('heading', { name: en.exports.preview_title })).toBeVisible();
  await expect(preview.locator('path.fm-flight-path')).toHaveCount(1);
  await expect(preview.getByTestId('flight-preview-summary')).toHaveText(/^\d+ waypoints: about \d+ min in the air, [\d.]+ km, \d+ photos, \d+ batter(y|ies) \(keeping 30 % of each in reserve\)\.$/);

  const first = await previewWaypoints(page);
  expect(first).toBe(await kmzWaypoints(page, en.exports.download));

  // Lower: narrower photos, more lines, more waypoints; the summary follows without a download.
  await page.getByRole('button', { name: en.exports.kmz }).click();
  await page.getByLabel(en.exports.height).fill('50');
  await expect.poll(() => previewWaypoints(page)).toBeGreaterThan(first);
  const lower = await previewWaypoints(page);
  expect(lower).toBe(await kmzWaypoints(page, en.exports.download));

  // More side overlap: closer lines again.
  await page.getByRole('button', { name: en.exports.kmz }).click();
  await expect(page.getByLabel(en.exports.height)).toHaveValue('50');
  await page.getByLabel(en.exports.overlap_w).fill('85');
  await expect.poll(() => previewWaypoints(page)).toBeGreaterThan(lower);
  expect(await previewWaypoints(page)).toBe(await kmzWaypoints(page, en.exports.download));

  // A height the KMZ refuses is explained in the preview, as the download would be.
  await page.getByRole('button', { name: en.exports.kmz }).click();
  await page.getByLabel(en.exports.height).fill('5');
  await expect(page.getByTestId('flight-preview-summary')).toContainText('height');
});

for (const lang of ['ru', 'sk'] as const) {
  test(`the preview speaks ${lang}`, async ({ page }) => {
    const m = MESSAGES[lang];
    await registerCompany(page.request, lang);
    const id = await createField(page.request, { name: 'Náhľad', geometry: square(17.1, 48.15) });
    await page.goto(`/fields/${id}`);
    await page.getByRole('button', { name: m.exports.kmz }).click();
    await expect(page.getByTestId('flight-preview').getByRole('heading', { name: m.exports.preview_title })).toBeVisible();
    await previewWaypoints(page);
    const words = lang === 'ru' ? /^\d+ точ\S+ маршрута: около \d+ мин в воздухе, [\d,]+ км, \d+ сним\S+, \d+ аккумулятор\S* \(с запасом 30 % заряда каждого\)\.$/ : /^\d+ bod\S* trasy: asi \d+ min vo vzduchu, [\d,]+ km, \d+ sním\S+, \d+ batéri\S+ \(s rezervou 30 % každej\)\.$/;
    await expect(page.getByTestId('flight-preview-summary')).toHaveText(words);
  });
}
