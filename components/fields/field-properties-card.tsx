import Link from 'next/link';
import type { FieldView } from '@/lib/fields/field-page';
import type { SplitFrom } from '@/lib/fields/split';
import type { Abilities } from '@/lib/auth/abilities';
import { statusKey } from '@/lib/fields/land-status';
import { Card } from '../ui/form';
import { FieldEditPanel } from './field-edit-panel';
import type { FieldPageWords } from './field-page-words';

/** The field's register entry (area, owner, status, parcel, the field it was cut from) and its editing. */
export function FieldPropertiesCard({ field, splitFrom, owners, can, words }: { field: FieldView; splitFrom: SplitFrom | null; owners: { id: number; name: string }[]; can: Abilities; words: FieldPageWords }) {
  const { t, format, ha } = words;
  const key = statusKey(field.status);
  return (
    <Card title={t('field.properties')}>
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm" data-testid="field-properties">
        <dt className="text-stone-600">{t('fields.area')}</dt>
        <dd>{ha(field.area)}</dd>
        <dt className="text-stone-600">{t('fields.owner')}</dt>
        <dd>{field.owner?.name ?? t('fields.no_owner')}</dd>
        <dt className="text-stone-600">{t('fields.status')}</dt>
        <dd>{key ? t(`fields.status_values.${key}`) : field.status || t('fields.no_status')}</dd>
        <dt className="text-stone-600">{t('fields.parcel_number')}</dt>
        <dd className="font-mono text-xs">{field.parcel_number || '—'}</dd>
        {splitFrom && (
          <>
            <dt className="text-stone-600">{t('field.split_from')}</dt>
            <dd>
              <Link href={`/fields/${splitFrom.id}`} className="text-emerald-800 hover:underline">
                {splitFrom.name}
              </Link>
            </dd>
          </>
        )}
        <dt className="text-stone-600">{t('field.updated')}</dt>
        <dd>{format.dateTime(new Date(field.updated_at), { dateStyle: 'medium', timeStyle: 'short' })}</dd>
      </dl>
      <FieldEditPanel
        id={field.id}
        name={field.name}
        initial={{ name: field.name, owner_id: field.owner?.id ?? null, status: field.status, parcel_number: field.parcel_number ?? '' }}
        owners={owners}
        canEdit={can.edit}
        canDelete={can.deleteFields}
      />
    </Card>
  );
}
