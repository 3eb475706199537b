'use client';
// A page that failed to render (its database unreachable, say) shows inside the site's frame, in the
// user's language, with the code Next.js logs beside the error, instead of Next.js's bare English
// "Application error" page.
import Link from 'next/link';
import { useTranslations } from 'next-intl';

export default function PageError({ error, retry }: { error: Error & { digest?: string }; retry: () => void }) {
  const t = useTranslations();
  return (
    <section role="alert" className="max-w-prose space-y-3">
      <h1 className="text-2xl font-semibold">{t('errors.page_failed')}</h1>
      <p className="text-stone-700">{t('errors.internal', { requestId: error.digest ?? '—' })}</p>
      <p className="flex flex-wrap gap-3">
        <button type="button" onClick={retry} className="rounded bg-emerald-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-emerald-800">
          {t('common.try_again')}
        </button>
        <Link href="/" className="rounded border border-stone-300 px-3 py-1.5 text-sm hover:bg-stone-100">
          {t('nav.home')}
        </Link>
      </p>
    </section>
  );
}
