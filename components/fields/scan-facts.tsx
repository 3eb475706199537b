import type { ChosenScan } from '@/lib/fields/field-page';
import type { Abilities } from '@/lib/auth/abilities';
import { CaptureDateForm } from './capture-date-form';
import type { FieldPageWords } from './field-page-words';
import { ScanCoverage } from './scan-coverage';

/** The chosen scan's dates, coverage and file, its capture date to correct, and whether it was made for an earlier boundary. */
export function ScanFacts({ scan, can, words }: { scan: ChosenScan; can: Abilities; words: FieldPageWords }) {
  const { t, format, dayOf } = words;
  const { coverage } = scan;
  const percent = (share: number) => format.number(share, { style: 'percent', maximumFractionDigits: share < 0.1 ? 1 : 0 });
  return (
    <div className="mt-4 flex flex-wrap items-end justify-between gap-x-8 gap-y-3 border-t border-stone-100 pt-3 text-sm">
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1" data-testid="scan-facts">
        <dt className="text-stone-600">{t('field.captured')}</dt>
        <dd>{scan.captured_at ? dayOf(scan) : t('field.capture_unknown')}</dd>
        <dt className="text-stone-600">{t('field.uploaded')}</dt>
        <dd>{format.dateTime(new Date(scan.created_at), { dateStyle: 'medium', timeStyle: 'short' })}</dd>
        {coverage && (
          <>
            <dt className="text-stone-600">{t('report.coverage')}</dt>
            <dd>
              <ScanCoverage
                coverage={coverage}
                text={
                  coverage.kind === 'photos'
                    ? t('report.coverage_photos', { share: percent(coverage.share) })
                    : t('report.coverage_zoned', { zoned: format.number(coverage.zonedHa, 'hectares'), field: format.number(coverage.fieldHa, 'hectares'), share: percent(coverage.share) })
                }
                partialNote={t('field.coverage_partial')}
              />
            </dd>
          </>
        )}
        {scan.file_name && (
          <>
            <dt className="text-stone-600">{t('field.file')}</dt>
            <dd className="break-all">{scan.file_name}</dd>
          </>
        )}
      </dl>
      {can.edit && <CaptureDateForm key={scan.id} scanId={scan.id} capturedAt={scan.captured_at} />}
      {scan.madeForEarlierBoundary && (
        <p role="note" className="basis-full rounded bg-amber-50 px-3 py-2 text-amber-900" data-testid="scan-earlier-boundary">
          {t('field.earlier_boundary')}
          {can.uploadScans && ` ${t('field.earlier_boundary_rezone')}`}
        </p>
      )}
    </div>
  );
}
