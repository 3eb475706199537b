import { mkdirSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { allNodataIndexTiff } from '../helpers/tiff';
import { UNTRANSLATED, createField, registerCompany, square } from './helpers';
import en from '../../messages/en.json' with { type: 'json' };
import ru from '../../messages/ru.json' with { type: 'json' };
import sk from '../../messages/sk.json' with { type: 'json' };

const MESSAGES = { ru, en, sk } as const;
type Lang = keyof typeof MESSAGES;

test('signed out, the language switcher sets the language of every label (NEXT_LOCALE cookie)', async ({ browser }) => {
  const context = await browser.newContext({ locale: 'en-US' });
  const page = await context.newPage();
  await page.goto('/login');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(en.auth.login);
  await page.getByLabel(en.settings.language).selectOption('ru');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(ru.auth.login);
  await expect(page.locator('html')).toHaveAttribute('lang', 'ru');
  await expect(page.getByLabel(ru.auth.password)).toBeVisible();
  await expect(page.getByRole('link', { name: ru.auth.register }).first()).toBeVisible();
  expect((await context.cookies()).find((c) => c.name === 'NEXT_LOCALE')?.value).toBe('ru');
  // The choice outlives the page: a new visit is still in Russian although the browser asks for English.
  await page.goto('/register');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(ru.auth.register);
  await context.close();
});

test('signed in, switching the language saves it in the profile and changes every label at once', async ({ page }) => {
  await registerCompany(page.request, 'en');
  await page.goto('/map');
  const nav = page.getByRole('navigation', { name: en.nav.main });
  await expect(nav.getByRole('link', { name: en.nav.fields })).toBeVisible();
  await expect(page.getByRole('button', { name: en.map.draw_field })).toBeVisible();

  await page.getByLabel(en.settings.language).selectOption('sk');
  const skNav = page.getByRole('navigation', { name: sk.nav.main });
  await expect(skNav.getByRole('link', { name: sk.nav.fields })).toBeVisible();
  for (const key of ['map', 'owners', 'uploads', 'stats', 'profile', 'company'] as const) {
    await expect(skNav.getByRole('link', { name: sk.nav[key], exact: true })).toBeVisible();
  }
  await expect(page.getByRole('button', { name: sk.map.draw_field })).toBeVisible();
  await expect(page.getByRole('button', { name: sk.auth.logout })).toBeVisible();
  const profile = await (await page.request.get('/api/auth/profile')).json();
  expect(profile.user.language).toBe('sk');

  // The profile page changes it back, and API errors then come in that language too.
  await page.goto('/profile');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(sk.profile.title);
  await page.getByRole('form', { name: sk.profile.title }).getByLabel(sk.settings.language).selectOption('ru');
  await page.getByRole('button', { name: sk.profile.save }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(ru.profile.title);
  await expect(page.getByRole('status')).toHaveText(ru.profile.saved);
  const pw = page.getByRole('form', { name: ru.account.change_password });
  await pw.getByLabel(ru.profile.current_password, { exact: true }).fill('wrong-password');
  await pw.getByLabel(ru.profile.new_password, { exact: true }).fill('another-pass-1');
  await pw.getByLabel(ru.account.repeat_password).fill('another-pass-1');
  await pw.getByRole('button', { name: ru.account.change_password }).click();
  await expect(pw.getByRole('alert')).toHaveText(ru.errors.wrong_password);
});

const PAGES = ['/map', '/fields', '/fields/{id}', '/owners', '/uploads', '/stats', '/profile', '/company'];
const VIEWPORTS = [
  { width: 1366, height: 768 },
  { width: 390, height: 844 },
];

test('every page renders in ru, en and sk with no untranslated key; screenshots of each', async ({ page }) => {
  test.setTimeout(180_000);
  await registerCompany(page.request, 'ru');
  await page.request.post('/api/owners', { data: { name: 'ООО Рассвет' } });
  const id = await createField(page.request, { name: 'Поле у реки', status: 'Аренда', parcel_number: '61:02:1' });
  // A task with a long file name and a failure in words, so that the uploads page lists one (its
  // table once widened the page to 612 px on a phone).
  const nodata = allNodataIndexTiff();
  const fieldId = await createField(page.request, { name: 'Поле без данных', geometry: nodata.field });
  const upload = await page.request.post('/upload', {
    multipart: { field_id: String(fieldId), raster_file: { name: 'm_4709963_se_14_1_20190904_ndvi_without_any_valid_pixel.tif', mimeType: 'image/tiff', buffer: nodata.bytes } },
  });
  expect(upload.status(), await upload.text()).toBe(202);
  mkdirSync('test-results/screenshots', { recursive: true });

  for (const lang of ['ru', 'en', 'sk'] as Lang[]) {
    const res = await page.request.put('/api/auth/profile', { data: { language: lang } });
    expect(res.ok()).toBe(true);
    for (const viewport of VIEWPORTS) {
      await page.setViewportSize(viewport);
      for (const path of PAGES) {
        const url = path.replace('{id}', String(id));
        await page.goto(url);
        await expect(page.locator('html')).toHaveAttribute('lang', lang);
        await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
        if (path.includes('map') || path.includes('{id}')) {
          await expect(page.locator('.leaflet-container')).toBeVisible();
          // Leaflet's own controls speak the page's language too.
          await expect(page.locator('.leaflet-container').getByRole('button', { name: MESSAGES[lang].map.zoom_in, exact: true })).toBeVisible();
        }
        await expect(page.getByRole('navigation', { name: MESSAGES[lang].nav.main })).toBeVisible();
        const text = await page.locator('body').innerText();
        expect(text, `${url} in ${lang}`).not.toMatch(UNTRANSLATED);
        // Nothing wider than the window: no page scrolls sideways.
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow, `${url} in ${lang} at ${viewport.width}px`).toBeLessThanOrEqual(0);
        await page.screenshot({ path: `test-results/screenshots/${lang}-${url.slice(1).replace(/\//g, '_')}-${viewport.width}.png`, fullPage: true });
      }
    }
  }
});

test('times are shown in the company’s time zone, chosen on the company page', async ({ page }) => {
  await registerCompany(page.request);
  const id = await createField(page.request, { name: 'Timed', geometry: square(19, 49, 0.004) });
  const changed = new Date((await (await page.request.get(`/api/fields/${id}`)).json()).updated_at as string);
  const shown = (timeZone: string) => new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short', timeZone }).format(changed);

  await page.goto('/company');
  const settings = page.locator('section').filter({ has: page.getByRole('heading', { name: 'Company settings' }) });
  // A choice made before the page's script runs would be undone by it: Save is enabled once it has run.
  await expect(settings.getByRole('button', { name: 'Save' })).toBeEnabled();
  await settings.getByLabel('Time zone').selectOption('Asia/Vladivostok');
  await settings.getByRole('button', { name: 'Save' }).click();
  await expect(settings.getByRole('status')).toHaveText('Company saved');
  await page.goto(`/fields/${id}`);
  await expect(page.getByText(shown('Asia/Vladivostok'))).toBeVisible();

  // Back to the server's zone.
  await page.goto('/company');
  await expect(settings.getByRole('button', { name: 'Save' })).toBeEnabled();
  await settings.getByLabel('Time zone').selectOption({ index: 0 });
  await settings.getByRole('button', { name: 'Save' }).click();
  await expect(settings.getByRole('status')).toHaveText('Company saved');
  await page.goto(`/fields/${id}`);
  await expect(page.getByText(shown(Intl.DateTimeFormat().resolvedOptions().timeZone))).toBeVisible();
});

test('the statistics bars give each area with its unit, in the page’s language and number format', async ({ page }) => {
  await registerCompany(page.request, 'ru');
  await createField(page.request, { name: 'Поле', status: 'Аренда', geometry: square(17.1, 48.15) });
  const area = (await (await page.request.get('/api/stats')).json()).total_area as number;
  const locales: Record<Lang, string> = { ru: 'ru-RU', en: 'en-US', sk: 'sk-SK' };
  for (const lang of ['ru', 'en', 'sk'] as Lang[]) {
    expect((await page.request.put('/api/auth/profile', { data: { language: lang } })).ok()).toBe(true);
    await page.goto('/stats');
    const value = area.toLocaleString(locales[lang], { minimumFractionDigits: 4, maximumFractionDigits: 4 });
    const bars = page.getByRole('list', { name: MESSAGES[lang].stats.by_status });
    await expect(bars.locator('li')).toHaveCount(1);
    await expect(bars.locator('li').locator('span').last()).toHaveText(MESSAGES[lang].common.ha.replace('{value}', value));
  }
});
