import Link from 'next/link';
import { notFound } from 'next/navigation';
import { getFormatter, getLocale, getTranslations } from 'next-intl/server';
import { currentUser } from '@/lib/auth/current-user';
import { db } from '@/lib/db/client';
import { tenantDb } from '@/lib/db/tenant';
import { CaptureDateForm } from '@/components/fields/capture-date-form';
import { CropChoice } from '@/components/fields/crop-choice';
import { ExportPanel } from '@/components/fields/export-panel';
import { FieldDetailMapLoader } from '@/components/fields/field-detail-map-loader';
import type { ZoneFeatureCollection } from '@/components/fields/field-detail-map';
import { FieldEditPanel } from '@/components/fields/field-edit-panel';
import { RezoneForm } from '@/components/fields/rezone-form';
import { ScanDeleteButton } from '@/components/fields/scan-delete-button';
import { ScanProgress } from '@/components/fields/scan-progress';
import { ScanCoverage } from '@/components/fields/scan-coverage';
import { Histogram } from '@/components/fields/histogram';
import { MergedFromTable } from '@/components/fields/merged-from-table';
import { IndexTrend } from '@/components/fields/index-trend';
import { Card, SuccessMessage } from '@/components/ui/form';
import { Table, Th } from '@/components/ui/table';
import { isCrop } from '@/lib/drone/crops';
import { fieldDetail, getField } from '@/lib/fields/fields';
import type { MergedFrom } from '@/lib/fields/merge';
import { getScan, listScans, scanDetail } from '@/lib/fields/scans';
import { scanCoverage, zonedGround } from '@/lib/fields/coverage';
import { scanZonesWithin } from '@/lib/fields/zones-within';
import type { FieldGeometry } from '@/lib/geo/geometry';
import type { SplitFrom } from '@/lib/fields/split';
import { AppError } from '@/lib/http/errors';
import { localizeZoneName } from '@/lib/i18n/formats';
import type { ZoningRecord } from '@/lib/raster/zones';
import { listOwners } from '@/lib/owners/owners';
import { listTasks } from '@/lib/tasks/list';
import { isUncertain } from '@/lib/drone/classify';
import { can } from '@/lib/ui/roles';
import { scanDay } from '@/lib/ui/scan-day';
import { requireUser, tileSource } from '@/lib/ui/server';
import { statusKey } from '@/lib/ui/status';


type Bounds = [[number, number], [number, number]];
/**
 * The scan's picture for the map: a drone scan's preview is its orthomosaic, an uploaded raster's its
 * index in colour. scanDetail types its parsed bounds loosely; it is shown only when they are a box.
 */
const previewOf = (scan: { source: string; preview?: { url: string; bounds: unknown } | null } | null) => {
  const p = scan?.preview;
  return p && Array.isArray(p.bounds) && p.bounds.length === 2 ? { url: p.url, bounds: p.bounds as Bounds, shows: scan.source === 'drone' ? ('orthomosaic' as const) : ('index' as const) } : null;
};

/**
 * A scan's zones as its exports take them once the field was redrawn or split since it was made:
 * within the present boundary, measured again, so that the page shows no zone lying in another field.
 */
async function zonesWithinPresentBoundary(scanId: number, boundary: FieldGeometry, zones: ZoneFeatureCollection): Promise<ZoneFeatureCollection> {
  const within = await scanZonesWithin(scanId, boundary, zones.features.map((z) => ({ ...z, geometry: z.geometry as FieldGeometry, areaHa: z.properties.area_ha })));
  return { ...zones, features: within.map(({ areaHa, ...z }) => ({ ...z, properties: { ...z.properties, area_ha: areaHa } })) };
}

async function orNotFound<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof AppError && err.kind === 'not_found') notFound();
    throw err;
  }
}

/** The field's name in the tab's title, so that several open fields can be told apart. */
export async function generateMetadata({ params }: { params: Promise<{ id: string }> }) {
  const t = await getTranslations('app');
  const user = await currentUser();
  const id = Number((await params).id);
  const field = user && Number.isInteger(id) && id > 0 ? await tenantDb(db(), user.companyId).field.findUnique({ where: { id }, select: { name: true } }) : null;
  return { title: field?.name ? `${field.name} – ${t('name')}` : t('name') };
}

export default async function FieldPage({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<{ scan?: string; restored?: string }> }) {
  const { user, db } = await requireUser();
  const { id: rawId } = await params;
  const id = Number(rawId);
  if (!Number.isInteger(id) || id <= 0) notFound();
  const locale = await getLocale();
  const [field, scans, zoning, rezoning, owners, company, t, format, query] = await Promise.all([
    orNotFound(getField(db, id)).then(fieldDetail),
    orNotFound(listScans(db, id, locale)),
    // Zoning under way: its scan is made only at the end.
    listTasks(db, { field_id: id, kind: 'raster_zones', status: ['pending', 'running'], limit: 100 }, locale),
    // A scan's zones being made again: followed by the zones' form.
    listTasks(db, { field_id: id, kind: 'rezone', status: ['pending', 'running'], limit: 100 }, locale),
    listOwners(db),
    db.company.findUniqueOrThrow({ where: { id: user.companyId }, select: { settingsJson: true } }),
    getTranslations(),
    getFormatter(),
    searchParams,
  ]);
  // A parcel just taken back out of this field (MergedFromTable), named with a link to it.
  const restoredId = Number(query.restored);
  const restored = Number.isSafeInteger(restoredId) && restoredId > 0 ? await db.field.findUnique({ where: { id: restoredId }, select: { id: true, name: true } }) : null;
  const completed = scans.filter((s) => s.status === 'completed');
  const chosen = completed.find((s) => String(s.id) === query.scan) ?? completed[0];
  const scan = chosen ? scanDetail(await getScan(db, chosen.id)) : null;
  const madeForEarlierBoundary = scan?.made_for_earlier_boundary ?? false;
  const classification = scan?.classification ?? null;
  // How the scan's zones were made (recorded since zonings recorded it), for the form that makes them again.
  const zoningOf = (scan?.details as { zoning?: ZoningRecord } | undefined)?.zoning;
  const zones = scan && madeForEarlierBoundary ? await zonesWithinPresentBoundary(scan.id, field.geometry, scan.zones as ZoneFeatureCollection) : (scan?.zones as ZoneFeatureCollection | undefined);
  // Shares are of the field; ground no zone covers (no index data: water, clouds, outside the image)
  // is a row of its own, as in the PDF report.
  const { zonedHa, unzonedHa, shareBasis } = zonedGround(field.area, zones?.features.map((z) => z.properties.area_ha) ?? []);
  const coverage = scan ? scanCoverage({ source: scan.source, details: scan.details, madeForEarlierBoundary }, zonedHa, field.area) : null;
  const percent = (share: number) => format.number(share, { style: 'percent', maximumFractionDigits: share < 0.1 ? 1 : 0 });
  const settings = JSON.parse(company.settingsJson || '{}') as { zone_rates?: Record<string, number> };
  const defaultRates = Object.entries(settings.zone_rates ?? {})
    .map(([k, v]) => `${k}:${v}`)
    .join(',');
  const ha = (v: number) => t('common.ha', { value: format.number(v, 'hectares') });
  // Index values to three decimals, always, so that a column's figures line up.
  const num = (v: number | undefined | null) => (v == null ? '—' : format.number(v, { minimumFractionDigits: 3, maximumFractionDigits: 3 }));
  const twoDecimals = (v: number) => format.number(v, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const dayOf = (s: { captured_at: string | null; created_at: string }) => scanDay(format, { captured: s.captured_at, uploaded: s.created_at }, (day) => t('field.uploaded_on', { date: day }));
  // The chosen scan's index over the field's scans of that index whose dates are known (an upload's
  // date says nothing of the season), when there are two or more.
  const trend = completed.flatMap((s) => (s.index === scan?.index && s.stats && s.captured_at ? [{ scanId: s.id, time: Date.parse(s.captured_at), date: dayOf(s), mean: s.stats.mean }] : []));
  // The scan of the same index taken before the chosen one, for how its mean has changed since.
  const previous = scan ? completed.slice(completed.findIndex((s) => s.id === scan.id) + 1).find((s) => s.index === scan.index && s.stats) : undefined;
  const crop = (c: string | null | undefined) => (isCrop(c) ? t(`drone.crops.${c}`) : c || '—');
  const key = statusKey(field.status);
  // The fields merged into this one, and the one it was cut from, are shown apart from the attributes
  // its import carried.
  const { merged_from: mergedFrom, split_from: splitFrom, ...imported } = field.attributes as { merged_from?: MergedFrom[]; split_from?: SplitFrom };
  const attributes = Object.entries(imported);

  return (
    <section className="space-y-4">
      <nav className="text-sm text-stone-600">
        <Link href="/fields" className="hover:underline">
          {t('nav.fields')}
        </Link>{' '}
        / <span>{field.name}</span>
      </nav>
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h1 className="text-2xl font-semibold break-words">{field.name}</h1>
        <Link href={`/map?field=${field.id}`} className="text-sm text-emerald-800 hover:underline">
          {t('fields.show_on_map')}
        </Link>
      </div>

      <div className="grid gap-4 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
        <FieldDetailMapLoader geometry={field.geometry} tiles={tileSource()} preview={previewOf(scan)} zones={zones ?? null} />
        <div className="space-y-4">
          <Card title={t('field.properties')}>
            <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm" data-testid="field-properties">
              <dt className="text-stone-600">{t('fields.area')}</dt>
              <dd>{ha(field.area)}</dd>
              <dt className="text-stone-600">{t('fields.owner')}</dt>
              <dd>{field.owner?.name ?? t('fields.no_owner')}</dd>
              <dt className="text-stone-600">{t('fields.status')}</dt>
              <dd>{key ? t(`fields.status_values.${key}`) : field.status || t('fields.no_status')}</dd>
              <dt className="text-stone-600">{t('fields.parcel_number')}</dt>
              <dd className="font-mono text-xs">{field.parcel_number || '—'}</dd>
              {splitFrom && (
                <>
                  <dt className="text-stone-600">{t('field.split_from')}</dt>
                  <dd>
                    <Link href={`/fields/${splitFrom.id}`} className="text-emerald-800 hover:underline">
                      {splitFrom.name}
                    </Link>
                  </dd>
                </>
              )}
              <dt className="text-stone-600">{t('field.updated')}</dt>
              <dd>{format.dateTime(new Date(field.updated_at), { dateStyle: 'medium', timeStyle: 'short' })}</dd>
            </dl>
            <FieldEditPanel
              id={field.id}
              name={field.name}
              initial={{ name: field.name, owner_id: field.owner?.id ?? null, status: field.status, parcel_number: field.parcel_number ?? '' }}
              owners={owners.map((o) => ({ id: o.id, name: o.name }))}
              canEdit={can(user.role, 'edit')}
              canDelete={can(user.role, 'deleteFields')}
            />
          </Card>
          {can(user.role, 'exportMaps') && (
            <Card title={t('exports.title')}>
              <ExportPanel fieldId={field.id} scanId={scan?.id ?? null} droneIndex={scan?.source === 'drone' ? (scan.index ?? 'index').toUpperCase() : null} defaultRates={defaultRates} zoneClasses={zones?.features.map((z) => z.properties.class) ?? []} />
            </Card>
          )}
        </div>
      </div>

      <Card title={t('field.scans')}>
        {zoning.length > 0 && (
          <ul className="grid grid-cols-1 gap-3 sm:grid-cols-2" data-testid="zoning-tasks">
            {zoning.map((task) => (
              <li key={task.task_id} className="space-y-2 rounded border border-stone-200 p-2 text-sm">
                <span className="block font-medium">{t('field.zoning_under_way')}</span>
                {task.file_name && (
                  <span className="block truncate text-xs text-stone-600" title={task.file_name}>
                    {task.file_name}
                  </span>
                )}
                <ScanProgress taskId={task.task_id} scanless />
              </li>
            ))}
          </ul>
        )}
        {scans.length === 0 && zoning.length === 0 && (
          <p className="text-sm text-stone-600">
            {t('field.no_scans')}{' '}
            {can(user.role, 'uploadScans') && (
              <Link href={`/uploads?field=${field.id}`} className="text-emerald-800 underline">
                {t('field.upload_scan')}
              </Link>
            )}
          </p>
        )}
        {scans.length > 0 && (
          <ul className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-4" data-testid="scan-list">
            {scans.map((s) => (
              <li key={s.id}>
                <Link
                  href={`/fields/${field.id}?scan=${s.id}`}
                  aria-current={s.id === scan?.id ? 'true' : undefined}
                  className={`block space-y-1 rounded border p-2 text-sm hover:bg-stone-50 ${s.id === scan?.id ? 'border-emerald-600 ring-1 ring-emerald-600' : 'border-stone-200'}`}
                >
                  {s.status === 'completed' ? (
                    // eslint-disable-next-line @next/next/no-img-element -- a per-user API image, not a static asset
                    <img src={`/api/scans/${s.id}/preview.png`} alt={t('field.preview_alt', { index: s.index ?? '' })} className="h-24 w-full rounded bg-stone-100 object-contain" loading="lazy" />
                  ) : (
                    <span className="flex h-24 items-center justify-center rounded bg-stone-100 text-stone-600">{t(`field.scan_status.${s.status === 'error' ? 'error' : 'processing'}`)}</span>
                  )}
                  <span className="block font-medium">{dayOf(s)}</span>
                  <span className="block text-xs text-stone-600">
                    {[t(`field.source.${s.source === 'drone' ? 'drone' : 'raster'}`), s.index?.toUpperCase(), s.crop_type && crop(s.crop_type)].filter(Boolean).join(' · ')}
                  </span>
                  {s.file_name && (
                    <span className="block truncate text-xs text-stone-600" title={s.file_name}>
                      {s.file_name}
                    </span>
                  )}
                </Link>
                {s.status === 'processing' && s.task_id && (
                  <div className="mt-2">
                    <ScanProgress taskId={s.task_id} />
                  </div>
                )}
                {s.status === 'error' && s.error && (
                  <p className="mt-2 text-sm text-red-800" data-testid="scan-failure">
                    {s.error}
                  </p>
                )}
                {/* A scan still being processed is its task's until the task ends. */}
                {can(user.role, 'deleteFields') && s.status !== 'processing' && (
                  <div className="mt-2">
                    <ScanDeleteButton scanId={s.id} fieldId={field.id} date={dayOf(s)} />
                  </div>
                )}
              </li>
            ))}
          </ul>
        )}
        {scan && trend.length > 1 && (
          <div className="mt-4">
            <IndexTrend
              points={trend}
              chosen={scan.id}
              href={(scanId) => `/fields/${field.id}?scan=${scanId}`}
              label={t('field.index_trend', { index: (scan.index ?? '').toUpperCase() })}
              formatValue={twoDecimals}
            />
          </div>
        )}
        {scan && (
          <div className="mt-4 flex flex-wrap items-end justify-between gap-x-8 gap-y-3 border-t border-stone-100 pt-3 text-sm">
            <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1" data-testid="scan-facts">
              <dt className="text-stone-600">{t('field.captured')}</dt>
              <dd>{scan.captured_at ? dayOf(scan) : t('field.capture_unknown')}</dd>
              <dt className="text-stone-600">{t('field.uploaded')}</dt>
              <dd>{format.dateTime(new Date(scan.created_at), { dateStyle: 'medium', timeStyle: 'short' })}</dd>
              {coverage && (
                <>
                  <dt className="text-stone-600">{t('report.coverage')}</dt>
                  <dd>
                    <ScanCoverage
                      coverage={coverage}
                      text={
                        coverage.kind === 'photos'
                          ? t('report.coverage_photos', { share: percent(coverage.share) })
                          : t('report.coverage_zoned', { zoned: format.number(coverage.zonedHa, 'hectares'), field: format.number(coverage.fieldHa, 'hectares'), share: percent(coverage.share) })
                      }
                      partialNote={t('field.coverage_partial')}
                    />
                  </dd>
                </>
              )}
              {scan.file_name && (
                <>
                  <dt className="text-stone-600">{t('field.file')}</dt>
                  <dd className="break-all">{scan.file_name}</dd>
                </>
              )}
            </dl>
            {can(user.role, 'edit') && <CaptureDateForm key={scan.id} scanId={scan.id} capturedAt={scan.captured_at} />}
            {madeForEarlierBoundary && (
              <p role="note" className="basis-full rounded bg-amber-50 px-3 py-2 text-amber-900" data-testid="scan-earlier-boundary">
                {t('field.earlier_boundary')}
                {can(user.role, 'uploadScans') && ` ${t('field.earlier_boundary_rezone')}`}
              </p>
            )}
          </div>
        )}
      </Card>

      {scan && (
        <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
          <Card title={t('field.index_stats', { index: (scan.index ?? '').toUpperCase() })}>
            <dl className="grid grid-cols-3 gap-2 text-sm sm:grid-cols-5">
              {(['mean', 'median', 'std', 'min', 'max'] as const).map((k) => (
                <div key={k}>
                  <dt className="text-stone-600">{t(`report.${k}`)}</dt>
                  <dd className="tabular-nums">{num(scan.stats?.[k])}</dd>
                </div>
              ))}
            </dl>
            {previous && scan.stats && (
              <p className="mt-2 text-sm text-stone-600" data-testid="index-change">
                {t('field.mean_change', { date: dayOf(previous) })}{' '}
                <strong className={scan.stats.mean >= previous.stats!.mean ? 'text-emerald-700' : 'text-red-700'}>
                  {format.number(scan.stats.mean - previous.stats!.mean, { minimumFractionDigits: 3, maximumFractionDigits: 3, signDisplay: 'exceptZero' })}
                </strong>
              </p>
            )}
            {scan.histogram && <Histogram histogram={scan.histogram as { min: number; max: number; counts: number[] }} label={t('report.histogram')} formatValue={twoDecimals} />}
          </Card>
          <Card title={t('report.crop')}>
            {classification?.crop_type ? (
              <div className="space-y-2 text-sm" data-testid="crop-classification">
                {classification.details.user_value ? (
                  <>
                    <p>
                      <strong className="text-lg">{crop(classification.details.user_value)}</strong>
                      <span className="text-stone-600"> · {t('field.crop_named')}</span>
                    </p>
                    {classification.details.automatic && (
                      <p className="text-stone-600">
                        {t('field.crop_automatic', { crop: crop(classification.details.automatic), value: format.number(classification.details.top_candidates[0]?.score ?? 0, { style: 'percent' }) })}
                      </p>
                    )}
                  </>
                ) : (
                  <>
                    <p>
                      <strong className="text-lg">{crop(classification.crop_type)}</strong>
                      {classification.confidence != null && <span className="text-stone-600"> · {t('field.confidence', { value: format.number(classification.confidence, { style: 'percent' }) })}</span>}
                    </p>
                    {isUncertain(classification.details) && (
                      <p className="rounded border border-amber-300 bg-amber-50 px-3 py-2 text-amber-900" data-testid="crop-uncertain">
                        {t('field.crop_uncertain')}
                      </p>
                    )}
                  </>
                )}
                {classification.details.top_candidates.length > 0 && (
                  <ol className="space-y-1">
                    {classification.details.top_candidates.map((c) => (
                      <li key={c.crop} className="flex items-center gap-2">
                        <span className="w-28 shrink-0">{crop(c.crop)}</span>
                        <span className="h-2 flex-1 rounded bg-stone-100">
                          <span className="block h-2 rounded bg-emerald-600" style={{ width: `${Math.round(c.score * 100)}%` }} />
                        </span>
                        <span className="w-12 text-right tabular-nums">{format.number(c.score, { style: 'percent' })}</span>
                      </li>
                    ))}
                  </ol>
                )}
              </div>
            ) : (
              <p className="text-sm text-stone-600">{t('report.no_crop')}</p>
            )}
            {can(user.role, 'edit') && scan && <CropChoice key={scan.id} scanId={scan.id} userCrop={classification?.details.user_value ?? null} />}
          </Card>
          <div className="lg:col-span-2">
            <Card title={t('report.zones')}>
              {zones && zones.features.length > 0 ? (
                <Table
                  testId="zones-table"
                  foot={
                    unzonedHa > 0 ? (
                      // The ground no zone covers, set apart below the zones: it is no zone, though an ISOXML prescription spreads on it.
                      <>
                        <td className="px-2 py-1 text-amber-900">
                          <span className="mr-1 inline-block h-3 w-3 rounded-sm border border-stone-400 align-middle" />—
                        </td>
                        <td className="px-2 py-1 text-amber-900" data-testid="zones-unzoned">
                          {t('report.zone_unzoned')}
                        </td>
                        <td className="px-2 py-1 text-right tabular-nums text-amber-900">{format.number(unzonedHa, 'hectares')}</td>
                        <td className="px-2 py-1 text-right tabular-nums text-amber-900">{format.number(unzonedHa / (shareBasis || 1), { style: 'percent', minimumFractionDigits: 1, maximumFractionDigits: 1 })}</td>
                        <td className="px-2 py-1 text-right tabular-nums text-amber-900">—</td>
                      </>
                    ) : undefined
                  }
                  head={
                    <>
                      <Th>{t('report.zone_class')}</Th>
                      <Th>{t('report.zone_name')}</Th>
                      <Th figures>{t('report.zone_area')}</Th>
                      <Th figures>{t('report.zone_share_field')}</Th>
                      <Th figures>{t('report.zone_mean')}</Th>
                    </>
                  }
                >
                  {zones.features.map((z) => (
                    <tr key={z.id} className="border-t border-stone-200">
                      <td className="px-2 py-1">
                        <span className="mr-1 inline-block h-3 w-3 rounded-sm align-middle" style={{ background: z.properties.color }} />
                        {z.properties.class}
                      </td>
                      <td className="px-2 py-1">{localizeZoneName(z.properties.name, locale)}</td>
                      <td className="px-2 py-1 text-right tabular-nums">{format.number(z.properties.area_ha, 'hectares')}</td>
                      <td className="px-2 py-1 text-right tabular-nums">{format.number(z.properties.area_ha / (shareBasis || 1), { style: 'percent', minimumFractionDigits: 1, maximumFractionDigits: 1 })}</td>
                      <td className="px-2 py-1 text-right tabular-nums">{num(z.properties.mean)}</td>
                    </tr>
                  ))}
                </Table>
              ) : (
                <p className="text-sm text-stone-600">{t('report.no_zones')}</p>
              )}
              {can(user.role, 'uploadScans') && (
                <RezoneForm
                  key={scan.id}
                  scanId={scan.id}
                  zones={zoningOf?.zones ?? (zones?.features.length || 5)}
                  method={zoningOf?.method ?? 'jenks'}
                  underWay={rezoning.find((task) => task.scan_id === scan.id)?.task_id ?? null}
                />
              )}
            </Card>
          </div>
        </div>
      )}

      {restored && (
        <SuccessMessage>
          {t('field.taken_out', { name: restored.name })}{' '}
          <Link href={`/fields/${restored.id}`} className="underline">
            {t('map.open_field')}
          </Link>
        </SuccessMessage>
      )}
      {Array.isArray(mergedFrom) && mergedFrom.length > 0 && (
        <Card title={t('field.merged_from')}>
          <MergedFromTable fieldId={field.id} parcels={mergedFrom.map(({ id, name, parcel_number, area }) => ({ id, name, parcel_number, area }))} canTakeOut={can(user.role, 'edit')} />
        </Card>
      )}

      {attributes.length > 0 && (
        <Card title={t('field.attributes')}>
          <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
            {attributes.map(([k, v]) => (
              <div key={k} className="contents">
                <dt className="font-mono text-xs text-stone-600">{k}</dt>
                <dd className="break-words">{v == null ? '—' : String(v)}</dd>
              </div>
            ))}
          </dl>
        </Card>
      )}
    </section>
  );
}
