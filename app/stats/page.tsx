import { getFormatter, getTranslations } from 'next-intl/server';
import { Card } from '@/components/ui/form';
import { CropYearForm } from '@/components/stats/crop-year-form';
import { AreaBars, type AreaRow } from '@/components/stats/area-bars';
import { AreaTable } from '@/components/stats/area-table';
import { isNamedCrop } from '@/lib/drone/crops';
import { cropYears, fieldStats } from '@/lib/fields/stats';
import { requireUser } from '@/lib/ui/server';
import { statusKey } from '@/lib/fields/land-status';
import { NO_VALUE_COLOR, cropColor, ownerColor, statusColor } from '@/lib/ui/status';

export async function generateMetadata() {
  const t = await getTranslations('nav');
  return { title: t('stats') };
}

export default async function StatsPage({ searchParams }: { searchParams: Promise<{ year?: string }> }) {
  const { db } = await requireUser();
  const asked = Number((await searchParams).year);
  // The crop year is one of those with scans, the latest unless another is asked for (a link may ask for any).
  const years = await cropYears(db);
  const year = Number.isInteger(asked) && asked >= 1900 && asked <= 2100 ? asked : (years[0] ?? new Date().getUTCFullYear());
  const yearChoices = years.includes(year) ? years : [...years, year].sort((a, b) => b - a);
  const [stats, t, format] = await Promise.all([fieldStats(db, year), getTranslations(), getFormatter()]);

  return (
    <section className="space-y-4">
      <h1 className="text-2xl font-semibold">{t('nav.stats')}</h1>
      <p className="text-stone-700" data-testid="stats-summary">
        {t('stats.summary', { count: stats.total_fields, area: t('common.ha', { value: format.number(stats.total_area, 'hectares') }) })}
      </p>
      {stats.total_fields === 0 ? (
        <p className="text-stone-600">{t('stats.empty')}</p>
      ) : (
        <Breakdowns stats={stats} years={years} yearChoices={yearChoices} t={t} format={format} />
      )}
    </section>
  );
}

type Translate = Awaited<ReturnType<typeof getTranslations>>;
type FieldStats = Awaited<ReturnType<typeof fieldStats>>;

interface BreakdownsProps {
  stats: FieldStats;
  /** The crop years with scans, and those the crop year form offers (the year shown among them). */
  years: number[];
  yearChoices: number[];
  t: Translate;
  format: Awaited<ReturnType<typeof getFormatter>>;
}

/** The area by land status, by owner and by crop, each as bars beside a table. */
function Breakdowns({ stats, years, yearChoices, t, format }: BreakdownsProps) {
  const ha = (v: number) => format.number(v, 'hectares');
  const withUnit = (area: string) => t('common.ha', { value: area });
  const pct = (v: number) => format.number(stats.total_area ? v / stats.total_area : 0, { style: 'percent', minimumFractionDigits: 1, maximumFractionDigits: 1 });
  const { byStatus, byOwner, byCrop } = breakdownRows(stats, t, ha);

  const total = { area: ha(stats.total_area), share: stats.total_area ? pct(stats.total_area) : '—' };
  const table = (rows: AreaRow[], head: string) => (
    <AreaTable rows={rows} labels={{ head, area: t('fields.area_ha'), share: t('stats.share'), total: t('report.total') }} total={total} share={pct} />
  );

  return (
    <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
      <Card title={t('stats.by_status')}>
        <AreaBars rows={byStatus} total={stats.total_area} label={t('stats.by_status')} withUnit={withUnit} />
        {table(byStatus, t('fields.status'))}
      </Card>
      <Card title={t('stats.by_owner')}>
        <AreaBars rows={byOwner} total={stats.total_area} label={t('stats.by_owner')} withUnit={withUnit} />
        {table(byOwner, t('fields.owner'))}
      </Card>
      <div className="lg:col-span-2">
        <Card title={t('stats.by_crop', { year: String(stats.crop_year) })}>
          <CropYearForm
            year={stats.crop_year}
            choices={yearChoices}
            withScans={years}
            labels={{ label: t('stats.crop_year'), apply: t('common.apply'), hint: t('stats.crop_hint'), noScans: (y) => t('stats.year_no_scans', { year: String(y) }) }}
          />
          <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
            <AreaBars rows={byCrop} total={stats.total_area} label={t('stats.by_crop', { year: String(stats.crop_year) })} withUnit={withUnit} />
            {table(byCrop, t('report.crop_type'))}
          </div>
        </Card>
      </div>
    </div>
  );
}

/** The company's area by land status (largest first), by owner and by crop, as bars and tables show them. */
function breakdownRows(stats: FieldStats, t: Translate, ha: (v: number) => string) {
  const byStatus = Object.entries(stats.by_status)
    .sort((a, b) => b[1] - a[1])
    .map(([status, area]) => {
      const key = statusKey(status);
      return { label: key ? t(`fields.status_values.${key}`) : status || t('fields.no_status'), value: area, area: ha(area), color: status ? statusColor(status) : NO_VALUE_COLOR };
    });
  const byOwner = stats.by_owner.map((o) => ({ label: o.name ?? t('fields.no_owner'), value: o.area, area: ha(o.area), color: ownerColor(o.name) }));
  const cropName = (c: string | null) => (c === null ? t('stats.crop_unknown') : isNamedCrop(c) ? t(`drone.crops.${c}`) : c);
  const byCrop = stats.by_crop.map((row) => ({ label: cropName(row.crop), value: row.area, area: ha(row.area), color: cropColor(row.crop) }));
  return { byStatus, byOwner, byCrop };
}
