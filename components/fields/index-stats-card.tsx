import type { ChosenScan } from '@/lib/fields/field-page';
import { Card } from '../ui/form';
import type { FieldPageWords } from './field-page-words';
import { Histogram } from './histogram';

/** The chosen scan's index statistics, their change since the previous scan of that index, and the histogram. */
export function IndexStatsCard({ scan, words }: { scan: ChosenScan; words: FieldPageWords }) {
  const { t, format, indexValue, twoDecimals, dayOf } = words;
  const { meanChange } = scan;
  return (
    <Card title={t('field.index_stats', { index: (scan.index ?? '').toUpperCase() })}>
      <dl className="grid grid-cols-3 gap-2 text-sm sm:grid-cols-5">
        {(['mean', 'median', 'std', 'min', 'max'] as const).map((k) => (
          <div key={k}>
            <dt className="text-stone-600">{t(`report.${k}`)}</dt>
            <dd className="tabular-nums">{indexValue(scan.stats?.[k])}</dd>
          </div>
        ))}
      </dl>
      {meanChange && (
        <p className="mt-2 text-sm text-stone-600" data-testid="index-change">
          {t('field.mean_change', { date: dayOf(meanChange.since) })}{' '}
          <strong className={meanChange.change >= 0 ? 'text-emerald-700' : 'text-red-700'}>{format.number(meanChange.change, { minimumFractionDigits: 3, maximumFractionDigits: 3, signDisplay: 'exceptZero' })}</strong>
        </p>
      )}
      {scan.histogram && <Histogram histogram={scan.histogram} label={t('report.histogram')} formatValue={twoDecimals} />}
    </Card>
  );
}
