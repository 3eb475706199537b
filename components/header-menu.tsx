'use client';
// The header's links: in a row from a tablet's width up, folded behind a Menu button on a phone, where
// they took three lines above a full-screen map.
import { usePathname } from 'next/navigation';
import { useTranslations } from 'next-intl';
import { useId, useState } from 'react';

export function HeaderMenu({ children }: { children: React.ReactNode }) {
  const t = useTranslations('nav');
  const pathname = usePathname();
  // Open on the page it was opened on: a link followed closes it, the next page in view.
  const [openOn, setOpenOn] = useState<string | null>(null);
  const open = openOn === pathname;
  const id = useId();
  return (
    <>
      <button
        type="button"
        className="ml-auto rounded border border-stone-300 px-2 py-1 md:hidden"
        aria-expanded={open}
        aria-controls={id}
        onClick={() => setOpenOn(open ? null : pathname)}
        data-testid="header-menu-button"
      >
        {t('menu')}
      </button>
      <div id={id} className={`${open ? 'flex' : 'hidden'} w-full flex-col items-start gap-3 md:flex md:w-auto md:flex-1 md:flex-row md:flex-wrap md:items-center md:gap-x-4 md:gap-y-2`}>
        {children}
      </div>
    </>
  );
}
