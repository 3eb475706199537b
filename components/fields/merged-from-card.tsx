import Link from 'next/link';
import type { MergedParcel } from '@/lib/fields/field-page';
import { Card, SuccessMessage } from '../ui/form';
import { MergedFromTable } from './merged-from-table';
import type { FieldPageWords } from './field-page-words';

/** The parcel just taken back out of this field, named with a link to it. */
export function TakenOutMessage({ parcel, words }: { parcel: { id: number; name: string }; words: FieldPageWords }) {
  const { t } = words;
  return (
    <SuccessMessage>
      {t('field.taken_out', { name: parcel.name })}{' '}
      <Link href={`/fields/${parcel.id}`} className="underline">
        {t('map.open_field')}
      </Link>
    </SuccessMessage>
  );
}

/** The register's parcels merged into this field, each to be taken back out. */
export function MergedFromCard({ fieldId, parcels, canTakeOut, words }: { fieldId: number; parcels: MergedParcel[]; canTakeOut: boolean; words: FieldPageWords }) {
  const { t } = words;
  return (
    <Card title={t('field.merged_from')}>
      <MergedFromTable fieldId={fieldId} parcels={parcels} canTakeOut={canTakeOut} />
    </Card>
  );
}
