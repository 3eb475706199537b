'use client';
import { useTranslations } from 'next-intl';
import { type KeyboardEvent, useEffect, useId, useMemo, useRef, useState } from 'react';
import { fieldMatcher } from '@/lib/ui/search';
import { inputClass } from './form';

/** Matches shown at once; the rest are counted. */
const SHOWN = 8;

interface FieldFinderProps<T> {
  label: string;
  hint?: string;
  items: readonly T[];
  textOf: (item: T) => string;
  detail: (item: T) => string;
  onPick: (item: T) => void;
  onQueryChange?: (query: string) => void;
  invalid?: string;
}

/**
 * A search box for a field among `items` (all in the browser already) by the text `textOf` gives
 * each, its name and parcel number: the matches are buttons, and Enter takes the first.
 * `onQueryChange` tells the form what is typed; `invalid`, when given, is why the box cannot be sent
 * as it is: the form it is in is not sent, and the box says so.
 */
export function FieldFinder<T extends { id: number; name: string }>({ label, hint, items, textOf, detail, onPick, onQueryChange, invalid }: FieldFinderProps<T>) {
  const t = useTranslations();
  const listId = useId();
  const hintId = useId();
  const errorId = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const { query, refused, setRefused, matches, change, pick, takeFirstOnEnter } = useFinderQuery(items, textOf, onPick, onQueryChange);
  // The browser refuses to send the form while the box is invalid (and says why, focusing the box).
  useEffect(() => inputRef.current?.setCustomValidity(invalid ?? ''), [invalid]);
  const shownError = invalid && refused ? invalid : null;

  return (
    <div className="space-y-1 text-sm">
      <label className="block space-y-1">
        <span className="font-medium text-stone-700">{label}</span>
        <input
          ref={inputRef}
          type="search"
          className={inputClass}
          value={query}
          placeholder={t('fields.search_placeholder')}
          aria-controls={query.trim() ? listId : undefined}
          aria-describedby={[shownError ? errorId : '', hint ? hintId : ''].filter(Boolean).join(' ') || undefined}
          aria-invalid={shownError ? true : undefined}
          onChange={(e) => change(e.target.value)}
          onInvalid={() => setRefused(true)}
          onKeyDown={takeFirstOnEnter}
        />
      </label>
      {shownError && (
        <p id={errorId} role="alert" className="text-sm text-red-800" data-testid="field-finder-error">
          {shownError}
        </p>
      )}
      {hint && (
        <span id={hintId} className="block text-xs text-stone-600">
          {hint}
        </span>
      )}
      {query.trim() && <FinderMatches id={listId} matches={matches} detail={detail} onPick={pick} />}
    </div>
  );
}

/** What is typed in the box and the items it matches; picking one empties the box. */
function useFinderQuery<T>(items: readonly T[], textOf: (item: T) => string, onPick: (item: T) => void, onQueryChange?: (query: string) => void) {
  const [query, setQuery] = useState('');
  /** Whether sending the form was refused for what the box holds: the reason is then shown under it. */
  const [refused, setRefused] = useState(false);
  const match = useMemo(() => fieldMatcher(items, textOf), [items, textOf]);
  const matches = useMemo(() => match(query), [match, query]);
  const change = (next: string) => {
    setQuery(next);
    setRefused(false);
    onQueryChange?.(next);
  };
  const pick = (item: T) => {
    change('');
    onPick(item);
  };
  // Enter takes the first match rather than sending a form the box is in.
  const takeFirstOnEnter = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter' && query.trim()) {
      e.preventDefault();
      if (matches[0]) pick(matches[0]);
    }
  };
  return { query, refused, setRefused, matches, change, pick, takeFirstOnEnter };
}

/** The first matches as buttons, and how many more there are. */
function FinderMatches<T extends { id: number; name: string }>({ id, matches, detail, onPick }: { id: string; matches: readonly T[]; detail: (item: T) => string; onPick: (item: T) => void }) {
  const t = useTranslations();
  return (
    <div id={id} className="rounded border border-stone-200 bg-white">
      {matches.length === 0 ? (
        <p className="px-2 py-1.5 text-stone-600">{t('fields.none_found')}</p>
      ) : (
        <ul aria-label={t('map.matches')}>
          {matches.slice(0, SHOWN).map((m) => (
            <li key={m.id}>
              <button type="button" onClick={() => onPick(m)} className="flex w-full justify-between gap-2 px-2 py-1.5 text-left hover:bg-emerald-50">
                <span className="truncate">{m.name}</span>
                <span className="shrink-0 text-stone-600 tabular-nums">{detail(m)}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {matches.length > SHOWN && <p className="border-t border-stone-100 px-2 py-1 text-xs text-stone-600">{t('map.more_matches', { count: matches.length - SHOWN })}</p>}
    </div>
  );
}
