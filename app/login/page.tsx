import { redirect } from 'next/navigation';
import { getTranslations } from 'next-intl/server';
import { LoginForm } from '@/components/auth/login-form';
import { currentUser } from '@/lib/auth/current-user';
import { returnPath } from '@/lib/ui/return-path';

export async function generateMetadata() {
  const t = await getTranslations('auth');
  return { title: t('login') };
}

export default async function LoginPage({ searchParams }: { searchParams: Promise<{ next?: string | string[] }> }) {
  const { next } = await searchParams;
  const back = returnPath(typeof next === 'string' ? next : undefined) ?? '/map';
  if (await currentUser()) redirect(back);
  const t = await getTranslations('auth');
  return (
    <section className="mx-auto max-w-sm space-y-4 rounded-lg border border-stone-200 bg-white p-6 shadow-sm">
      <h1 className="text-2xl font-semibold">{t('login')}</h1>
      <LoginForm next={back} />
    </section>
  );
}
