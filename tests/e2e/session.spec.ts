// A session that ends while a page is open (it expired, or was ended from another browser): the page's
// calls are answered 401, and the page must give a way back without losing what it holds.
import { type APIRequestContext, type Page, expect, test } from '@playwright/test';
import en from '../../messages/en.json' with { type: 'json' };
import { gradientIndexTiff } from '../helpers/tiff';
import { createField, registerCompany } from './helpers';

test.use({ locale: 'en-US', viewport: { width: 1366, height: 768 } });

/** Ends the page's session behind its back, as another browser's logout would: the page keeps its cookie. */
async function endSession(page: Page, request: APIRequestContext) {
  const token = (await page.context().cookies()).find((c) => c.name === 'session_token')!.value;
  const res = await request.post('/api/auth/logout', { headers: { authorization: `Bearer ${decodeURIComponent(token)}` } });
  expect(res.status(), await res.text()).toBe(200);
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const RECT = { type: 'Polygon', coordinates: [[[17.1, 48.15], [17.11, 48.15], [17.11, 48.156], [17.1, 48.156], [17.1, 48.15]]] };

test('a session ended mid-edit: Save keeps the moved corners, sign-in opens in a new tab for this page, and Save then goes through', async ({ page, request, context }) => {
  const account = await registerCompany(page.request);
  const id = await createField(page.request, { name: 'Long edit', geometry: RECT });
  const before = (await (await page.request.get(`/api/fields/${id}`)).json()).area as number;

  await page.goto(`/map?field=${id}`);
  const map = page.getByTestId('field-map');
  await expect(page.getByTestId('field-panel')).toContainText('Long edit');
  await page.getByRole('button', { name: 'Edit boundary' }).click();
  const corner = map.locator('.leaflet-marker-icon.marker-icon:not(.marker-icon-middle)').first();
  const c = (await corner.boundingBox())!;
  await page.mouse.move(c.x + c.width / 2, c.y + c.height / 2);
  await page.mouse.down();
  await page.mouse.move(c.x + c.width / 2 - 60, c.y + c.height / 2 - 40, { steps: 8 });
  await page.mouse.up();
  const moved = await page.getByTestId('live-area').textContent();

  await endSession(page, request);
  await page.getByRole('button', { name: 'Save boundary' }).click();
  await expect(page.getByRole('alert').filter({ hasText: en.errors.session_invalid })).toBeVisible();
  // Still editing, the corner where it was dragged.
  await expect(page.getByRole('button', { name: 'Save boundary' })).toBeVisible();
  await expect(page.getByTestId('live-area')).toHaveText(moved!);
  await expect(map.locator('.leaflet-marker-icon.marker-icon:not(.marker-icon-middle)')).toHaveCount(4);

  const notice = page.getByTestId('session-ended');
  await expect(notice).toHaveAttribute('role', 'alert');
  await expect(notice).toContainText(en.auth.session_ended);
  const link = notice.getByRole('link', { name: en.auth.sign_in_again });
  await expect(link).toHaveAttribute('href', `/login?next=${encodeURIComponent(`/map?field=${id}`)}`);
  await expect(link).toHaveAttribute('target', '_blank');
  const [tab] = await Promise.all([context.waitForEvent('page'), link.click()]);
  await tab.getByLabel(/email/i).fill(account.email);
  await tab.getByLabel(/^password$/i).fill(account.password);
  await tab.locator('form button[type=submit]').click();
  await expect(tab).toHaveURL(new RegExp(`/map\\?field=${id}$`));
  await tab.close();

  // Back in the first tab, the edit goes through with the new session, and the notice goes.
  await page.getByRole('button', { name: 'Save boundary' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Boundary saved' })).toBeVisible();
  await expect(notice).toHaveCount(0);
  const after = (await (await page.request.get(`/api/fields/${id}`)).json()).area as number;
  expect(after).not.toBeCloseTo(before, 2);
});

test('the map whose fields cannot be read for an ended session says so instead of "Loading fields…", and reads them once signed in again', async ({ page, request }) => {
  const account = await registerCompany(page.request);
  await createField(page.request, { name: 'Behind the login' });
  let ended = false;
  await page.route((url) => url.pathname === '/api/fields', async (route) => {
    if (!ended) {
      ended = true;
      await endSession(page, request);
    }
    await route.continue();
  });
  await page.goto('/map');
  await expect(page.getByRole('alert').filter({ hasText: en.errors.session_invalid })).toBeVisible();
  await expect(page.getByTestId('map-loading')).toHaveCount(0);
  await expect(page.getByTestId('session-ended')).toBeVisible();

  const res = await page.request.post('/api/auth/login', { data: { email: account.email, password: account.password } });
  expect(res.status(), await res.text()).toBe(200);
  await page.getByRole('button', { name: en.common.try_again }).click();
  await expect(page.getByTestId('map-summary')).toContainText('1 field');
  await expect(page.getByRole('alert').filter({ hasText: en.errors.session_invalid })).toHaveCount(0);
  await expect(page.getByTestId('session-ended')).toHaveCount(0);
});

test('a page opened after the session ended sends to sign-in and back to its own address, without Next.js’s _rsc key', async ({ page, request }) => {
  const account = await registerCompany(page.request);
  await page.goto('/map');
  await endSession(page, request);
  // A client-side navigation asks for the page's payload with ?_rsc=…: that is not the page's address.
  await page.getByRole('navigation', { name: en.nav.main }).getByRole('link', { name: en.nav.fields }).click();
  await expect(page).toHaveURL(/\/login\?next=%2Ffields$/);
  await page.getByLabel(/email/i).fill(account.email);
  await page.getByLabel(/^password$/i).fill(account.password);
  await page.locator('form button[type=submit]').click();
  await expect(page).toHaveURL(/\/fields$/);
});

test('a zoning followed when the session ends says why and frees its button, instead of staying busy', async ({ page, request }) => {
  await registerCompany(page.request);
  const raster = gradientIndexTiff();
  const id = await createField(page.request, { name: 'Zoned', geometry: raster.field });
  const upload = await page.request.post('/upload', { multipart: { field_id: String(id), zones: '3', raster_file: { name: 'gradient.tif', mimeType: 'image/tiff', buffer: raster.bytes } } });
  expect(upload.status(), await upload.text()).toBe(202);
  const taskId = (await upload.json()).task_id as string;
  await expect.poll(async () => (await (await page.request.get(`/api/tasks/${taskId}`)).json()).status, { timeout: 30_000 }).toBe('completed');

  await page.goto(`/fields/${id}`);
  const form = page.getByRole('form', { name: en.field.rezone_title });
  const submit = form.getByRole('button', { name: en.field.rezone_submit });
  let ended = false;
  await page.route(/\/api\/tasks\/[^/?]+$/, async (route) => {
    if (!ended) {
      ended = true;
      await endSession(page, request);
    }
    await route.continue();
  });
  await submit.click();
  // The first request after the logout is refused as session_invalid and its answer clears the cookie;
  // when another of the page's requests got there before the poll, the poll goes without a cookie and
  // is refused as unauthorized. Either way the form says to sign in again.
  await expect(form.getByRole('alert')).toHaveText(new RegExp(`^(${escapeRegExp(en.errors.session_invalid)}|${escapeRegExp(en.errors.unauthorized)})$`));
  await expect(submit).not.toHaveAttribute('aria-busy');
  await expect(form.getByTestId('task-progress')).toHaveCount(0);
  await expect(page.getByTestId('session-ended')).toBeVisible();
});
