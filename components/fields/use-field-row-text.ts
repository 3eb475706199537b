'use client';
import { useFormatter, useTranslations } from 'next-intl';
import { statusKey } from '@/lib/fields/land-status';
import { scanDay } from '@/lib/ui/scan-day';
import type { FieldRow } from './field-row';

/** How the fields table writes a row's area, latest scan, index mean and status. */
export function useFieldRowText() {
  const t = useTranslations();
  const format = useFormatter();
  return {
    ha: (v: number) => format.number(v, 'hectares'),
    scanDayOf: ({ scan }: FieldRow) =>
      scan ? scanDay(format, { captured: scan.dated ? scan.date : null, uploaded: scan.date }, (day) => t('field.uploaded_on', { date: day })) : '—',
    indexMean: ({ scan }: FieldRow) =>
      scan?.mean == null ? '—' : `${(scan.index ?? '').toUpperCase()} ${format.number(scan.mean, { minimumFractionDigits: 3, maximumFractionDigits: 3 })}`,
    statusLabel: (s: string | null) => {
      const key = statusKey(s);
      return key ? t(`fields.status_values.${key}`) : s || '—';
    },
  };
}
