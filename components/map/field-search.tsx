'use client';
import { useFormatter, useTranslations } from 'next-intl';
import { useId, useMemo, useState } from 'react';
import { fieldMatcher } from '@/lib/ui/search';
import type { FieldFeature } from '@/lib/ui/types';
import { inputClass } from '../ui/form';
import { MatchList } from '../ui/match-list';

/**
 * Finds a field on the map by name or parcel number among those it shows (all the company's, already
 * in the browser): the matches are buttons, and Enter takes the first.
 */
export function FieldSearch({ features, onPick }: { features: FieldFeature[]; onPick: (f: FieldFeature) => void }) {
  const t = useTranslations();
  const format = useFormatter();
  const listId = useId();
  const [query, setQuery] = useState('');
  const match = useMemo(() => fieldMatcher(features, (f) => `${f.properties.name} ${f.properties.parcel_number ?? ''}`), [features]);
  const matches = useMemo(() => match(query).map((f) => ({ ...f, name: f.properties.name })), [match, query]);

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
      {query.trim() && <MatchList id={listId} label={t('map.matches')} matches={matches} detail={(f) => t('common.ha', { value: format.number(f.properties.area, 'hectares') })} onPick={pick} />}
    </div>
  );
}
