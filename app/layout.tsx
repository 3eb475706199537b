import type { Metadata } from 'next';
import { NextIntlClientProvider } from 'next-intl';
import { getLocale, getTranslations } from 'next-intl/server';
import { AppHeader } from '@/components/app-header';
import './globals.css';

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations('app');
  return { title: t('name'), description: t('tagline') };
}

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  const [locale, t] = await Promise.all([getLocale(), getTranslations('nav')]);
  return (
    <html lang={locale}>
      <body className="min-h-screen">
        <NextIntlClientProvider>
          {/* The header's links are ten stops of Tab before the page itself. */}
          <a href="#main" className="sr-only rounded bg-white px-3 py-2 text-sm font-medium text-emerald-800 shadow focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-[2000]">
            {t('skip_to_content')}
          </a>
          <AppHeader />
          <main id="main" tabIndex={-1} className="mx-auto max-w-6xl px-4 py-6 focus:outline-none">
            {children}
          </main>
        </NextIntlClientProvider>
      </body>
    </html>
  );
}
