import { expect, test } from '@playwright/test';
import en from '../../messages/en.json' with { type: 'json' };
import ru from '../../messages/ru.json' with { type: 'json' };
import { signIn, uniq } from './helpers';

test.use({ locale: 'en-US' });

test('register a company through the form, sign out and sign in again', async ({ browser }) => {
  // Registered from Slovakia: the company's time zone is the browser's.
  const context = await browser.newContext({ timezoneId: 'Europe/Bratislava' });
  const page = await context.newPage();
  const email = `${uniq('reg')}@example.test`;
  const company = uniq('Green Acres');
  await page.goto('/register');
  await page.getByLabel('Company name').fill(company);
  await page.getByLabel('First name').fill('Ivan');
  await page.getByLabel('Last name').fill('Sidorov');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('good-password-1');
  await page.getByRole('button', { name: 'Create company and account' }).click();

  await expect(page).toHaveURL(/\/map$/);
  await expect(page.getByTestId('header-user')).toContainText(email);
  await expect(page.getByTestId('header-user')).toContainText('Owner');
  // The first user of a new company may manage it.
  await expect(page.getByRole('link', { name: 'Company' })).toBeVisible();

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/login$/);
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  // Signed out, the pages send you to sign in, and then back to the page you opened.
  await page.goto('/fields?q=north');
  await expect(page).toHaveURL(/\/login\?next=%2Ffields%3Fq%3Dnorth$/);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('good-password-1');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/fields\?q=north$/);
  await expect(page.getByTestId('header-user')).toContainText(email);
  // A return address of another site is not followed.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.goto('/login?next=//evil.example/x');
  await signIn(page, email, 'good-password-1');
  expect((await (await page.request.get('/api/auth/company')).json()).company.settings).toEqual({ time_zone: 'Europe/Bratislava' });
  await context.close();
});

test('a wrong password and a taken company name are explained on the form', async ({ page }) => {
  const email = `${uniq('dup')}@example.test`;
  const company = uniq('Taken');
  const res = await page.request.post('/api/auth/register', { data: { email, password: 'good-password-1', company_name: company, language: 'en' } });
  expect(res.status()).toBe(201);
  await page.context().clearCookies();

  await page.goto('/login');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('not-the-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('main').getByRole('alert')).toHaveText('Wrong email or password');
  await expect(page).toHaveURL(/\/login$/);

  await page.goto('/register');
  await page.getByLabel('Company name').fill(company);
  await page.getByLabel('Email').fill(`${uniq('other')}@example.test`);
  await page.getByLabel('Password').fill('good-password-1');
  await page.getByRole('button', { name: 'Create company and account' }).click();
  await expect(page.getByRole('main').getByRole('alert')).toHaveText('A company with this name already exists');
});

test('before the page script runs, the sign-in form cannot be sent the plain way (password in the address)', async ({ browser }) => {
  // With script off, the page stays as the server drew it: what a slow connection shows before hydration.
  const context = await browser.newContext({ javaScriptEnabled: false, locale: 'en-US' });
  const page = await context.newPage();
  await page.goto('/login');
  await page.getByLabel('Email').fill('someone@example.test');
  await page.getByLabel('Password').fill('secret-password-1');
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeDisabled();
  await page.getByLabel('Password').press('Enter');
  await page.waitForTimeout(300);
  expect(page.url()).not.toContain('secret-password-1');
  await context.close();

  // Once the script has run, the same button works.
  const live = await browser.newContext({ locale: 'en-US' });
  const livePage = await live.newPage();
  await livePage.goto('/login');
  await expect(livePage.getByRole('button', { name: 'Sign in' })).toBeEnabled();
  await live.close();
});

test('the register form’s language follows the header’s switcher until it is chosen, and an old error goes', async ({ page }) => {
  const company = uniq('Taken');
  const res = await page.request.post('/api/auth/register', { data: { email: `${uniq('dup')}@example.test`, password: 'good-password-1', company_name: company, language: 'en' } });
  expect(res.status()).toBe(201);
  await page.context().clearCookies();

  await page.goto('/register');
  const header = page.locator('header');
  const main = page.getByRole('main');
  await expect(main.getByLabel(en.settings.language)).toHaveValue('en');
  await main.getByLabel(en.auth.company_name).fill(company);
  await main.getByLabel(en.auth.email).fill(`${uniq('other')}@example.test`);
  await main.getByLabel(en.auth.password).fill('good-password-1');
  await main.getByRole('button', { name: en.account.create_company }).click();
  await expect(main.getByRole('alert')).toHaveText('A company with this name already exists');

  // The page turns Russian: so does the account's language, and the English error goes.
  await header.getByLabel(en.settings.language).selectOption('ru');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(ru.auth.register);
  await expect(main.getByLabel(ru.settings.language)).toHaveValue('ru');
  await expect(main.getByLabel(ru.settings.language).locator('option:checked')).toHaveText(ru.languages.ru);
  await expect(main.getByRole('alert')).toHaveCount(0);
  // What was typed stays.
  await expect(main.getByLabel(ru.auth.company_name)).toHaveValue(company);

  // Chosen on the form, the account's language stays when the page's changes.
  await main.getByLabel(ru.settings.language).selectOption('sk');
  await header.getByLabel(ru.settings.language).selectOption('en');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(en.auth.register);
  await expect(main.getByLabel(en.settings.language)).toHaveValue('sk');

  // Sent, the account is Slovak.
  const mine = uniq('Mine');
  await main.getByLabel(en.auth.company_name).fill(mine);
  await main.getByRole('button', { name: en.account.create_company }).click();
  await expect(page).toHaveURL(/\/map$/);
  expect((await (await page.request.get('/api/auth/profile')).json()).user.language).toBe('sk');
});
