import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Page, expect, test } from '@playwright/test';
import en from '../../messages/en.json' with { type: 'json' };
import { gradientIndexTiff } from '../helpers/tiff';
import { UNDER_NAIP, addUser, createField, registerCompany } from './helpers';

test.use({ locale: 'en-US', viewport: { width: 1366, height: 768 } });

const SHARED = process.env.FIELDMAP_SHARED ?? join(import.meta.dirname, '..', '..', '..', 'shared');
const NAIP = join(SHARED, 'data', 'raster', 'naip', 'm_4709963_se_14_1_20190904.tif');
const AXE = join(import.meta.dirname, '..', '..', 'node_modules', 'axe-core', 'axe.min.js');

test('a raster upload keeps the focus on its busy button, and the live region says when the zones are done', async ({ page }) => {
  test.skip(!existsSync(NAIP), `shared data not found at ${NAIP} (set FIELDMAP_SHARED)`);
  test.setTimeout(120_000);
  await registerCompany(page.request);
  const id = await createField(page.request, { name: 'NAIP field', geometry: UNDER_NAIP });
  await page.goto(`/uploads?field=${id}`);
  const form = page.getByRole('form', { name: en.uploads.raster_title });
  const submit = form.getByRole('button', { name: en.uploads.start_zoning });
  await expect(submit).toBeEnabled();
  await form.getByLabel(en.uploads.index).selectOption('ndvi');
  await form.getByLabel(en.uploads.captured_at).fill('2019-09-04');
  await form.getByLabel(en.uploads.raster_file).setInputFiles({ name: 'naip.tif', mimeType: 'image/tiff', buffer: readFileSync(NAIP) });

  // Every text the live region takes, as it takes it.
  await page.evaluate(() => {
    const seen: string[] = ((window as unknown as { spoken: string[] }).spoken = []);
    new MutationObserver(() => {
      const text = document.querySelector('[data-testid=task-announcement]')?.textContent ?? '';
      if (text && text !== seen.at(-1)) seen.push(text);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });

  await submit.focus();
  await page.keyboard.press('Enter');
  // While the upload and its task run, the button says it is busy and keeps the keyboard's place.
  await expect(submit).toHaveAttribute('aria-disabled', 'true');
  await expect(submit).toHaveAttribute('aria-busy', 'true');
  await expect(submit).toBeFocused();
  // A second Enter while busy sends nothing more.
  await page.keyboard.press('Enter');

  const announcement = form.getByTestId('task-announcement');
  await expect(announcement).toHaveAttribute('role', 'status');
  await expect(announcement).toHaveAttribute('aria-live', 'polite');
  await expect(announcement).toHaveText(en.uploads.task_done, { timeout: 90_000 });
  await expect(page.getByTestId('raster-result')).toContainText(/\d+ zones? created/);
  await expect(submit).not.toHaveAttribute('aria-disabled', 'true');
  await expect(submit).not.toHaveAttribute('aria-busy');
  await expect(submit).toBeFocused();
  await expect(page.getByTestId('recent-tasks').locator('tbody tr')).toHaveCount(1);

  // Announced at steps and quarters only, never at each percent.
  const spoken = await page.evaluate(() => (window as unknown as { spoken: string[] }).spoken);
  console.log('announced:', spoken);
  expect(spoken.at(-1)).toBe(en.uploads.task_done);
  for (const text of spoken.slice(0, -1)) expect(text).toMatch(/, (0|25|50|75)%$/);
});

test('a failed sign-in is announced as an alert and the focus stays on the button', async ({ page }) => {
  await page.goto('/login');
  const submit = page.getByRole('button', { name: en.auth.login });
  await expect(submit).toBeEnabled();
  await page.getByLabel(en.auth.email).fill('nobody@example.test');
  await page.getByLabel(en.auth.password).fill('not-the-password-1');
  await submit.focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('main').getByRole('alert')).toHaveText(en.errors.bad_credentials);
  await expect(submit).toBeFocused();
  await expect(submit).not.toHaveAttribute('aria-disabled', 'true');
});

test('an error takes the focus when the control that failed has left the page', async ({ page }) => {
  await registerCompany(page.request);
  const id = (await (await page.request.post('/api/owners', { data: { name: 'Gone Owner' } })).json()).id as number;
  await page.goto('/owners');
  const table = page.getByTestId('owners-table');
  await table.getByRole('button', { name: en.common.delete }).click();
  const yes = table.getByRole('button', { name: en.common.confirm_yes });
  await expect(yes).toBeFocused();
  // Deleted meanwhile elsewhere: the confirmation fails, and its buttons go with the question.
  expect((await page.request.delete(`/api/owners/${id}`)).ok()).toBe(true);
  await page.keyboard.press('Enter');
  const alert = page.getByRole('main').getByRole('alert');
  await expect(alert).not.toBeEmpty();
  await expect(alert).toBeFocused();
});

test('the owners, users and scans lists name whom each row’s buttons act on', async ({ page }) => {
  await registerCompany(page.request);
  await page.request.post('/api/owners', { data: { name: 'Agro North' } });
  const colleague = await addUser(page.request, 'operator');
  const raster = gradientIndexTiff();
  const id = await createField(page.request, { name: 'Scanned', geometry: raster.field });
  const upload = await page.request.post('/upload', { multipart: { field_id: String(id), captured_at: '2024-06-01', raster_file: { name: 'gradient.tif', mimeType: 'image/tiff', buffer: raster.bytes } } });
  expect(upload.status(), await upload.text()).toBe(202);
  const taskId = (await upload.json()).task_id as string;

  await page.goto('/owners');
  const owners = page.getByTestId('owners-table');
  await expect(owners.getByRole('button', { name: 'Rename “Agro North”', exact: true })).toBeVisible();
  await expect(owners.getByRole('button', { name: 'Delete “Agro North”', exact: true })).toBeVisible();

  await page.goto('/company');
  const users = page.getByTestId('users-table');
  await expect(users.getByRole('combobox', { name: `Role of ${colleague.email}`, exact: true })).toBeVisible();
  await expect(users.getByRole('button', { name: `Deactivate ${colleague.email}`, exact: true })).toBeVisible();
  await expect(users.getByRole('button', { name: `Delete ${colleague.email}`, exact: true })).toBeVisible();

  await expect.poll(async () => (await (await page.request.get(`/api/tasks/${taskId}`)).json()).status, { timeout: 30_000 }).toBe('completed');
  await page.goto(`/fields/${id}`);
  const tile = page.getByTestId('scan-list').locator('li');
  const day = (await tile.locator('span.font-medium').textContent())!;
  expect(day).toContain('2024');
  await expect(tile.getByRole('button', { name: `Delete scan of ${day}`, exact: true })).toBeVisible();
});

test('renaming an owner from the keyboard: the name takes the focus, and Rename gets it back', async ({ page }) => {
  await registerCompany(page.request);
  await page.request.post('/api/owners', { data: { name: 'Agro South' } });
  await page.goto('/owners');
  const owners = page.getByTestId('owners-table');
  const rename = owners.getByRole('button', { name: 'Rename “Agro South”' });
  await rename.focus();
  await page.keyboard.press('Enter');
  await expect(owners.getByLabel(en.owners.name)).toBeFocused();
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await expect(owners.getByRole('button', { name: en.common.cancel })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(rename).toBeFocused();

  await page.keyboard.press('Enter');
  await page.keyboard.press('End');
  await page.keyboard.type(' Farms');
  await owners.getByRole('button', { name: en.common.save }).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('status')).toHaveText(en.owners.renamed.replace('{name}', 'Agro South Farms'));
  await expect(owners.getByRole('button', { name: 'Rename “Agro South Farms”' })).toBeFocused();
});

async function axeViolations(page: Page) {
  await page.addScriptTag({ path: AXE });
  const violations = await page.evaluate(async () => {
    const result = await (window as unknown as { axe: { run: () => Promise<{ violations: { id: string; impact: string; nodes: unknown[] }[] }> } }).axe.run();
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
  });
  console.log(`axe ${page.url()}:`, violations.length ? violations : 'no violations');
  return violations;
}

test('the sign-in, uploads and fields pages have no critical axe violations', async ({ page }) => {
  await page.goto('/login');
  await expect(page.getByRole('button', { name: en.auth.login })).toBeEnabled();
  expect((await axeViolations(page)).filter((v) => v.impact === 'critical')).toEqual([]);

  await registerCompany(page.request);
  await createField(page.request, { name: 'Axe field' });
  for (const path of ['/uploads', '/fields']) {
    await page.goto(path);
    await expect(page.getByRole('main')).toBeVisible();
    expect((await axeViolations(page)).filter((v) => v.impact === 'critical')).toEqual([]);
  }
});
