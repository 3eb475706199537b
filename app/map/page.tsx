import { getTranslations } from 'next-intl/server';
import { FieldMapLoader } from '@/components/map/field-map-loader';
import { featureCollectionJson, listFields } from '@/lib/fields/fields';
import { listOwners } from '@/lib/owners/owners';
import { can } from '@/lib/ui/roles';
import { requireUser, tileUrl } from '@/lib/ui/server';
import type { FieldCollection } from '@/lib/ui/types';

export async function generateMetadata() {
  const t = await getTranslations('nav');
  return { title: t('map') };
}

export default async function MapPage({ searchParams }: { searchParams: Promise<{ field?: string }> }) {
  const { user, db } = await requireUser();
  const [fields, owners, t, params] = await Promise.all([listFields(db, {}), listOwners(db), getTranslations('nav'), searchParams]);
  // The same FeatureCollection the API answers, so the map reads one shape whichever way it loads.
  const collection = JSON.parse(featureCollectionJson(fields)) as FieldCollection;
  const focus = Number(params.field);
  return (
    <section className="space-y-3">
      <h1 className="text-2xl font-semibold">{t('map')}</h1>
      <FieldMapLoader
        initial={collection}
        owners={owners.map((o) => ({ id: o.id, name: o.name }))}
        tileUrl={tileUrl()}
        can={{ add: can(user.role, 'addFields'), edit: can(user.role, 'edit'), delete: can(user.role, 'deleteFields') }}
        focusId={Number.isInteger(focus) && focus > 0 ? focus : undefined}
      />
    </section>
  );
}
