import Link from 'next/link';
import type { ChosenScan, FieldPageView } from '@/lib/fields/field-page';
import type { Abilities } from '@/lib/auth/abilities';
import { Card } from '../ui/form';
import type { FieldPageWords } from './field-page-words';
import { IndexTrend } from './index-trend';
import { ScanFacts } from './scan-facts';
import { ScanList } from './scan-list';
import { ScanProgress } from './scan-progress';

/** The field's scans: zonings under way, the scans, the chosen scan's index over time, and its facts. */
export function ScansCard({ fieldId, scans, zoning, scan, can, words }: { fieldId: number; scans: FieldPageView['scans']; zoning: FieldPageView['zoning']; scan: ChosenScan | null; can: Abilities; words: FieldPageWords }) {
  const { t, twoDecimals, dayOf } = words;
  return (
    <Card title={t('field.scans')}>
      {zoning.length > 0 && (
        <ul className="grid grid-cols-1 gap-3 sm:grid-cols-2" data-testid="zoning-tasks">
          {zoning.map((task) => (
            <li key={task.task_id} className="space-y-2 rounded border border-stone-200 p-2 text-sm">
              <span className="block font-medium">{t('field.zoning_under_way')}</span>
              {task.file_name && (
                <span className="block truncate text-xs text-stone-600" title={task.file_name}>
                  {task.file_name}
                </span>
              )}
              <ScanProgress taskId={task.task_id} scanless />
            </li>
          ))}
        </ul>
      )}
      {scans.length === 0 && zoning.length === 0 && (
        <p className="text-sm text-stone-600">
          {t('field.no_scans')}{' '}
          {can.uploadScans && (
            <Link href={`/uploads?field=${fieldId}`} className="text-emerald-800 underline">
              {t('field.upload_scan')}
            </Link>
          )}
        </p>
      )}
      {scans.length > 0 && <ScanList fieldId={fieldId} scans={scans} chosenId={scan?.id ?? null} canDelete={can.deleteFields} words={words} />}
      {scan && scan.trend.length > 1 && (
        <div className="mt-4">
          <IndexTrend
            points={scan.trend.map((p) => ({ scanId: p.scanId, time: p.time, date: dayOf(p), mean: p.mean }))}
            chosen={scan.id}
            href={(scanId) => `/fields/${fieldId}?scan=${scanId}`}
            label={t('field.index_trend', { index: (scan.index ?? '').toUpperCase() })}
            formatValue={twoDecimals}
          />
        </div>
      )}
      {scan && <ScanFacts scan={scan} can={can} words={words} />}
    </Card>
  );
}
