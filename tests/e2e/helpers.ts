// Shared setup for the browser tests: every test makes its own company through the API, so tests
// never depend on each other's data.
import { randomUUID } from 'node:crypto';
import { type APIRequestContext, type Page, expect } from '@playwright/test';

export const uniq = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

export interface Account {
  email: string;
  password: string;
  company: string;
}

/** Registers a company with its owner; the page's browser context is then signed in as the owner. */
export async function registerCompany(request: APIRequestContext, language: 'ru' | 'en' | 'sk' = 'en'): Promise<Account> {
  const account = { email: `${uniq('owner')}@example.test`, password: 'correct-horse-1', company: uniq('Farm') };
  const res = await request.post('/api/auth/register', {
    data: { email: account.email, password: account.password, company_name: account.company, first_name: 'Olga', last_name: 'Petrova', language },
  });
  expect(res.status(), await res.text()).toBe(201);
  return account;
}

export async function addUser(request: APIRequestContext, role: string, language: 'ru' | 'en' | 'sk' = 'en') {
  const user = { email: `${uniq(role)}@example.test`, password: 'viewer-pass-1', role };
  const res = await request.post('/api/auth/company/users', { data: { ...user, language } });
  expect(res.status(), await res.text()).toBe(201);
  return user;
}

export const square = (lon: number, lat: number, d = 0.004) => ({
  type: 'Polygon',
  coordinates: [[[lon, lat], [lon + d, lat], [lon + d, lat + d], [lon, lat + d], [lon, lat]]],
});

/** A field under the NAIP tile the raster tests upload (m_4709963_se_14_1_20190904, North Dakota). */
export const UNDER_NAIP = { type: 'Polygon', coordinates: [[[-99.17, 47.01], [-99.14, 47.01], [-99.14, 47.03], [-99.17, 47.03], [-99.17, 47.01]]] };

export async function createField(request: APIRequestContext, body: Record<string, unknown>): Promise<number> {
  const res = await request.post('/api/fields', { data: { geometry: square(17.1, 48.15), ...body } });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()).id as number;
}

export async function signIn(page: Page, email: string, password: string) {
  await page.goto('/login');
  await page.getByLabel(/email|почта|e-mail/i).fill(email);
  await page.getByLabel(/^(password|пароль|heslo)$/i).fill(password);
  await page.locator('form button[type=submit]').click();
  await expect(page).toHaveURL(/\/map$/);
}

/** Text that looks like a message key next-intl prints when a translation is missing (`map.draw_field`). */
export const UNTRANSLATED = /\b(app|nav|auth|profile|settings|languages|home|roles|common|account|map|fields|field|exports|uploads|owners|stats|company|report|drone|tasks|errors|validation|validation_ui)\.[a-z_]+(\.[a-z_]+)?\b/;
