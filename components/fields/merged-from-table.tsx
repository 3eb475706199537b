'use client';
import { useRouter } from 'next/navigation';
import { useFormatter, useTranslations } from 'next-intl';
import { useState } from 'react';
import { api } from '@/lib/ui/api';
import { Button, ErrorMessage } from '../ui/form';
import { Table, Th } from '../ui/table';

export interface MergedParcel {
  id: number;
  name: string;
  parcel_number: string | null;
  area: number;
}

/**
 * The parcels merged into the field, each of which an editor may take back out: it becomes a field
 * again and the field keeps the rest. The page is then shown again with the field's new boundary,
 * naming the parcel restored (`?restored=`: this table is gone once the last parcel is out).
 */
export function MergedFromTable({ fieldId, parcels, canTakeOut }: { fieldId: number; parcels: MergedParcel[]; canTakeOut: boolean }) {
  const t = useTranslations();
  const { busy, error, takeOut } = useTakeOut(fieldId);

  return (
    <div className="space-y-2">
      <ErrorMessage>{error}</ErrorMessage>
      <Table
        testId="merged-from"
        head={
          <>
            <Th>{t('fields.name')}</Th>
            <Th>{t('fields.parcel_number')}</Th>
            <Th figures>{t('fields.area_ha')}</Th>
            {canTakeOut && <Th />}
          </>
        }
      >
        {parcels.map((m) => (
          <MergedParcelRow key={m.id} parcel={m} onTakeOut={canTakeOut ? () => void takeOut(m) : undefined} busy={busy} />
        ))}
      </Table>
    </div>
  );
}

/** Takes a parcel back out of the field, then shows the page again naming it. */
function useTakeOut(fieldId: number) {
  const t = useTranslations();
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function takeOut(parcel: MergedParcel) {
    setBusy(true);
    setError(null);
    const res = await api<{ restored: { id: number } }>(`/api/fields/${fieldId}/unmerge`, { method: 'POST', body: { merged_id: parcel.id } });
    setBusy(false);
    if (!res.ok) {
      setError(res.error ?? t('common.network_error'));
      return;
    }
    router.replace(`/fields/${fieldId}?restored=${res.data.restored.id}`, { scroll: false });
  }
  return { busy, error, takeOut };
}

/** `onTakeOut`: given when the parcel may be taken out, with a button for it. */
function MergedParcelRow({ parcel: m, onTakeOut, busy }: { parcel: MergedParcel; onTakeOut?: () => void; busy: boolean }) {
  const t = useTranslations();
  const format = useFormatter();
  return (
    <tr className="border-t border-stone-200">
      <td className="px-2 py-1">{m.name}</td>
      <td className="px-2 py-1">{m.parcel_number || '—'}</td>
      <td className="px-2 py-1 text-right tabular-nums">{format.number(m.area, 'hectares')}</td>
      {onTakeOut && (
        <td className="px-2 py-1 text-right">
          <Button variant="secondary" busy={busy} onClick={onTakeOut} aria-label={t('field.take_out_parcel', { name: m.name })}>
            {t('field.take_out')}
          </Button>
        </td>
      )}
    </tr>
  );
}
