// A page that fails on the server (here its tables are renamed under it) shows our error
// page inside the site's frame, in the user's language, with a code to report; the API answers in
// its envelope. This test has a server of its own: it breaks that server's database.
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import { expect, test } from '@playwright/test';
import sk from '../../messages/sk.json' with { type: 'json' };
import { type TestServer, startServer } from '../helpers/server';
import { uniq } from './helpers';

let server: TestServer;
test.beforeAll(async () => {
  server = await startServer();
});
test.afterAll(async () => {
  await server?.stop();
});

test.use({ locale: 'en-US' });

test('a page whose database is gone says so in the user language, with a code to report', async ({ browser }) => {
  const context = await browser.newContext({ baseURL: server.url });
  const page = await context.newPage();
  const account = { email: `${uniq('sk')}@example.test`, password: 'correct-horse-1' };
  const res = await context.request.post('/api/auth/register', {
    data: { ...account, company_name: uniq('Farma'), language: 'sk' },
  });
  expect(res.status(), await res.text()).toBe(201);
  await context.clearCookies();

  // Signing in through the form remembers the account's language for pages shown to no one signed
  // in, although this browser asks for English.
  await page.goto('/login');
  await page.getByLabel(/email/i).fill(account.email);
  await page.getByLabel(/^password$/i).fill(account.password);
  await page.locator('form button[type=submit]').click();
  await expect(page).toHaveURL(/\/map$/);
  expect((await context.cookies()).find((c) => c.name === 'NEXT_LOCALE')?.value).toBe('sk');
  await page.goto('/fields');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(sk.nav.fields);

  // The server's queries of fields and sessions fail from here on (a session it looked up in the
  // last minute may still be in its memory: either way the page fails).
  const file = createClient({ url: `file:${join(server.dataDir, 'fields.db')}` });
  await file.executeMultiple('ALTER TABLE field RENAME TO field_gone; ALTER TABLE session RENAME TO session_gone;');
  file.close();

  const failed = await page.goto('/fields');
  expect(failed?.status()).toBe(500);
  const alert = page.getByRole('alert').filter({ hasText: sk.errors.page_failed });
  await expect(alert).toBeVisible();
  // The code is the digest Next.js logs beside the error.
  await expect(alert).toContainText(/\d{5,}/);
  await expect(page.getByRole('link', { name: sk.nav.home })).toBeVisible();
  await expect(page.getByRole('button', { name: sk.common.try_again })).toBeVisible();

  const api = await context.request.get('/api/fields', { headers: { 'accept-language': 'sk' } });
  expect(api.status()).toBe(500);
  expect((await api.json()).success).toBe(false);
  await context.close();
});
