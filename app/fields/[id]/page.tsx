import { getLocale, getTranslations } from 'next-intl/server';
import { currentUser } from '@/lib/auth/current-user';
import { db } from '@/lib/db/client';
import { tenantDb } from '@/lib/db/tenant';
import { CropClassificationCard } from '@/components/fields/crop-classification-card';
import { FieldDetailMapLoader } from '@/components/fields/field-detail-map-loader';
import type { MapScan, ZoneFeatureCollection } from '@/components/fields/field-detail-map';
import { FieldExportCard } from '@/components/fields/field-export-card';
import { FieldHeading } from '@/components/fields/field-heading';
import { fieldPageWords } from '@/components/fields/field-page-words';
import { FieldPropertiesCard } from '@/components/fields/field-properties-card';
import { ImportedAttributesCard } from '@/components/fields/imported-attributes-card';
import { IndexStatsCard } from '@/components/fields/index-stats-card';
import { MergedFromCard, TakenOutMessage } from '@/components/fields/merged-from-card';
import { ScansCard } from '@/components/fields/scans-card';
import { ZonesTableCard } from '@/components/fields/zones-table-card';
import { fieldPageTitle, loadFieldPage, type ScanSummary } from '@/lib/fields/field-page';
import { baseLayers, orNotFound, requireUser } from '@/lib/ui/server';

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
  // The map takes the window's width and height below the header; the cards follow below it.
  return (
    <section className="fm-wide space-y-4">
      <div className="mx-auto max-w-6xl">
        <FieldHeading field={field} words={words} />
      </div>
      <FieldDetailMapLoader
        geometry={field.geometry}
        baseLayers={baseLayers()}
        scans={view.scans.filter((s) => s.status === 'completed').map(mapScan)}
        chosen={scan?.id ?? null}
        legend={view.map.legend}
        zones={view.map.zones as ZoneFeatureCollection | null}
      />
      <div className="mx-auto max-w-6xl space-y-4">
        <div className="grid gap-4 lg:grid-cols-2">
          <FieldPropertiesCard field={field} splitFrom={view.splitFrom} owners={view.owners} can={can} words={words} />
          {can.exportMaps && <FieldExportCard fieldId={field.id} exports={view.exports} words={words} />}
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
      </div>
    </section>
  );
}

/** A scan as the field's map offers it: a drone survey has its mosaic and its index as tiles, an uploaded raster its index. */
const mapScan = (s: ScanSummary): MapScan => ({ id: s.id, index: s.index, date: s.captured_at ?? s.created_at, layers: s.source === 'drone' ? ['ortho', 'index'] : ['index'] });
