import Link from 'next/link';
import { getLocale, getTranslations } from 'next-intl/server';
import { frameUser } from '@/lib/auth/current-user';
import { can } from '@/lib/auth/abilities';
import { LanguageSwitcher } from './language-switcher';
import { HeaderMenu } from './header-menu';
import { LogoutButton } from './logout-button';
import { NavLink } from './nav-link';
import { SessionEnded } from './session-ended';

export async function AppHeader() {
  const t = await getTranslations();
  const user = await frameUser();
  const locale = await getLocale();
  return (
    <header className="border-b border-stone-200 bg-white">
      <nav aria-label={t('nav.main')} className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-4 gap-y-2 px-4 py-3 text-sm">
        <Link href={user ? '/map' : '/'} className="text-base font-semibold text-emerald-800">
          {t('app.name')}
        </Link>
        <HeaderMenu>
          {user ? (
            <>
              <NavLink href="/map">{t('nav.map')}</NavLink>
              <NavLink href="/fields">{t('nav.fields')}</NavLink>
              <NavLink href="/owners">{t('nav.owners')}</NavLink>
              <NavLink href="/uploads">{t('nav.uploads')}</NavLink>
              <NavLink href="/stats">{t('nav.stats')}</NavLink>
              {can(user.role, 'manageUsers') && <NavLink href="/company">{t('nav.company')}</NavLink>}
            </>
          ) : (
            <NavLink href="/">{t('nav.home')}</NavLink>
          )}
          <span className="flex flex-wrap items-center gap-3 md:ml-auto">
            <LanguageSwitcher current={locale} signedIn={!!user} />
            {user ? (
              <>
                <NavLink href="/profile" title={user.email}>
                  {t('nav.profile')}
                </NavLink>
                <span className="hidden text-stone-600 md:inline" data-testid="header-user">
                  {user.email} · {t(`roles.${user.role}`)}
                </span>
                <LogoutButton />
              </>
            ) : (
              <>
                <NavLink href="/login">{t('auth.login')}</NavLink>
                <NavLink href="/register">{t('auth.register')}</NavLink>
              </>
            )}
          </span>
        </HeaderMenu>
      </nav>
      {/* Signed in when the page was made: a call answered 401 since then offers signing in again. */}
      {user && <SessionEnded />}
    </header>
  );
}
