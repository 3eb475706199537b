'use client';
import { useRouter } from 'next/navigation';
import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { LOCALES } from '@/lib/i18n/locales';
import { api } from '@/lib/ui/api';
import { rememberLocale } from '@/lib/ui/locale-cookie';
import { ErrorMessage, Select, SuccessMessage, TextInput } from '../ui/form';
import { SubmitButton } from '../ui/submit-button';
import { Form } from '../ui/validation-messages';

export function ProfileForm({ initial }: { initial: { first_name: string; last_name: string; language: string } }) {
  const t = useTranslations();
  const router = useRouter();
  const [values, setValues] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setNotice(null);
    const res = await api<{ message: string }>('/api/auth/profile', {
      method: 'PUT',
      body: { first_name: values.first_name.trim() || null, last_name: values.last_name.trim() || null, language: values.language },
    });
    setBusy(false);
    if (!res.ok) {
      setError(res.error ?? t('common.network_error'));
      return;
    }
    rememberLocale(values.language);
    // The server's message is already in the new language.
    setNotice(res.data.message);
    router.refresh();
  }

  return (
    <Form onSubmit={submit} className="space-y-3" aria-label={t('profile.title')}>
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
        <TextInput label={t('auth.first_name')} value={values.first_name} onChange={(e) => setValues({ ...values, first_name: e.target.value })} maxLength={255} />
        <TextInput label={t('auth.last_name')} value={values.last_name} onChange={(e) => setValues({ ...values, last_name: e.target.value })} maxLength={255} />
      </div>
      <Select label={t('settings.language')} value={values.language} onChange={(e) => setValues({ ...values, language: e.target.value })}>
        {LOCALES.map((l) => (
          <option key={l} value={l}>
            {t(`languages.${l}`)}
          </option>
        ))}
      </Select>
      <ErrorMessage>{error}</ErrorMessage>
      <SuccessMessage>{notice}</SuccessMessage>
      <SubmitButton busy={busy}>
        {t('profile.save')}
      </SubmitButton>
    </Form>
  );
}

export function PasswordForm() {
  const t = useTranslations();
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const formEl = e.currentTarget;
    const form = new FormData(formEl);
    if (form.get('new_password') !== form.get('repeat_password')) {
      setError(t('account.passwords_differ'));
      return;
    }
    setBusy(true);
    setError(null);
    setNotice(null);
    const res = await api<{ message: string }>('/api/auth/profile', { method: 'PUT', body: { password: String(form.get('password')), new_password: String(form.get('new_password')) } });
    setBusy(false);
    if (!res.ok) {
      setError(res.error ?? t('common.network_error'));
      return;
    }
    formEl.reset();
    setNotice(t('account.password_changed'));
  }

  return (
    <Form onSubmit={submit} className="space-y-3" aria-label={t('account.change_password')}>
      <TextInput label={t('profile.current_password')} name="password" type="password" autoComplete="current-password" required />
      <TextInput label={t('profile.new_password')} name="new_password" type="password" autoComplete="new-password" minLength={8} required hint={t('account.password_hint')} />
      <TextInput label={t('account.repeat_password')} name="repeat_password" type="password" autoComplete="new-password" minLength={8} required />
      <ErrorMessage>{error}</ErrorMessage>
      <SuccessMessage>{notice}</SuccessMessage>
      <SubmitButton busy={busy}>
        {t('account.change_password')}
      </SubmitButton>
    </Form>
  );
}
