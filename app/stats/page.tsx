import { getFormatter, getTranslations } from 'next-intl/server';
import { Card, Select } from '@/components/ui/form';
import { Table, Th } from '@/components/ui/table';
import { Form } from '@/components/ui/validation-messages';
import { isNamedCrop } from '@/lib/drone/crops';
import { cropYears, fieldStats } from '@/lib/fields/stats';
import { requireUser } from '@/lib/ui/server';
import { statusKey } from '@/lib/fields/land-status';
import { NO_VALUE_COLOR, cropColor, ownerColor, statusColor } from '@/lib/ui/status';

export async function generateMetadata() {
  const t = await getTranslations('nav');
  return { title: t('stats') };
}

/**
 * Bars of area by `label`; beside each its area with the unit (the tables' heading names it, these stand alone).
 * One grid for the list, each row on its columns (subgrid): a grid per row sized each track by its own
 * figure, so that a longer area drew a shorter track and bars of one list were not to one scale.
 */
function Bars({ rows, total, label, withUnit }: { rows: { label: string; area: string; value: number; color: string }[]; total: number; label: string; withUnit: (area: string) => string }) {
  return (
    <ul className="grid grid-cols-[minmax(0,8rem)_1fr_auto] gap-x-2 gap-y-1.5" aria-label={label}>
      {rows.map((r) => (
        <li key={r.label} className="col-span-3 grid grid-cols-subgrid items-center text-sm">
          <span className="truncate" title={r.label}>
            {r.label}
          </span>
          <span className="h-4 rounded bg-stone-100" data-testid="stats-bar-track">
            <span className="block h-4 rounded" style={{ width: `${total ? Math.max(1, (r.value / total) * 100) : 0}%`, background: r.color }} />
          </span>
          <span className="tabular-nums text-stone-700">{withUnit(r.area)}</span>
        </li>
      ))}
    </ul>
  );
}

export default async function StatsPage({ searchParams }: { searchParams: Promise<{ year?: string }> }) {
  const { db } = await requireUser();
  const asked = Number((await searchParams).year);
  // The crop year is one of those with scans, the latest unless another is asked for (a link may ask for any).
  const years = await cropYears(db);
  const year = Number.isInteger(asked) && asked >= 1900 && asked <= 2100 ? asked : (years[0] ?? new Date().getUTCFullYear());
  const yearChoices = years.includes(year) ? years : [...years, year].sort((a, b) => b - a);
  const [stats, t, format] = await Promise.all([fieldStats(db, year), getTranslations(), getFormatter()]);
  const ha = (v: number) => format.number(v, 'hectares');
  const withUnit = (area: string) => t('common.ha', { value: area });
  const pct = (v: number) => format.number(stats.total_area ? v / stats.total_area : 0, { style: 'percent', minimumFractionDigits: 1, maximumFractionDigits: 1 });
  const byStatus = Object.entries(stats.by_status)
    .sort((a, b) => b[1] - a[1])
    .map(([status, area]) => {
      const key = statusKey(status);
      return { label: key ? t(`fields.status_values.${key}`) : status || t('fields.no_status'), value: area, area: ha(area), color: status ? statusColor(status) : NO_VALUE_COLOR };
    });
  const byOwner = stats.by_owner.map((o) => ({ label: o.name ?? t('fields.no_owner'), value: o.area, area: ha(o.area), color: ownerColor(o.name) }));
  const cropName = (c: string | null) => (c === null ? t('stats.crop_unknown') : isNamedCrop(c) ? t(`drone.crops.${c}`) : c);
  const byCrop = stats.by_crop.map((row) => ({ label: cropName(row.crop), value: row.area, area: ha(row.area), color: cropColor(row.crop) }));

  const table = (rows: typeof byStatus, head: string) => (
    <Table
      head={
        <>
          <Th>{head}</Th>
          <Th figures>{t('fields.area_ha')}</Th>
          <Th figures>{t('stats.share')}</Th>
        </>
      }
      foot={
        <>
          <td className="px-2 py-1">{t('report.total')}</td>
          <td className="px-2 py-1 text-right tabular-nums">{ha(stats.total_area)}</td>
          <td className="px-2 py-1 text-right tabular-nums">{stats.total_area ? pct(stats.total_area) : '—'}</td>
        </>
      }
    >
      {rows.map((r) => (
        <tr key={r.label} className="border-t border-stone-200">
          <td className="px-2 py-1">{r.label}</td>
          <td className="px-2 py-1 text-right tabular-nums">{r.area}</td>
          <td className="px-2 py-1 text-right tabular-nums">{pct(r.value)}</td>
        </tr>
      ))}
    </Table>
  );

  return (
    <section className="space-y-4">
      <h1 className="text-2xl font-semibold">{t('nav.stats')}</h1>
      <p className="text-stone-700" data-testid="stats-summary">
        {t('stats.summary', { count: stats.total_fields, area: t('common.ha', { value: ha(stats.total_area) }) })}
      </p>
      {stats.total_fields === 0 ? (
        <p className="text-stone-600">{t('stats.empty')}</p>
      ) : (
        <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
          <Card title={t('stats.by_status')}>
            <Bars rows={byStatus} total={stats.total_area} label={t('stats.by_status')} withUnit={withUnit} />
            {table(byStatus, t('fields.status'))}
          </Card>
          <Card title={t('stats.by_owner')}>
            <Bars rows={byOwner} total={stats.total_area} label={t('stats.by_owner')} withUnit={withUnit} />
            {table(byOwner, t('fields.owner'))}
          </Card>
          <div className="lg:col-span-2">
            <Card title={t('stats.by_crop', { year: String(stats.crop_year) })}>
              <Form method="get" className="mb-3 flex flex-wrap items-end gap-2 text-sm">
                <div className="w-32">
                  <Select label={t('stats.crop_year')} name="year" defaultValue={String(stats.crop_year)}>
                    {yearChoices.map((y) => (
                      <option key={y} value={y}>
                        {years.includes(y) ? String(y) : t('stats.year_no_scans', { year: String(y) })}
                      </option>
                    ))}
                  </Select>
                </div>
                <button type="submit" className="rounded border border-stone-300 px-3 py-1.5 hover:bg-stone-100">
                  {t('common.apply')}
                </button>
                <p className="basis-full text-xs text-stone-600">{t('stats.crop_hint')}</p>
              </Form>
              <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
                <Bars rows={byCrop} total={stats.total_area} label={t('stats.by_crop', { year: String(stats.crop_year) })} withUnit={withUnit} />
                {table(byCrop, t('report.crop_type'))}
              </div>
            </Card>
          </div>
        </div>
      )}
    </section>
  );
}
