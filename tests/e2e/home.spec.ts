import { expect, test } from '@playwright/test';

test.describe('home page', () => {
  test('speaks Russian by default and English when the browser asks for it', async ({ browser }) => {
    const ru = await browser.newContext({ locale: 'ru-RU' });
    const ruPage = await ru.newPage();
    await ruPage.goto('/');
    await expect(ruPage.locator('html')).toHaveAttribute('lang', 'ru');
    await ru.close();

    const en = await browser.newContext({ locale: 'en-US' });
    const enPage = await en.newPage();
    await enPage.goto('/');
    await expect(enPage.locator('html')).toHaveAttribute('lang', 'en');
    await expect(enPage.getByRole('heading', { level: 1 })).toHaveText('Welcome to Fieldmap');
    await en.close();
  });
});

test('the first Tab offers to skip the header and lands in the page', async ({ page }) => {
  await page.goto('/login');
  await page.keyboard.press('Tab');
  const skip = page.getByRole('link', { name: 'Skip to content' });
  await expect(skip).toBeFocused();
  await expect(skip).toBeInViewport();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/#main$/);
  await page.keyboard.press('Tab');
  await expect(page.getByRole('main').getByLabel('Email')).toBeFocused();
});
