import { Card } from '../ui/form';
import type { FieldPageWords } from './field-page-words';

/** The attributes the field's import carried, as they came. */
export function ImportedAttributesCard({ attributes, words }: { attributes: [string, unknown][]; words: FieldPageWords }) {
  const { t } = words;
  return (
    <Card title={t('field.attributes')}>
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
        {attributes.map(([k, v]) => (
          <div key={k} className="contents">
            <dt className="font-mono text-xs text-stone-600">{k}</dt>
            <dd className="break-words">{v == null ? '—' : String(v)}</dd>
          </div>
        ))}
      </dl>
    </Card>
  );
}
