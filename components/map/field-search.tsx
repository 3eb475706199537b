'use client';
import { useFormatter, useTranslations } from 'next-intl';
import { useId, useMemo, useState } from 'react';
import type { FieldFeature } from '@/lib/ui/types';
import { inputClass } from '../ui/form';

/** Matches shown at once; the rest are counted. */
const SHOWN = 8;

/** Lower case without accents, so that "plaz" finds "Pláž" and "поле" finds "Поле". */
const fold = (text: string) => text.normalize('NFD').replace(/\p{M}/gu, '').toLocaleLowerCase();

/**
 * Finds a field on the map by name or parcel number among those it shows (all the company's, already
 * in the browser): the matches are buttons, and Enter takes the first.
 */
export function FieldSearch({ features, onPick }: { features: FieldFeature[]; onPick: (f: FieldFeature) => void }) {
  const t = useTranslations();
  const format = useFormatter();
  const listId = useId();
  const [query, setQuery] = useState('');
  const folded = useMemo(() => features.map((f) => ({ f, text: fold(`${f.properties.name} ${f.properties.parcel_number ?? ''}`) })), [features]);
  const wanted = fold(query.trim());
  const matches = useMemo(() => (wanted ? folded.filter((m) => m.text.includes(wanted)).map((m) => m.f) : []), [folded, wanted]);

  const pick = (f: FieldFeature) => {
    setQuery('');
    onPick(f);
  };

  return (
    <div className="space-y-1 text-sm">
      <label className="block space-y-1">
        <span className="font-medium text-stone-700">{t('map.find_field')}</span>
        <input
          type="search"
          className={inputClass}
          value={query}
          placeholder={t('fields.search_placeholder')}
          aria-controls={listId}
          onChange={(e) => setQuery(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && matches[0]) {
              e.preventDefault();
              pick(matches[0]);
            }
          }}
        />
      </label>
      {wanted && (
        <div id={listId} className="rounded border border-stone-200 bg-white">
          {matches.length === 0 ? (
            <p className="px-2 py-1.5 text-stone-500">{t('fields.none_found')}</p>
          ) : (
            <ul aria-label={t('map.matches')}>
              {matches.slice(0, SHOWN).map((f) => (
                <li key={f.id}>
                  <button type="button" onClick={() => pick(f)} className="flex w-full justify-between gap-2 px-2 py-1.5 text-left hover:bg-emerald-50">
                    <span className="truncate">{f.properties.name}</span>
                    <span className="shrink-0 text-stone-500 tabular-nums">{t('common.ha', { value: format.number(f.properties.area, 'hectares') })}</span>
                  </button>
                </li>
              ))}
            </ul>
          )}
          {matches.length > SHOWN && <p className="border-t border-stone-100 px-2 py-1 text-xs text-stone-500">{t('map.more_matches', { count: matches.length - SHOWN })}</p>}
        </div>
      )}
    </div>
  );
}
