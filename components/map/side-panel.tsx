'use client';
// The workspace's panel: a column beside the map from 1024 px up, a bottom sheet over the map on a
// phone. Both fold to their header (the page's title, the drawing buttons and a toggle), which keeps
// the map whole; selecting a field or drawing one opens it.
import { useTranslations } from 'next-intl';
import { useId, useState } from 'react';

interface SidePanelProps {
  title: string;
  label: string;
  toolbar: React.ReactNode;
  /** null: as the screen wants it (open beside the map, folded on a phone). */
  open: boolean | null;
  onOpen: (open: boolean) => void;
  children: React.ReactNode;
}

export function SidePanel({ title, label, toolbar, open, onOpen, children }: SidePanelProps) {
  const t = useTranslations('map');
  const [wide] = useState(() => window.matchMedia('(min-width: 1024px)').matches);
  const shown = open ?? wide;
  const id = useId();
  return (
    <aside
      aria-label={label}
      data-testid="side-panel"
      data-open={shown}
      className={`absolute inset-x-0 bottom-0 z-[1100] flex flex-col rounded-t-xl border-t border-stone-200 bg-stone-50 shadow-[0_-2px_8px_rgba(0,0,0,0.15)] lg:static lg:z-auto lg:rounded-none lg:border-t-0 lg:border-l lg:shadow-none ${shown ? 'max-h-[60%] lg:max-h-none lg:w-[360px]' : 'lg:w-auto'}`}
    >
      <div className="flex flex-wrap items-center gap-2 px-4 py-2">
        <h1 className="mr-auto text-xl font-semibold">{title}</h1>
        {toolbar}
        <button type="button" className="rounded border border-stone-300 px-2 py-1 text-sm" aria-expanded={shown} aria-controls={id} onClick={() => onOpen(!shown)} data-testid="side-panel-toggle">
          {shown ? t('panel_hide') : t('panel_show')}
        </button>
      </div>
      <div id={id} hidden={!shown} className="min-h-0 flex-1 space-y-3 overflow-y-auto px-4 pb-4">
        {children}
      </div>
    </aside>
  );
}
