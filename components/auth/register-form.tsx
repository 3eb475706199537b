'use client';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useLocale, useTranslations } from 'next-intl';
import { useState } from 'react';
import { LOCALES } from '@/lib/i18n/locales';
import { api } from '@/lib/ui/api';
import { rememberLocale } from '@/lib/ui/locale-cookie';
import { ErrorMessage, Select, TextInput } from '../ui/form';
import { SubmitButton } from '../ui/submit-button';
import { Form } from '../ui/validation-messages';

export function RegisterForm() {
  const t = useTranslations();
  const locale = useLocale();
  const { error, busy, submit } = useRegistration();
  /** The account's language once the person picks one; until then it is the page's. */
  const [language, setLanguage] = useState<string | null>(null);

  return (
    <Form onSubmit={submit} className="space-y-4">
      <TextInput label={t('auth.company_name')} name="company_name" required maxLength={255} autoComplete="organization" />
      <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
        <TextInput label={t('auth.first_name')} name="first_name" maxLength={255} autoComplete="given-name" />
        <TextInput label={t('auth.last_name')} name="last_name" maxLength={255} autoComplete="family-name" />
      </div>
      <TextInput label={t('auth.email')} name="email" type="email" required autoComplete="email" />
      <TextInput label={t('auth.password')} name="password" type="password" required minLength={8} autoComplete="new-password" hint={t('account.password_hint')} />
      <Select label={t('settings.language')} name="language" value={language ?? locale} onChange={(e) => setLanguage(e.target.value)}>
        {LOCALES.map((l) => (
          <option key={l} value={l}>
            {t(`languages.${l}`)}
          </option>
        ))}
      </Select>
      <ErrorMessage>{error}</ErrorMessage>
      <SubmitButton busy={busy} className="w-full">
        {t('account.create_company')}
      </SubmitButton>
      <p className="text-sm text-stone-600">
        {t('auth.have_account')}{' '}
        <Link href="/login" className="text-emerald-800 underline">
          {t('auth.login')}
        </Link>
      </p>
    </Form>
  );
}

/** Sends the registration; once the company is made, its map opens in the language chosen. */
function useRegistration() {
  const t = useTranslations();
  const locale = useLocale();
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // The header's switcher changes the page's language under the form: an error shown in the old
  // language goes (sending again says it in the new one).
  const [shownLocale, setShownLocale] = useState(locale);
  if (shownLocale !== locale) {
    setShownLocale(locale);
    setError(null);
  }

  async function submit(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const body = registrationBody(new FormData(e.currentTarget));
    setBusy(true);
    setError(null);
    const res = await api('/api/auth/register', { method: 'POST', body });
    if (!res.ok) {
      setBusy(false);
      setError(res.error ?? t('common.network_error'));
      return;
    }
    rememberLocale(body.language);
    router.replace('/map');
    router.refresh();
  }
  return { error, busy, submit };
}

/** POST /api/auth/register's body from the form: names left empty are none, the password as typed. */
function registrationBody(form: FormData) {
  const value = (k: string) => String(form.get(k) ?? '').trim();
  return {
    company_name: value('company_name'),
    first_name: value('first_name') || undefined,
    last_name: value('last_name') || undefined,
    email: value('email'),
    password: String(form.get('password') ?? ''),
    language: value('language'),
    // The farm's zone, as a first guess: the one the person registering is in.
    time_zone: Intl.DateTimeFormat().resolvedOptions().timeZone,
  };
}
