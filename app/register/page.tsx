import { redirect } from 'next/navigation';
import { getTranslations } from 'next-intl/server';
import { RegisterForm } from '@/components/auth/register-form';
import { currentUser } from '@/lib/auth/current-user';

export async function generateMetadata() {
  const t = await getTranslations('auth');
  return { title: t('register') };
}

export default async function RegisterPage() {
  if (await currentUser()) redirect('/map');
  const t = await getTranslations();
  return (
    <section className="mx-auto max-w-md space-y-4 rounded-lg border border-stone-200 bg-white p-6 shadow-sm">
      <h1 className="text-2xl font-semibold">{t('auth.register')}</h1>
      <p className="text-sm text-stone-600">{t('account.register_intro')}</p>
      <RegisterForm />
    </section>
  );
}
