import { getTranslations } from 'next-intl/server';
import { FieldMapLoader } from '@/components/map/field-map-loader';
import { fieldsExtent } from '@/lib/fields/fields';
import { latestScansByField } from '@/lib/scans/scans';
import { listOwners } from '@/lib/owners/owners';
import { can } from '@/lib/auth/abilities';
import { baseLayers, requireUser } from '@/lib/ui/server';

export async function generateMetadata() {
  const t = await getTranslations('nav');
  return { title: t('map') };
}

// The fields themselves are not in the page: the map reads them from GET /api/fields (streamed and
// compressed), so the page answers at once whatever the company's size. Embedded, 10,000 fields
// made a 32 MB page that took 5 s to render. The page gives the first view: the field asked for,
// else the box around all of them.
export default async function MapPage({ searchParams }: { searchParams: Promise<{ field?: string; denied?: string }> }) {
  const { user, db } = await requireUser();
  const params = await searchParams;
  const focus = Number(params.field);
  const focusId = Number.isSafeInteger(focus) && focus > 0 ? focus : undefined;
  const [owners, t, focused, latest, fieldCount] = await Promise.all([
    listOwners(db),
    getTranslations('nav'),
    focusId === undefined ? null : fieldsExtent(db, focusId),
    latestScansByField(db),
    db.field.count(),
  ]);
  // Only the scanned fields' latest index and crop (a few bytes each) ride in the page, for colouring by them.
  const latestScan = Object.fromEntries([...latest].map(([id, s]) => [id, { scanId: s.scanId, source: s.source, index: s.index, mean: s.mean, crop: s.crop, cropUnsure: s.cropUnsure }]));
  const extent = focused ?? (await fieldsExtent(db));
  // The map fills the window below the header (globals.css, .fm-full-window).
  return (
    <section className="fm-full-window flex min-h-0 flex-1 flex-col">
      <FieldMapLoader
        title={t('map')}
        message={params.denied ? t('denied') : undefined}
        bounds={extent ? [[extent.minLat, extent.minLon], [extent.maxLat, extent.maxLon]] : undefined}
        owners={owners.map((o) => ({ id: o.id, name: o.name }))}
        baseLayers={baseLayers()}
        can={{ add: can(user.role, 'addFields'), edit: can(user.role, 'edit'), delete: can(user.role, 'deleteFields') }}
        focusId={focused ? focusId : undefined}
        fieldCount={fieldCount}
        latestScan={latestScan}
      />
    </section>
  );
}
