import { getLocale, getTranslations } from 'next-intl/server';
import { DroneUpload } from '@/components/uploads/drone-upload';
import { RasterUpload } from '@/components/uploads/raster-upload';
import { RecentTasks } from '@/components/uploads/recent-tasks';
import { ShapefileUpload } from '@/components/uploads/shapefile-upload';
import { Card } from '@/components/ui/form';
import { listTasks } from '@/lib/tasks/list';
import { can } from '@/lib/auth/abilities';
import { requireUser } from '@/lib/ui/server';

export async function generateMetadata() {
  const t = await getTranslations('nav');
  return { title: t('uploads') };
}

/**
 * The uploads and the company's record of them. Viewers see the record alone: why a zoning task
 * failed is theirs to know too, as the scans are (a failed one leaves no scan).
 */
export default async function UploadsPage({ searchParams }: { searchParams: Promise<{ field?: string }> }) {
  const { db, user } = await requireUser();
  const locale = await getLocale();
  const [rows, tasks, t, params] = await Promise.all([
    db.field.findMany({ select: { id: true, name: true, parcelNumber: true }, orderBy: { name: 'asc' } }),
    listTasks(db, { limit: 20 }, locale),
    getTranslations('uploads'),
    searchParams,
  ]);
  const fields = rows.map((f) => ({ id: f.id, name: f.name, parcel_number: f.parcelNumber }));
  const wanted = Number(params.field);
  const defaultField = fields.some((f) => f.id === wanted) ? wanted : undefined;
  const recent = (
    <Card title={t('recent.title')}>
      <RecentTasks initial={tasks} />
    </Card>
  );
  if (!can(user.role, 'uploadScans')) {
    return (
      <section className="space-y-4">
        <h1 className="text-2xl font-semibold">{t('title')}</h1>
        {recent}
      </section>
    );
  }
  return (
    <section className="space-y-4">
      <h1 className="text-2xl font-semibold">{t('title')}</h1>
      <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
        <Card title={t('shapefile_title')}>
          <ShapefileUpload />
        </Card>
        <Card title={t('raster_title')}>
          <RasterUpload fields={fields} defaultField={defaultField} />
        </Card>
        <div className="lg:col-span-2">
          <Card title={t('drone_title')}>
            <DroneUpload fields={fields} defaultField={defaultField} />
          </Card>
        </div>
        <div className="lg:col-span-2">{recent}</div>
      </div>
    </section>
  );
}
