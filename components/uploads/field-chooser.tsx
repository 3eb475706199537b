'use client';
import { useTranslations } from 'next-intl';
import { useMemo, useState } from 'react';
import type { FieldChoice } from '@/lib/ui/types';
import { FieldFinder } from '../ui/field-finder';

const searchText = (f: FieldChoice) => `${f.name} ${f.parcel_number ?? ''}`;
const sameName = (a: string, b: string) => a.trim().toLocaleLowerCase() === b.trim().toLocaleLowerCase();

/**
 * The field an upload is for, as the form's `field_id`: found by name or parcel number (a company may
 * have thousands, too many for a list to scroll), or left empty for the server to find it from where
 * the images were taken (`whenEmpty` says so). A name typed in full, of exactly one field, is that
 * field; other text typed and not picked from the list stops the form, rather than the upload going
 * to whichever field the images are found over.
 */
export function FieldChooser({ fields, defaultField, whenEmpty }: { fields: FieldChoice[]; defaultField?: number; whenEmpty: string }) {
  const t = useTranslations();
  const [chosen, setChosen] = useState(() => fields.find((f) => f.id === defaultField) ?? null);
  const [typed, setTyped] = useState('');
  const named = useMemo(() => {
    if (!typed.trim()) return null;
    const same = fields.filter((f) => sameName(f.name, typed));
    return same.length === 1 ? same[0]! : null;
  }, [fields, typed]);
  const field = chosen ?? named;

  return (
    <div className="space-y-1 text-sm">
      <input type="hidden" name="field_id" value={field?.id ?? ''} />
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
        <FieldFinder
          label={t('uploads.field')}
          hint={whenEmpty}
          items={fields}
          textOf={searchText}
          detail={(f) => f.parcel_number ?? ''}
          onPick={setChosen}
          onQueryChange={setTyped}
          invalid={typed.trim() && !named ? t('uploads.field_not_chosen') : undefined}
        />
      )}
    </div>
  );
}
