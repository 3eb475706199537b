'use client';
import { useRouter } from 'next/navigation';
import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { api } from '@/lib/ui/api';
import { ConfirmButton } from '../ui/confirm-button';
import { ErrorMessage } from '../ui/form';

/** Deletes one scan of the field (its zones and files go with it), then shows the field without it. */
export function ScanDeleteButton({ scanId, fieldId, date }: { scanId: number; fieldId: number; date: string }) {
  const t = useTranslations();
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);

  async function remove() {
    const res = await api(`/api/scans/${scanId}`, { method: 'DELETE' });
    if (!res.ok) {
      setError(res.error ?? t('common.network_error'));
      return;
    }
    router.replace(`/fields/${fieldId}`);
    router.refresh();
  }

  return (
    <div className="space-y-1">
      <ConfirmButton label={t('field.delete_scan')} name={t('field.delete_scan_of', { date })} question={t('field.delete_scan_confirm', { date })} onConfirm={remove} />
      <ErrorMessage>{error}</ErrorMessage>
    </div>
  );
}
