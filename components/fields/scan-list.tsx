import Link from 'next/link';
import type { ScanSummary } from '@/lib/fields/field-page';
import type { FieldPageWords } from './field-page-words';
import { ScanDeleteButton } from './scan-delete-button';
import { ScanProgress } from './scan-progress';

/** The field's scans as tiles linking to each, the chosen one marked; one being processed follows its task. */
export function ScanList({ fieldId, scans, chosenId, canDelete, words }: { fieldId: number; scans: ScanSummary[]; chosenId: number | null; canDelete: boolean; words: FieldPageWords }) {
  const { t, dayOf, crop } = words;
  return (
    <ul className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-4" data-testid="scan-list">
      {scans.map((s) => (
        <li key={s.id}>
          <Link
            href={`/fields/${fieldId}?scan=${s.id}`}
            aria-current={s.id === chosenId ? 'true' : undefined}
            className={`block space-y-1 rounded border p-2 text-sm hover:bg-stone-50 ${s.id === chosenId ? 'border-emerald-600 ring-1 ring-emerald-600' : 'border-stone-200'}`}
          >
            {s.status === 'completed' ? (
              // eslint-disable-next-line @next/next/no-img-element -- a per-user API image, not a static asset
              <img src={`/api/scans/${s.id}/preview.png`} alt={t('field.preview_alt', { index: s.index ?? '' })} className="h-24 w-full rounded bg-stone-100 object-contain" loading="lazy" />
            ) : (
              <span className="flex h-24 items-center justify-center rounded bg-stone-100 text-stone-600">{t(`field.scan_status.${s.status === 'error' ? 'error' : 'processing'}`)}</span>
            )}
            <span className="block font-medium">{dayOf(s)}</span>
            <span className="block text-xs text-stone-600">
              {[t(`field.source.${s.source === 'drone' ? 'drone' : 'raster'}`), s.index?.toUpperCase(), s.crop_type && crop(s.crop_type)].filter(Boolean).join(' · ')}
            </span>
            {s.file_name && (
              <span className="block truncate text-xs text-stone-600" title={s.file_name}>
                {s.file_name}
              </span>
            )}
          </Link>
          {s.status === 'processing' && s.task_id && (
            <div className="mt-2">
              <ScanProgress taskId={s.task_id} />
            </div>
          )}
          {s.status === 'error' && s.error && (
            <p className="mt-2 text-sm text-red-800" data-testid="scan-failure">
              {s.error}
            </p>
          )}
          {/* A scan still being processed is its task's until the task ends. */}
          {canDelete && s.status !== 'processing' && (
            <div className="mt-2">
              <ScanDeleteButton scanId={s.id} fieldId={fieldId} date={dayOf(s)} />
            </div>
          )}
        </li>
      ))}
    </ul>
  );
}
