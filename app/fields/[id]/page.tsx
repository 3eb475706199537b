import { getLocale, getTranslations } from 'next-intl/server';
import { currentUser } from '@/lib/auth/current-user';
import { db } from '@/lib/db/client';
import { tenantDb } from '@/lib/db/tenant';
import { CropClassificationCard } from '@/components/fields/crop-classification-card';
import { FieldDetailMapLoader } from '@/components/fields/field-detail-map-loader';
import type { ZoneFeatureCollection } from '@/components/fields/field-detail-map';
import { FieldExportCard } from '@/components/fields/field-export-card';
import { FieldHeading } from '@/components/fields/field-heading';
import { fieldPageWords } from '@/components/fields/field-page-words';
import { FieldPropertiesCard } from '@/components/fields/field-properties-card';
import { ImportedAttributesCard } from '@/components/fields/imported-attributes-card';
import { IndexStatsCard } from '@/components/fields/index-stats-card';
import { MergedFromCard, TakenOutMessage } from '@/components/fields/merged-from-card';
import { ScansCard } from '@/components/fields/scans-card';
import { ZonesTableCard } from '@/components/fields/zones-table-card';
import { fieldPageTitle, loadFieldPage } from '@/lib/fields/field-page';
import { orNotFound, requireUser, tileSource } from '@/lib/ui/server';

/** The field's name in the tab's title, so that several open fields can be told apart. */
export async function generateMetadata({ params }: { params: Promise<{ id: string }> }) {
  const t = await getTranslations('app');
  const user = await currentUser();
  const name = user ? await fieldPageTitle(tenantDb(db(), user.companyId), (await params).id) : null;
  return { title: name ? `${name} – ${t('name')}` : t('name') };
}

export default async function FieldPage({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<{ scan?: string; restored?: string }> }) {
  const { user, db } = await requireUser();
  const [{ id }, query, locale] = await Promise.all([params, searchParams, getLocale()]);
  const [{ field, scan, can, ...view }, words] = await Promise.all([orNotFound(loadFieldPage(db, user, id, query, locale)), fieldPageWords()]);
  return (
    <section className="space-y-4">
      <FieldHeading field={field} words={words} />
      <div className="grid gap-4 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
        <FieldDetailMapLoader geometry={field.geometry} tiles={tileSource()} preview={view.map.picture} zones={view.map.zones as ZoneFeatureCollection | null} />
        <div className="space-y-4">
          <FieldPropertiesCard field={field} splitFrom={view.splitFrom} owners={view.owners} can={can} words={words} />
          {can.exportMaps && <FieldExportCard fieldId={field.id} exports={view.exports} words={words} />}
        </div>
      </div>
      <ScansCard fieldId={field.id} scans={view.scans} zoning={view.zoning} scan={scan} can={can} words={words} />
      {scan && (
        <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
          <IndexStatsCard scan={scan} words={words} />
          <CropClassificationCard scan={scan} canEdit={can.edit} words={words} />
          <div className="lg:col-span-2">
            <ZonesTableCard scan={scan} canRezone={can.uploadScans} words={words} />
          </div>
        </div>
      )}
      {view.restored && <TakenOutMessage parcel={view.restored} words={words} />}
      {view.mergedFrom.length > 0 && <MergedFromCard fieldId={field.id} parcels={view.mergedFrom} canTakeOut={can.edit} words={words} />}
      {view.attributes.length > 0 && <ImportedAttributesCard attributes={view.attributes} words={words} />}
    </section>
  );
}
