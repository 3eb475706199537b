'use client';
import { useTranslations } from 'next-intl';

/** Matches shown at once; the rest are counted. */
const SHOWN = 8;

/** The fields a search found, as buttons (the first eight, and how many more), or that none did. */
export function MatchList<T extends { id: number; name: string }>({ id, label, matches, detail, onPick }: { id: string; label: string; matches: T[]; detail: (item: T) => string; onPick: (item: T) => void }) {
  const t = useTranslations();
  return (
    <div id={id} className="rounded border border-stone-200 bg-white text-sm">
      {matches.length === 0 ? (
        <p className="px-2 py-1.5 text-stone-500">{t('fields.none_found')}</p>
      ) : (
        <ul aria-label={label}>
          {matches.slice(0, SHOWN).map((m) => (
            <li key={m.id}>
              <button type="button" onClick={() => onPick(m)} className="flex w-full justify-between gap-2 px-2 py-1.5 text-left hover:bg-emerald-50">
                <span className="truncate">{m.name}</span>
                <span className="shrink-0 text-stone-500 tabular-nums">{detail(m)}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {matches.length > SHOWN && <p className="border-t border-stone-100 px-2 py-1 text-xs text-stone-500">{t('map.more_matches', { count: matches.length - SHOWN })}</p>}
    </div>
  );
}
