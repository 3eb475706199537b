import Link from 'next/link';
import { getTranslations } from 'next-intl/server';
import { inputClass } from '@/components/ui/form';
import { Form } from '@/components/ui/validation-messages';
import { KNOWN_STATUSES, statusKey } from '@/lib/fields/land-status';

/** The fields list's search: a text, an owner and a land status, sent as the page's query. */
export async function FieldsFilters({ q, ownerId, status, owners }: { q?: string; ownerId?: number; status?: string; owners: { id: number; name: string }[] }) {
  const t = await getTranslations();
  // A status asked for that is not one of ours (a link, an imported value) stays selectable.
  const statuses: string[] = [...KNOWN_STATUSES];
  if (status && !statuses.includes(status)) statuses.push(status);
  return (
    <Form method="get" className="grid gap-3 rounded-lg border border-stone-200 bg-white p-3 sm:grid-cols-[2fr_1fr_1fr_auto] sm:items-end" role="search">
      <label className="block space-y-1 text-sm">
        <span className="font-medium text-stone-700">{t('fields.search')}</span>
        <input name="q" defaultValue={q ?? ''} className={inputClass} placeholder={t('fields.search_placeholder')} />
      </label>
      <label className="block space-y-1 text-sm">
        <span className="font-medium text-stone-700">{t('fields.owner')}</span>
        <select name="owner_id" defaultValue={ownerId ?? ''} className={inputClass}>
          <option value="">{t('common.all')}</option>
          {owners.map((o) => (
            <option key={o.id} value={o.id}>
              {o.name}
            </option>
          ))}
        </select>
      </label>
      <label className="block space-y-1 text-sm">
        <span className="font-medium text-stone-700">{t('fields.status')}</span>
        <select name="status" defaultValue={status ?? ''} className={inputClass}>
          <option value="">{t('common.all')}</option>
          {statuses.map((s) => {
            const key = statusKey(s);
            return (
              <option key={s} value={s}>
                {key ? t(`fields.status_values.${key}`) : s}
              </option>
            );
          })}
        </select>
      </label>
      <span className="flex gap-2">
        <button type="submit" className="rounded bg-emerald-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-emerald-800">
          {t('common.apply')}
        </button>
        <Link href="/fields" className="rounded border border-stone-300 px-3 py-1.5 text-sm hover:bg-stone-100">
          {t('common.reset')}
        </Link>
      </span>
    </Form>
  );
}
