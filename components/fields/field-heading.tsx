import Link from 'next/link';
import type { FieldPageWords } from './field-page-words';

/** The way back to the fields table, the field's name, and its place on the map. */
export function FieldHeading({ field, words }: { field: { id: number; name: string }; words: FieldPageWords }) {
  const { t } = words;
  return (
    <>
      <nav className="text-sm text-stone-600">
        <Link href="/fields" className="hover:underline">
          {t('nav.fields')}
        </Link>{' '}
        / <span>{field.name}</span>
      </nav>
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h1 className="text-2xl font-semibold break-words">{field.name}</h1>
        <Link href={`/map?field=${field.id}`} className="text-sm text-emerald-800 hover:underline">
          {t('fields.show_on_map')}
        </Link>
      </div>
    </>
  );
}
