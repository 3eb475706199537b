// The browser's own validation messages ("Please fill out this field.") are in the browser's language; the
// forms say them in the interface's (components/ui/validation-messages.tsx). The browser here speaks
// English, the interface Russian or Slovak: a message in the interface's language can only be ours.
import { type Locator, type Page, expect, test } from '@playwright/test';
import en from '../../messages/en.json' with { type: 'json' };
import ru from '../../messages/ru.json' with { type: 'json' };
import sk from '../../messages/sk.json' with { type: 'json' };
import { createField, registerCompany, uniq } from './helpers';

test.use({ locale: 'en-US' });

/** What the browser would say of the control if the form were sent now: the bubble's text. */
const validationMessage = (control: Locator) => control.evaluate((el: HTMLInputElement) => el.validationMessage);

/** Signed out, the page in `language` by the header's switcher (the browser asks for English). */
async function openIn(page: Page, path: string, language: 'ru' | 'sk') {
  await page.goto(path);
  await page.getByLabel(en.settings.language, { exact: true }).selectOption(language);
  await expect(page.locator('html')).toHaveAttribute('lang', language);
}

test('sign-in in Russian: an empty or malformed email is refused in Russian, then the form is sent', async ({ page, playwright }) => {
  // The account is made by a request of its own, so that this browser stays signed out.
  const api = await playwright.request.newContext({ baseURL: test.info().project.use.baseURL });
  const account = await registerCompany(api, 'ru');
  await api.dispose();

  await openIn(page, '/login', 'ru');
  const form = page.locator('main form');
  const email = form.getByLabel(ru.auth.email);
  const password = form.getByLabel(ru.auth.password, { exact: true });
  const submit = form.getByRole('button', { name: ru.auth.login });
  await expect(submit).toBeEnabled();

  // Nothing typed: the browser refuses, focuses the first field, and its bubble says our Russian text.
  await submit.click();
  await expect(email).toBeFocused();
  expect(await validationMessage(email)).toBe(ru.validation_ui.value_missing);
  expect(await validationMessage(password)).toBe(ru.validation_ui.value_missing);
  await expect(page).toHaveURL(/\/login$/);

  await email.fill('olga');
  await submit.click();
  await expect(email).toBeFocused();
  expect(await validationMessage(email)).toBe(ru.validation_ui.type_mismatch_email);

  // Valid values: our message goes as they are typed, and the form is sent.
  await email.fill(account.email);
  expect(await validationMessage(email)).toBe('');
  await password.fill(account.password);
  expect(await validationMessage(password)).toBe('');
  await submit.click();
  await expect(page).toHaveURL(/\/map$/);
});

test('registration in Slovak: a short password is refused with both lengths, in Slovak plural forms', async ({ page }) => {
  await openIn(page, '/register', 'sk');
  const form = page.locator('main form');
  const password = form.getByLabel(sk.auth.password, { exact: true });
  const submit = form.getByRole('button', { name: sk.account.create_company });
  await expect(submit).toBeEnabled();
  await form.getByLabel(sk.auth.company_name).fill(uniq('Farma'));
  await form.getByLabel(sk.auth.email).fill(`${uniq('reg')}@example.test`);
  await password.fill('abc');
  await submit.click();
  await expect(password).toBeFocused();
  expect(await validationMessage(password)).toBe('Zadajte aspoň 8 znakov (zadali ste 3).');

  // Back in Russian, the same refusal says it in Russian: the message is made at each check.
  await page.getByLabel(sk.settings.language, { exact: true }).selectOption('ru');
  await expect(page.locator('html')).toHaveAttribute('lang', 'ru');
  await form.getByRole('button', { name: ru.account.create_company }).click();
  expect(await validationMessage(form.getByLabel(ru.auth.password, { exact: true }))).toBe('Введите не менее 8 символов (вы ввели 3).');

  await form.getByLabel(ru.auth.password, { exact: true }).fill('good-password-1');
  await form.getByRole('button', { name: ru.account.create_company }).click();
  await expect(page).toHaveURL(/\/map$/);
});

test('signed in in Russian: the owners form and an upload say their refusals in Russian, and a field finder keeps its own', async ({ page }) => {
  await registerCompany(page.request, 'ru');
  // The stats year is now a choice of the years with scans (tests/e2e/ui-defects.spec.ts): nothing to refuse there.
  await createField(page.request, { name: 'Поле у реки' });

  await page.goto('/owners');
  const add = page.locator('main form');
  const name = add.getByLabel(ru.owners.new_owner);
  await expect(add.getByRole('button', { name: ru.owners.add })).toBeEnabled();
  await add.getByRole('button', { name: ru.owners.add }).click();
  await expect(name).toBeFocused();
  expect(await validationMessage(name)).toBe(ru.validation_ui.value_missing);
  await name.fill('ООО Рассвет');
  await add.getByRole('button', { name: ru.owners.add }).click();
  await expect(page.getByRole('status')).toHaveText(ru.owners.created.replace('{name}', 'ООО Рассвет'));

  // No file chosen: ours; a field typed but not picked from the list: the field finder's own reason stays.
  await page.goto('/uploads');
  const drone = page.getByRole('form', { name: ru.uploads.drone_title });
  const file = drone.getByLabel(ru.uploads.drone_file);
  const field = drone.getByRole('searchbox', { name: ru.uploads.field });
  await field.fill('Нет такого');
  await drone.getByRole('button', { name: ru.uploads.start_drone }).click();
  await expect(file).toBeFocused();
  expect(await validationMessage(file)).toBe(ru.validation_ui.value_missing_file);
  expect(await validationMessage(field)).toBe(ru.uploads.field_not_chosen);
  // Choosing a file takes our message away; the finder's is still there (typing elsewhere does not clear it).
  await file.setInputFiles({ name: 'survey.zip', mimeType: 'application/zip', buffer: Buffer.from('PK') });
  expect(await validationMessage(file)).toBe('');
  await drone.getByRole('button', { name: ru.uploads.start_drone }).click();
  await expect(field).toBeFocused();
  expect(await validationMessage(field)).toBe(ru.uploads.field_not_chosen);

  // A day before the date input's min: the limit written as a Russian date (the upload is not sent).
  const raster = page.getByRole('form', { name: ru.uploads.raster_title });
  await raster.getByLabel(ru.uploads.raster_file).setInputFiles({ name: 'blank.tif', mimeType: 'image/tiff', buffer: Buffer.from('II*') });
  const day = raster.getByLabel(ru.uploads.captured_at);
  await day.fill('1800-01-01');
  await raster.getByRole('button', { name: ru.uploads.start_zoning }).click();
  await expect(day).toBeFocused();
  expect(await validationMessage(day)).toBe('Укажите дату не раньше 1 января 1900 г.');
  await expect(page.getByText(ru.uploads.recent.empty)).toBeVisible();
});
