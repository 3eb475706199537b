import Link from 'next/link';
import { getTranslations } from 'next-intl/server';
import { FieldsTable } from '@/components/fields/fields-table';
import { fieldProperties, listFieldRows } from '@/lib/fields/fields';
import { latestScansByField } from '@/lib/scans/scans';
import { listOwners } from '@/lib/owners/owners';
import { can } from '@/lib/auth/abilities';
import { requireUser } from '@/lib/ui/server';
import { KNOWN_STATUSES, statusKey } from '@/lib/fields/land-status';
import { inputClass } from '@/components/ui/form';
import { Form } from '@/components/ui/validation-messages';

export async function generateMetadata() {
  const t = await getTranslations('nav');
  return { title: t('fields') };
}

type Search = { q?: string; status?: string; owner_id?: string };

export default async function FieldsPage({ searchParams }: { searchParams: Promise<Search> }) {
  const { user, db } = await requireUser();
  const params = await searchParams;
  const q = params.q?.trim().slice(0, 255) || undefined;
  const status = params.status?.slice(0, 64) || undefined;
  const ownerId = Number(params.owner_id) > 0 ? Math.floor(Number(params.owner_id)) : undefined;
  const [fields, latest, owners, t] = await Promise.all([listFieldRows(db, { q, status, owner_id: ownerId }), latestScansByField(db), listOwners(db), getTranslations()]);
  const filters = new URLSearchParams({ ...(q ? { q } : {}), ...(status ? { status } : {}), ...(ownerId ? { owner_id: String(ownerId) } : {}) }).toString();
  const listQuery = filters ? `?${filters}` : '';
  const statuses: string[] = [...KNOWN_STATUSES];
  if (status && !statuses.includes(status)) statuses.push(status);
  const rows = fields.map((f) => {
    const scan = latest.get(f.id);
    return { id: f.id, ...fieldProperties(f), ...(scan ? { scan } : {}) };
  });

  return (
    <section className="space-y-4">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h1 className="text-2xl font-semibold">{t('nav.fields')}</h1>
        {can(user.role, 'addFields') && (
          <Link href="/map" className="rounded bg-emerald-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-emerald-800">
            {t('map.draw_field')}
          </Link>
        )}
      </div>
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
      <FieldsTable
        key={listQuery}
        rows={rows}
        owners={owners.map((o) => ({ id: o.id, name: o.name }))}
        canEdit={can(user.role, 'edit')}
        canExport={can(user.role, 'exportMaps')}
        canMerge={can(user.role, 'deleteFields')}
        listQuery={listQuery}
      />
    </section>
  );
}
