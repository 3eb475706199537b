// A user's role on the company page changes only with its Save button: an arrow key on the focused
// list used to save the next role at once (a Viewer became an Operator).
import { expect, test } from '@playwright/test';
import en from '../../messages/en.json' with { type: 'json' };
import ru from '../../messages/ru.json' with { type: 'json' };
import sk from '../../messages/sk.json' with { type: 'json' };
import { addUser, registerCompany } from './helpers';

const MESSAGES = { ru, en, sk } as const;
const fill = (text: string, values: Record<string, string>) => text.replace(/\{(\w+)\}/g, (_, k: string) => values[k]!);

for (const lang of ['en', 'ru', 'sk'] as const) {
  test(`a role change waits for Save; Escape and Cancel put the saved role back (${lang})`, async ({ page }) => {
    const m = MESSAGES[lang];
    await registerCompany(page.request, lang);
    const viewer = await addUser(page.request, 'viewer', lang);
    const savedRole = async () => ((await (await page.request.get('/api/auth/company/users')).json()).users as { email: string; role: string }[]).find((u) => u.email === viewer.email)!.role;
    await page.goto('/company');
    const row = page.getByTestId(`user-row-${viewer.email}`);
    const list = row.getByRole('combobox', { name: fill(m.company.role_of, { user: viewer.email }) });
    await expect(list).toHaveValue('viewer');

    // One ArrowDown chooses another role and offers Save; nothing is saved.
    await list.focus();
    await page.keyboard.press('ArrowDown');
    await expect(list).not.toHaveValue('viewer');
    const next = await list.inputValue();
    const save = row.getByRole('button', { name: fill(m.company.save_role_of, { user: viewer.email, role: (m.roles as Record<string, string>)[next]! }) });
    await expect(save).toBeVisible();
    await expect(save).toHaveText(m.common.save);
    expect(await savedRole()).toBe('viewer');

    // Escape on the list puts the saved role back.
    await page.keyboard.press('Escape');
    await expect(list).toHaveValue('viewer');
    await expect(save).toHaveCount(0);

    // So does Cancel.
    await list.selectOption(next);
    await row.getByRole('button', { name: fill(m.company.cancel_role_of, { user: viewer.email }) }).click();
    await expect(list).toHaveValue('viewer');
    await page.reload();
    await expect(list).toHaveValue('viewer');
    expect(await savedRole()).toBe('viewer');

    // Save saves it.
    await list.selectOption(next);
    await save.click();
    await expect(page.getByRole('status').filter({ hasText: m.auth.user_updated })).toBeVisible();
    await expect(save).toHaveCount(0);
    await expect(list).toHaveValue(next);
    expect(await savedRole()).toBe(next);
  });
}
