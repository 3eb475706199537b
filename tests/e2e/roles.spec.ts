import { expect, test } from '@playwright/test';
import { addUser, createField, registerCompany, signIn } from './helpers';

test.use({ locale: 'en-US', viewport: { width: 1366, height: 768 } });

test('a viewer is offered no edit, delete, upload or export actions; an operator edits but does not delete', async ({ page, context }) => {
  await registerCompany(page.request);
  const id = await createField(page.request, { name: 'Read only' });
  const viewer = await addUser(page.request, 'viewer');
  const operator = await addUser(page.request, 'operator');
  await context.clearCookies();

  await signIn(page, viewer.email, viewer.password);
  await expect(page.getByTestId('header-user')).toContainText('Viewer');
  const nav = page.getByRole('navigation', { name: 'Main navigation' });
  await expect(nav.getByRole('link', { name: 'Fields' })).toBeVisible();
  await expect(nav.getByRole('link', { name: 'Uploads' })).toBeVisible();
  await expect(nav.getByRole('link', { name: 'Company' })).toHaveCount(0);

  await expect(page.getByTestId('field-map').locator(`path.fm-field-${id}`)).toHaveCount(1);
  await expect(page.getByRole('button', { name: 'Draw a field' })).toHaveCount(0);
  await page.getByTestId('field-map').locator(`path.fm-field-${id}`).click();
  const panel = page.getByTestId('field-panel');
  await expect(panel).toContainText('Read only');
  await expect(panel.getByRole('link', { name: 'Open field page' })).toBeVisible();
  await expect(panel.getByRole('button', { name: 'Edit boundary' })).toHaveCount(0);
  await expect(panel.getByRole('button', { name: 'Delete' })).toHaveCount(0);

  await page.goto('/fields');
  await expect(page.getByTestId('fields-table')).toContainText('Read only');
  await expect(page.getByTestId('fields-table').getByRole('button', { name: 'Edit' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: /KMZ/ })).toHaveCount(0);

  await page.goto(`/fields/${id}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Read only');
  await expect(page.getByRole('button', { name: 'Edit' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Delete' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Report (PDF)' })).toHaveCount(0);

  await page.goto('/owners');
  await expect(page.getByRole('button', { name: 'Add owner' })).toHaveCount(0);

  // The uploads page shows a viewer the company's record of uploads, and no upload form.
  await page.goto('/uploads');
  await expect(page.getByRole('heading', { name: 'Recent tasks' })).toBeVisible();
  await expect(page.getByRole('button', { name: /Upload/ })).toHaveCount(0);
  await expect(page.locator('input[type=file]')).toHaveCount(0);
  // Pages of actions the role may not take send the viewer back to the map, which says why.
  await page.goto('/company');
  await expect(page).toHaveURL(/\/map\?denied=1$/);
  await expect(page.getByRole('main').getByRole('alert')).toHaveText('Your role does not give access to that page; here is the map.');

  await context.clearCookies();
  await signIn(page, operator.email, operator.password);
  await expect(page.getByRole('button', { name: 'Draw a field' })).toBeVisible();
  await page.getByTestId('field-map').locator(`path.fm-field-${id}`).click();
  await expect(page.getByTestId('field-panel').getByRole('button', { name: 'Edit boundary' })).toBeVisible();
  await expect(page.getByTestId('field-panel').getByRole('button', { name: 'Delete' })).toHaveCount(0);
  await expect(page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Uploads' })).toBeVisible();
});

test('an owner manages users on the company page', async ({ page }) => {
  await registerCompany(page.request);
  await page.goto('/company');
  const form = page.getByRole('form', { name: 'Add user' });
  const email = `new-${Date.now()}@example.test`;
  await form.getByLabel('Email').fill(email);
  await form.getByLabel('Password').fill('new-user-pass-1');
  await form.getByLabel('Role').selectOption({ label: 'Agronomist' });
  await form.getByRole('button', { name: 'Add user' }).click();
  await expect(form.getByRole('status')).toHaveText('User created');
  const row = page.getByTestId(`user-row-${email}`);
  await expect(row.getByLabel(`Role of ${email}`)).toHaveValue('agronomist');

  await row.getByLabel(`Role of ${email}`).selectOption('viewer');
  await row.getByRole('button', { name: `Save the role Viewer for ${email}` }).click();
  await expect(page.getByRole('status').first()).toHaveText('User updated');
  await row.getByRole('button', { name: 'Deactivate' }).click();
  await expect(row).toContainText('Deactivated');
  const users = (await (await page.request.get('/api/auth/company/users')).json()).users as { email: string; role: string; is_active: boolean }[];
  expect(users.find((u) => u.email === email)).toMatchObject({ role: 'viewer', is_active: false });
});

test('owners added and renamed on the owners page stay listed, and the page says so', async ({ page }) => {
  await registerCompany(page.request);
  await page.goto('/owners');
  await page.getByLabel('New owner').fill('Kolkhoz Zarya');
  await page.getByRole('button', { name: 'Add owner' }).click();
  // The message outlives the refresh that lists the new owner (the list used to remount the form and drop it).
  await expect(page.getByTestId('owners-table')).toContainText('Kolkhoz Zarya');
  await expect(page.getByText('Owner “Kolkhoz Zarya” added')).toBeVisible();
  await page.getByTestId('owners-table').getByRole('button', { name: 'Rename' }).click();
  await page.getByTestId('owners-table').getByRole('textbox').fill('Agro Zarya');
  await page.getByTestId('owners-table').getByRole('button', { name: 'Save' }).click();
  await expect(page.getByTestId('owners-table')).toContainText('Agro Zarya');
  await expect(page.getByText('Owner renamed to “Agro Zarya”')).toBeVisible();
});
