// The field page's words and numbers, made once for the request and handed to its components, so
// that each says a hectare, an index value or a scan's day the same way.
import { getFormatter, getTranslations } from 'next-intl/server';
import { isNamedCrop } from '@/lib/drone/crops';
import type { ScanDates } from '@/lib/fields/field-page';
import { scanDay } from '@/lib/ui/scan-day';

export async function fieldPageWords() {
  const [t, format] = await Promise.all([getTranslations(), getFormatter()]);
  return {
    t,
    format,
    ha: (v: number) => t('common.ha', { value: format.number(v, 'hectares') }),
    // Index values to three decimals, always, so that a column's figures line up.
    indexValue: (v: number | undefined | null) => (v == null ? '—' : format.number(v, { minimumFractionDigits: 3, maximumFractionDigits: 3 })),
    twoDecimals: (v: number) => format.number(v, { minimumFractionDigits: 2, maximumFractionDigits: 2 }),
    dayOf: (s: ScanDates) => scanDay(format, { captured: s.captured_at, uploaded: s.created_at }, (day) => t('field.uploaded_on', { date: day })),
    crop: (c: string | null | undefined) => (isNamedCrop(c) ? t(`drone.crops.${c}`) : c || '—'),
  };
}

export type FieldPageWords = Awaited<ReturnType<typeof fieldPageWords>>;
