import Link from 'next/link';
import { getTranslations } from 'next-intl/server';
import { FieldsFilters } from '@/components/fields/fields-filters';
import { FieldsTable } from '@/components/fields/fields-table';
import { fieldProperties, listFieldRows } from '@/lib/fields/fields';
import { latestScansByField } from '@/lib/scans/scans';
import { listOwners } from '@/lib/owners/owners';
import { can } from '@/lib/auth/abilities';
import { requireUser } from '@/lib/ui/server';

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
      <FieldsFilters q={q} ownerId={ownerId} status={status} owners={owners} />
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
