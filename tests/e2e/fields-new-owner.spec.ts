import { type APIRequestContext, expect, test } from '@playwright/test';
import en from '../../messages/en.json' with { type: 'json' };
import { createField, registerCompany, square } from './helpers';

test.use({ locale: 'en-US', viewport: { width: 1366, height: 768 } });

const owners = async (request: APIRequestContext) => (await (await request.get('/api/owners')).json()) as { id: number; name: string }[];
const ownerNames = async (request: APIRequestContext) => (await owners(request)).map((o) => o.name).sort();
const ownerOf = async (request: APIRequestContext, id: number) => (await (await request.get(`/api/fields/${id}`)).json()).owner as { id: number; name: string } | null;

test('a row edited in the fields table takes an owner not yet listed, kept chosen when the save fails; a listed name in another case is that owner', async ({ page }) => {
  await registerCompany(page.request);
  const kovac = (await (await page.request.post('/api/owners', { data: { name: 'Kovač' } })).json()).id as number;
  const alpha = await createField(page.request, { name: 'Alpha', geometry: square(17.1, 48.15) });
  const beta = await createField(page.request, { name: 'Beta', geometry: square(17.2, 48.15) });
  await page.goto('/fields');

  const row = page.getByTestId(`field-row-${alpha}`);
  await row.getByRole('button', { name: en.common.edit }).click();
  const ownerSelect = row.getByRole('combobox', { name: en.fields.owner, exact: true });
  await ownerSelect.selectOption({ label: en.fields.add_owner });
  const newName = row.getByRole('textbox', { name: en.fields.new_owner_name });
  await expect(newName).toBeFocused();

  // A name of spaces only is not a name: said in words, nothing is made or saved.
  await newName.fill('   ');
  await row.getByRole('button', { name: en.common.save }).click();
  await expect(page.getByRole('main').getByRole('alert')).toHaveText(en.fields.new_owner_name_missing);
  expect(await ownerNames(page.request)).toEqual(['Kovač']);

  // The owner is made just before the field is saved; the save fails (no name), and the new owner
  // stays chosen, so the retry does not make it again.
  await newName.fill('Novák Ján');
  await row.getByRole('textbox', { name: en.fields.name, exact: true }).fill('');
  await row.getByRole('button', { name: en.common.save }).click();
  await expect(page.getByRole('main').getByRole('alert')).toBeVisible();
  await expect(page.getByRole('main').getByRole('alert')).not.toHaveText(en.fields.new_owner_name_missing);
  expect(await ownerNames(page.request)).toEqual(['Kovač', 'Novák Ján']);
  const novak = (await owners(page.request)).find((o) => o.name === 'Novák Ján')!.id;
  await expect(ownerSelect).toHaveValue(String(novak));
  await expect(ownerSelect.locator('option:checked')).toHaveText('Novák Ján');
  await expect(newName).toHaveCount(0);
  expect(await ownerOf(page.request, alpha)).toBeNull();

  await row.getByRole('textbox', { name: en.fields.name, exact: true }).fill('Alpha');
  await row.getByRole('button', { name: en.common.save }).click();
  await expect(page.getByRole('status')).toHaveText('Field “Alpha” saved');
  await expect(row).toContainText('Novák Ján');
  expect(await ownerOf(page.request, alpha)).toEqual({ id: novak, name: 'Novák Ján' });
  expect(await ownerNames(page.request)).toEqual(['Kovač', 'Novák Ján']);

  // A listed name typed in another case, with spaces around it, is that owner, not a second one.
  const betaRow = page.getByTestId(`field-row-${beta}`);
  await betaRow.getByRole('button', { name: en.common.edit }).click();
  await betaRow.getByRole('combobox', { name: en.fields.owner, exact: true }).selectOption({ label: en.fields.add_owner });
  await betaRow.getByRole('textbox', { name: en.fields.new_owner_name }).fill(' KOVAČ ');
  await betaRow.getByRole('button', { name: en.common.save }).click();
  await expect(page.getByRole('status')).toHaveText('Field “Beta” saved');
  await expect(betaRow).toContainText('Kovač');
  expect(await ownerOf(page.request, beta)).toEqual({ id: kovac, name: 'Kovač' });
  expect(await ownerNames(page.request)).toEqual(['Kovač', 'Novák Ján']);
});

test('fields selected in the table take an owner not yet listed, made once though the first try fails; one added meanwhile in another case is taken', async ({ page }) => {
  await registerCompany(page.request);
  const a = await createField(page.request, { name: 'Field A', geometry: square(17.1, 48.15) });
  const b = await createField(page.request, { name: 'Field B', geometry: square(17.2, 48.15) });
  const c = await createField(page.request, { name: 'Field C', geometry: square(17.3, 48.15) });
  await page.goto('/fields');
  const table = page.getByTestId('fields-table');
  const bulk = page.getByRole('region', { name: en.fields.bulk_title });
  for (const name of ['Field A', 'Field B', 'Field C']) await table.getByLabel(`Select “${name}”`).check();

  const ownerSelect = bulk.getByRole('combobox', { name: en.fields.owner, exact: true });
  await ownerSelect.selectOption({ label: en.fields.add_owner });
  const newName = bulk.getByRole('textbox', { name: en.fields.new_owner_name });
  await expect(newName).toBeFocused();
  await newName.fill('Agro Nova');
  // Field C is deleted elsewhere meanwhile: the change is refused for all (404), the owner is made.
  expect((await page.request.delete(`/api/fields/${c}`)).status()).toBe(200);
  await bulk.getByRole('button', { name: en.fields.bulk_apply }).click();
  await expect(bulk.getByRole('alert')).toBeVisible();
  expect(await ownerNames(page.request)).toEqual(['Agro Nova']);
  const nova = (await owners(page.request))[0]!.id;
  await expect(ownerSelect).toHaveValue(String(nova));
  await expect(newName).toHaveCount(0);

  // Retried without the deleted field: the same owner, not a second one.
  await table.getByLabel('Select “Field C”').uncheck();
  await bulk.getByRole('button', { name: en.fields.bulk_apply }).click();
  await expect(page.getByRole('status')).toHaveText('2 fields updated');
  await expect(table.locator('tbody tr').filter({ hasText: 'Agro Nova' })).toHaveCount(2);
  expect(await ownerOf(page.request, a)).toEqual({ id: nova, name: 'Agro Nova' });
  expect(await ownerOf(page.request, b)).toEqual({ id: nova, name: 'Agro Nova' });
  expect(await ownerNames(page.request)).toEqual(['Agro Nova']);

  // An owner a colleague added after the page was read, typed in another case, is that owner.
  await page.goto('/fields');
  await expect(table.locator('tbody tr')).toHaveCount(2);
  const meanwhile = (await (await page.request.post('/api/owners', { data: { name: 'Added Meanwhile' } })).json()).id as number;
  for (const name of ['Field A', 'Field B']) await table.getByLabel(`Select “${name}”`).check();
  await ownerSelect.selectOption({ label: en.fields.add_owner });
  await newName.fill('ADDED MEANWHILE');
  await bulk.getByRole('button', { name: en.fields.bulk_apply }).click();
  await expect(page.getByRole('status')).toHaveText('2 fields updated');
  await expect(table.locator('tbody tr').filter({ hasText: 'Added Meanwhile' })).toHaveCount(2);
  expect(await ownerOf(page.request, a)).toEqual({ id: meanwhile, name: 'Added Meanwhile' });
  expect(await ownerNames(page.request)).toEqual(['Added Meanwhile', 'Agro Nova']);
});
