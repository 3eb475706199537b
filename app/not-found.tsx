import Link from 'next/link';
import { getTranslations } from 'next-intl/server';

export default async function NotFound() {
  const t = await getTranslations();
  return (
    <section className="space-y-3">
      <h1 className="text-2xl font-semibold">{t('errors.not_found')}</h1>
      <Link href="/" className="text-emerald-800 underline">
        {t('nav.home')}
      </Link>
    </section>
  );
}
