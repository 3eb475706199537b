'use client';
import { useRouter } from 'next/navigation';
import { useTranslations } from 'next-intl';
import { useState, useTransition } from 'react';
import { LOCALES } from '@/lib/i18n/locales';
import { api } from '@/lib/ui/api';
import { rememberLocale } from '@/lib/ui/locale-cookie';

/**
 * Signed in: the language is the user's setting (PUT /api/auth/profile). Signed out: the NEXT_LOCALE
 * cookie. Either way the page is re-rendered on the server in the new language.
 */
export function LanguageSwitcher({ current, signedIn }: { current: string; signedIn: boolean }) {
  const t = useTranslations();
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const [error, setError] = useState<string | null>(null);

  async function change(language: string) {
    setError(null);
    rememberLocale(language);
    if (signedIn) {
      const res = await api('/api/auth/profile', { method: 'PUT', body: { language } });
      if (!res.ok) {
        setError(res.error ?? t('common.network_error'));
        return;
      }
    }
    startTransition(() => router.refresh());
  }

  return (
    <label className="flex items-center gap-1 text-stone-600">
      <span className="sr-only">{t('settings.language')}</span>
      <select
        aria-label={t('settings.language')}
        value={current}
        disabled={pending}
        onChange={(e) => void change(e.target.value)}
        className="rounded border border-stone-300 bg-white px-1 py-0.5"
      >
        {LOCALES.map((l) => (
          <option key={l} value={l}>
            {t(`languages.${l}`)}
          </option>
        ))}
      </select>
      {error && (
        <span role="alert" className="text-red-700">
          {error}
        </span>
      )}
    </label>
  );
}
