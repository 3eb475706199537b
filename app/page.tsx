import Link from 'next/link';
import { redirect } from 'next/navigation';
import { getTranslations } from 'next-intl/server';
import { currentUser } from '@/lib/auth/current-user';

export default async function HomePage() {
  if (await currentUser()) redirect('/map');
  const t = await getTranslations();
  return (
    <section className="space-y-4">
      <h1 className="text-2xl font-semibold">{t('home.welcome')}</h1>
      <p className="max-w-prose text-stone-700">{t('home.intro')}</p>
      <p className="flex flex-wrap gap-3">
        <Link href="/login" className="rounded bg-emerald-700 px-4 py-2 text-sm font-medium text-white hover:bg-emerald-800">
          {t('auth.login')}
        </Link>
        <Link href="/register" className="rounded border border-stone-300 bg-white px-4 py-2 text-sm font-medium hover:bg-stone-100">
          {t('auth.register')}
        </Link>
      </p>
    </section>
  );
}
