'use client';
import { useTranslations } from 'next-intl';
import { useEffect, useSyncExternalStore } from 'react';
import { api } from '@/lib/ui/api';
import { sessionEnded, sessionEndedOnServer, signInAgainHref, subscribeSession } from '@/lib/ui/session-state';

/**
 * Once a call of this page is answered 401 (the session expired or was ended elsewhere), the way
 * back: sign-in for this page, in a new tab. In this one it would throw away what the page holds
 * and has not saved (a boundary being edited, a form filled in, an upload's choices); signed in
 * there, this tab's next try goes through with the new session cookie, and the notice goes away
 * with the first call answered again (checked when the user comes back to the tab).
 */
export function SessionEnded() {
  const t = useTranslations('auth');
  const ended = useSyncExternalStore(subscribeSession, sessionEnded, sessionEndedOnServer);
  useEffect(() => {
    if (!ended) return;
    const check = () => {
      if (document.visibilityState === 'visible') void api('/api/auth/profile');
    };
    document.addEventListener('visibilitychange', check);
    window.addEventListener('focus', check);
    return () => {
      document.removeEventListener('visibilitychange', check);
      window.removeEventListener('focus', check);
    };
  }, [ended]);
  if (!ended) return null;
  return (
    <div role="alert" className="fixed bottom-4 left-1/2 z-[2000] w-[min(36rem,calc(100%-2rem))] -translate-x-1/2 rounded border border-amber-400 bg-amber-50 px-4 py-3 text-sm text-amber-950 shadow-lg" data-testid="session-ended">
      <p>{t('session_ended')}</p>
      <p className="mt-1">
        <a href={signInAgainHref(window.location)} target="_blank" rel="noopener" className="font-semibold text-emerald-800 underline">
          {t('sign_in_again')}
        </a>{' '}
        {t('sign_in_again_hint')}
      </p>
    </div>
  );
}
