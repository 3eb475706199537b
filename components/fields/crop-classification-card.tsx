import type { ChosenScan } from '@/lib/fields/field-page';
import { Card } from '../ui/form';
import { CropChoice } from './crop-choice';
import type { FieldPageWords } from './field-page-words';

type CropScan = Pick<ChosenScan, 'id' | 'classification' | 'cropUncertain'>;

/**
 * The crop on the field when the scan was taken: the one a user named (with the classifier's guess
 * beside it), else the guess, said to be unsure when it is too close to call; and the crop to name.
 */
export function CropClassificationCard({ scan, canEdit, words }: { scan: CropScan; canEdit: boolean; words: FieldPageWords }) {
  const { t } = words;
  const { classification } = scan;
  return (
    <Card title={t('report.crop')}>
      {classification.crop_type ? (
        <div className="space-y-2 text-sm" data-testid="crop-classification">
          {classification.details.user_value ? <NamedCrop named={classification.details.user_value} classification={classification} words={words} /> : <GuessedCrop guess={classification.crop_type} scan={scan} words={words} />}
          {classification.details.top_candidates.length > 0 && <CropCandidates candidates={classification.details.top_candidates} words={words} />}
        </div>
      ) : (
        <p className="text-sm text-stone-600">{t('report.no_crop')}</p>
      )}
      {canEdit && <CropChoice key={scan.id} scanId={scan.id} userCrop={classification.details.user_value ?? null} />}
    </Card>
  );
}

/** The crop a user named, and the classifier's guess beside it. */
function NamedCrop({ named, classification, words: { t, format, crop } }: { named: string; classification: CropScan['classification']; words: FieldPageWords }) {
  const { automatic, top_candidates } = classification.details;
  return (
    <>
      <p>
        <strong className="text-lg">{crop(named)}</strong>
        <span className="text-stone-600"> · {t('field.crop_named')}</span>
      </p>
      {automatic && (
        <p className="text-stone-600">
          {t('field.crop_automatic', { crop: crop(automatic), value: format.number(top_candidates[0]?.score ?? 0, { style: 'percent' }) })}
        </p>
      )}
    </>
  );
}

/** The classifier's guess with its confidence, said to be unsure when it is too close to call. */
function GuessedCrop({ guess, scan, words: { t, format, crop } }: { guess: string; scan: CropScan; words: FieldPageWords }) {
  const { confidence } = scan.classification;
  return (
    <>
      <p>
        <strong className="text-lg">{crop(guess)}</strong>
        {confidence != null && <span className="text-stone-600"> · {t('field.confidence', { value: format.number(confidence, { style: 'percent' }) })}</span>}
      </p>
      {scan.cropUncertain && (
        <p className="rounded border border-amber-300 bg-amber-50 px-3 py-2 text-amber-900" data-testid="crop-uncertain">
          {t('field.crop_uncertain')}
        </p>
      )}
    </>
  );
}

function CropCandidates({ candidates, words: { format, crop } }: { candidates: CropScan['classification']['details']['top_candidates']; words: FieldPageWords }) {
  return (
    <ol className="space-y-1">
      {candidates.map((c) => (
        <li key={c.crop} className="flex items-center gap-2">
          <span className="w-28 shrink-0">{crop(c.crop)}</span>
          <span className="h-2 flex-1 rounded bg-stone-100">
            <span className="block h-2 rounded bg-emerald-600" style={{ width: `${Math.round(c.score * 100)}%` }} />
          </span>
          <span className="w-12 text-right tabular-nums">{format.number(c.score, { style: 'percent' })}</span>
        </li>
      ))}
    </ol>
  );
}
