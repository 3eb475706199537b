import type { ChosenScan } from '@/lib/fields/field-page';
import { Card } from '../ui/form';
import { CropChoice } from './crop-choice';
import type { FieldPageWords } from './field-page-words';

/**
 * The crop on the field when the scan was taken: the one a user named (with the classifier's guess
 * beside it), else the guess, said to be unsure when it is too close to call; and the crop to name.
 */
export function CropClassificationCard({ scan, canEdit, words }: { scan: Pick<ChosenScan, 'id' | 'classification' | 'cropUncertain'>; canEdit: boolean; words: FieldPageWords }) {
  const { t, format, crop } = words;
  const { classification } = scan;
  return (
    <Card title={t('report.crop')}>
      {classification.crop_type ? (
        <div className="space-y-2 text-sm" data-testid="crop-classification">
          {classification.details.user_value ? (
            <>
              <p>
                <strong className="text-lg">{crop(classification.details.user_value)}</strong>
                <span className="text-stone-600"> · {t('field.crop_named')}</span>
              </p>
              {classification.details.automatic && (
                <p className="text-stone-600">
                  {t('field.crop_automatic', { crop: crop(classification.details.automatic), value: format.number(classification.details.top_candidates[0]?.score ?? 0, { style: 'percent' }) })}
                </p>
              )}
            </>
          ) : (
            <>
              <p>
                <strong className="text-lg">{crop(classification.crop_type)}</strong>
                {classification.confidence != null && <span className="text-stone-600"> · {t('field.confidence', { value: format.number(classification.confidence, { style: 'percent' }) })}</span>}
              </p>
              {scan.cropUncertain && (
                <p className="rounded border border-amber-300 bg-amber-50 px-3 py-2 text-amber-900" data-testid="crop-uncertain">
                  {t('field.crop_uncertain')}
                </p>
              )}
            </>
          )}
          {classification.details.top_candidates.length > 0 && (
            <ol className="space-y-1">
              {classification.details.top_candidates.map((c) => (
                <li key={c.crop} className="flex items-center gap-2">
                  <span className="w-28 shrink-0">{crop(c.crop)}</span>
                  <span className="h-2 flex-1 rounded bg-stone-100">
                    <span className="block h-2 rounded bg-emerald-600" style={{ width: `${Math.round(c.score * 100)}%` }} />
                  </span>
                  <span className="w-12 text-right tabular-nums">{format.number(c.score, { style: 'percent' })}</span>
                </li>
              ))}
            </ol>
          )}
        </div>
      ) : (
        <p className="text-sm text-stone-600">{t('report.no_crop')}</p>
      )}
      {canEdit && <CropChoice key={scan.id} scanId={scan.id} userCrop={classification.details.user_value ?? null} />}
    </Card>
  );
}
