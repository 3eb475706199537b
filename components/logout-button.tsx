'use client';
import { useRouter } from 'next/navigation';
import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { api } from '@/lib/ui/api';

export function LogoutButton() {
  const t = useTranslations();
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  async function logout() {
    setBusy(true);
    await api('/api/auth/logout', { method: 'POST' });
    // Even if the session was already gone, the user wants to be on the sign-in page.
    router.replace('/login');
    router.refresh();
  }
  return (
    <button type="button" onClick={() => void logout()} disabled={busy} className="rounded border border-stone-300 px-2 py-0.5 text-stone-700 hover:bg-stone-100">
      {t('auth.logout')}
    </button>
  );
}
