'use client';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { api } from '@/lib/ui/api';
import { rememberLocale } from '@/lib/ui/locale-cookie';
import { ErrorMessage, TextInput } from '../ui/form';
import { SubmitButton } from '../ui/submit-button';
import { Form } from '../ui/validation-messages';

/** `next`: where to go once signed in (a path of this site, checked by the page). */
export function LoginForm({ next }: { next: string }) {
  const t = useTranslations();
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setBusy(true);
    setError(null);
    const res = await api<{ user: { language: string } }>('/api/auth/login', {
      method: 'POST',
      body: { email: String(form.get('email')), password: String(form.get('password')), remember: form.get('remember') === 'on' },
    });
    if (!res.ok) {
      setBusy(false);
      setError(res.error ?? t('common.network_error'));
      return;
    }
    rememberLocale(res.data.user.language);
    router.replace(next);
    router.refresh();
  }

  return (
    <Form onSubmit={submit} className="space-y-4">
      <TextInput label={t('auth.email')} name="email" type="email" autoComplete="username" required />
      <TextInput label={t('auth.password')} name="password" type="password" autoComplete="current-password" required />
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" name="remember" /> {t('auth.remember')}
      </label>
      <ErrorMessage>{error}</ErrorMessage>
      <SubmitButton busy={busy} className="w-full">
        {t('auth.login')}
      </SubmitButton>
      <p className="text-sm text-stone-600">
        {t('auth.no_account')}{' '}
        <Link href="/register" className="text-emerald-800 underline">
          {t('auth.register')}
        </Link>
      </p>
    </Form>
  );
}
