'use client';
import { useTranslations } from 'next-intl';
import { useId, useMemo, useState } from 'react';
import { fieldMatcher } from '@/lib/ui/search';
import type { FieldChoice } from '@/lib/ui/types';
import { inputClass } from '../ui/form';
import { MatchList } from '../ui/match-list';

/**
 * The field an upload is for, as the form's `field_id`: found by name or parcel number (a company may
 * have thousands, too many for a list to scroll), or left empty for the server to find it from where
 * the images were taken (`whenEmpty` says so).
 */
export function FieldChooser({ fields, defaultField, whenEmpty }: { fields: FieldChoice[]; defaultField?: number; whenEmpty: string }) {
  const t = useTranslations();
  const listId = useId();
  const hintId = useId();
  const [chosen, setChosen] = useState(() => fields.find((f) => f.id === defaultField) ?? null);
  const [query, setQuery] = useState('');
  const match = useMemo(() => fieldMatcher(fields, (f) => `${f.name} ${f.parcel_number ?? ''}`), [fields]);
  const matches = useMemo(() => match(query), [match, query]);

  const pick = (f: FieldChoice) => {
    setChosen(f);
    setQuery('');
  };

  return (
    <div className="space-y-1 text-sm">
      <input type="hidden" name="field_id" value={chosen?.id ?? ''} />
      {chosen ? (
        <>
          <span className="block font-medium text-stone-700">{t('uploads.field')}</span>
          <p className="flex items-center justify-between gap-2 rounded border border-emerald-300 bg-emerald-50 px-2 py-1.5" data-testid="chosen-field">
            <span className="truncate">{chosen.name}</span>
            <button type="button" className="shrink-0 text-emerald-800 underline" onClick={() => setChosen(null)}>
              {t('uploads.field_change')}
            </button>
          </p>
        </>
      ) : (
        <>
          <label className="block space-y-1">
            <span className="font-medium text-stone-700">{t('uploads.field')}</span>
            <input
              type="search"
              className={inputClass}
              value={query}
              placeholder={t('fields.search_placeholder')}
              aria-controls={listId}
              aria-describedby={hintId}
              onChange={(e) => setQuery(e.target.value)}
              onKeyDown={(e) => {
                // Enter takes the first match rather than sending the form without a field.
                if (e.key === 'Enter' && query.trim()) {
                  e.preventDefault();
                  if (matches[0]) pick(matches[0]);
                }
              }}
            />
          </label>
          <span id={hintId} className="block text-xs text-stone-500">
            {whenEmpty}
          </span>
          {query.trim() && <MatchList id={listId} label={t('map.matches')} matches={matches} detail={(f) => f.parcel_number ?? ''} onPick={pick} />}
        </>
      )}
    </div>
  );
}
