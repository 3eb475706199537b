'use client';
import Link from 'next/link';
import { useSearchParams } from 'next/navigation';
import { useFormatter, useLocale, useTranslations } from 'next-intl';
import { useEffect, useMemo, useRef, useState } from 'react';
import { PARCEL_NUMBER } from '@/lib/fields/parcel-number';
import type { LatestScan } from '@/lib/scans/scans';
import { api, download, saveBlob } from '@/lib/ui/api';
import { kmzExportPath } from '@/lib/ui/drone-choice';
import { toCsv } from '@/lib/ui/csv';
import { scanDay } from '@/lib/ui/scan-day';
import { KNOWN_STATUSES, statusKey } from '@/lib/fields/land-status';
import { type SortKey, parseTableOrder, withTableOrder } from '@/lib/ui/table-order';
import type { OwnerOption } from '@/lib/ui/types';
import { Button, ErrorMessage, LinkButton, SuccessMessage, inputClass } from '../ui/form';
import { BulkEdit } from './bulk-edit';
import { MergeFields } from './merge-fields';
import { StatusOptions } from './field-options';
import { OwnerChoiceOptions, useOwnerChoice } from './owner-choice';
import { useFocusAfterClose } from '@/lib/ui/focus-after-close';

export interface FieldRow {
  id: number;
  name: string;
  area: number;
  owner: string | null;
  owner_id: number | null;
  status: string | null;
  parcel_number: string | null;
  /** The field's latest scan, left out when it has none (10,000 rows of nulls weighed 700 kB). */
  scan?: LatestScan;
}


const sortValue = (r: FieldRow, key: SortKey): string | number | null =>
  key === 'last_scan' ? (r.scan?.date ?? null) : key === 'index_mean' ? (r.scan?.mean ?? null) : r[key];

/** Rows on one page of the table: a company of 10,000 fields made a 9 MB page when all were drawn. */
const PAGE_ROWS = 100;

interface UpdatedField {
  field: { id: number; name: string; area: number; owner: { id: number; name: string } | null; status: string | null; parcel_number: string | null };
}

/** Fields one merge may join (as POST /api/fields/merge takes). */
const MAX_MERGED = 100;

export function FieldsTable({
  rows: initialRows,
  owners,
  canEdit,
  canExport,
  canMerge,
  listQuery,
}: {
  rows: FieldRow[];
  owners: OwnerOption[];
  canEdit: boolean;
  canExport: boolean;
  canMerge: boolean;
  /** The page's filters as `GET /api/fields` takes them (`?q=…`), for the rows' boundaries as GeoJSON. */
  listQuery: string;
}) {
  const t = useTranslations();
  const format = useFormatter();
  const locale = useLocale();
  const [rows, setRows] = useState(initialRows);
  // Read on the client: Back restores the page as it was first rendered, and the address holds what
  // has been changed since.
  const searchParams = useSearchParams();
  const [order] = useState(() => parseTableOrder(Object.fromEntries(searchParams)));
  const [sort, setSort] = useState(order.sort);
  const [page, setPage] = useState(order.page);
  const [editing, setEditing] = useState<FieldRow | null>(null);
  // The edited row's owner (its owner_id aside), which may be a new one.
  const rowOwner = useOwnerChoice(owners, '');
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [selected, setSelected] = useState<ReadonlySet<number>>(new Set());
  const [merging, setMerging] = useState(false);
  // The flight plans being downloaded ('all' or a field's id): their buttons are busy, and a click
  // more does not build the plan again. The ref answers at once, before React renders the state.
  const exportsInFlight = useRef(new Set<string>());
  const [exporting, setExporting] = useState<ReadonlySet<string>>(new Set());
  // Keyboard users keep their place, as on a field's page (FieldEditPanel): the row's name takes the
  // focus when its edit opens, and its Edit button gets it back when the edit closes (Save and Cancel
  // are gone with the inputs, and the focus had fallen to the page's start).
  const tableRef = useRef<HTMLTableElement>(null);
  const returnFocusTo = useFocusAfterClose(editing !== null);
  function stopEditing() {
    if (editing) {
      const id = editing.id;
      returnFocusTo(() => tableRef.current?.querySelector<HTMLButtonElement>(`[data-edit-row="${id}"]`));
    }
    setEditing(null);
  }

  const ha = (v: number) => format.number(v, 'hectares');
  const scanDayOf = ({ scan }: FieldRow) =>
    scan ? scanDay(format, { captured: scan.dated ? scan.date : null, uploaded: scan.date }, (day) => t('field.uploaded_on', { date: day })) : '—';
  const indexMean = ({ scan }: FieldRow) => (scan?.mean == null ? '—' : `${(scan.index ?? '').toUpperCase()} ${format.number(scan.mean, { minimumFractionDigits: 3, maximumFractionDigits: 3 })}`);
  const statusLabel = (s: string | null) => {
    const key = statusKey(s);
    return key ? t(`fields.status_values.${key}`) : s || '—';
  };

  const sorted = useMemo(() => {
    const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });
    return [...rows].sort((a, b) => {
      const x = sortValue(a, sort.key);
      const y = sortValue(b, sort.key);
      if (x === y) return 0;
      if (x === null) return 1;
      if (y === null) return -1;
      return (typeof x === 'number' && typeof y === 'number' ? x - y : collator.compare(String(x), String(y))) * sort.dir;
    });
  }, [rows, sort]);
  const total = rows.reduce((s, r) => s + r.area, 0);
  const pages = Math.max(1, Math.ceil(sorted.length / PAGE_ROWS));
  const current = Math.min(page, pages - 1);
  const shown = sorted.slice(current * PAGE_ROWS, (current + 1) * PAGE_ROWS);
  // The order and page go into the address (replacing it: paging is not a visit), so that Back from
  // a field, a reload or a shared link shows the table as it was left.
  useEffect(() => {
    const query = withTableOrder(window.location.search, { sort, page: current });
    if (query !== window.location.search) window.history.replaceState(null, '', `${window.location.pathname}${query}`);
  }, [sort, current]);
  const pageSelected = shown.length > 0 && shown.every((r) => selected.has(r.id));
  const toggle = (ids: number[], on: boolean) =>
    setSelected((was) => {
      const next = new Set(was);
      for (const id of ids) if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  // The table's columns: the selection's, when rows can be edited, and seven more.
  const columns = canEdit ? 9 : 8;

  function header(key: SortKey, label: string, align = 'text-left') {
    const active = sort.key === key;
    return (
      <th scope="col" className={`px-2 py-2 ${align}`} aria-sort={active ? (sort.dir === 1 ? 'ascending' : 'descending') : 'none'}>
        <button
          type="button"
          className="font-semibold hover:underline"
          onClick={() => {
            setSort({ key, dir: active ? (-sort.dir as 1 | -1) : 1 });
            setPage(0);
          }}
        >
          {label}
          {active ? (sort.dir === 1 ? ' ▲' : ' ▼') : ''}
        </button>
      </th>
    );
  }

  async function save() {
    if (!editing) return;
    const parcel = (editing.parcel_number ?? '').trim();
    // Said here, beside the row, before a round trip; the server checks it again.
    if (parcel && !PARCEL_NUMBER.test(parcel)) {
      setError(`${t('fields.parcel_number')}: ${t('validation.parcel_number')}`);
      return;
    }
    setBusy(true);
    setError(null);
    const owner = await rowOwner.chosen(setError);
    if (owner === undefined) {
      setBusy(false);
      return;
    }
    const res = await api<UpdatedField>(`/api/fields/${editing.id}`, {
      method: 'PUT',
      body: { name: editing.name.trim(), owner_id: owner?.id ?? null, status: editing.status || null, parcel_number: (editing.parcel_number ?? '').trim() },
    });
    setBusy(false);
    if (!res.ok) {
      setError(res.error ?? t('common.network_error'));
      return;
    }
    const f = res.data.field;
    setRows((all) =>
      all.map((r) => (r.id === f.id ? { ...r, name: f.name, area: f.area, owner: f.owner?.name ?? null, owner_id: f.owner?.id ?? null, status: f.status, parcel_number: f.parcel_number } : r)),
    );
    stopEditing();
    setNotice(t('fields.saved', { name: f.name }));
  }

  /** A flight plan for the drone chosen on a field page (as its export panel remembers it). */
  async function exportKmz(target: number | 'all') {
    const key = String(target);
    if (exportsInFlight.current.has(key)) return;
    exportsInFlight.current.add(key);
    setExporting(new Set(exportsInFlight.current));
    setError(null);
    try {
      const res = await download(kmzExportPath(target));
      if (!res.ok) setError(res.error ?? t('common.network_error'));
    } finally {
      exportsInFlight.current.delete(key);
      setExporting(new Set(exportsInFlight.current));
    }
  }

  const statuses: string[] = [...KNOWN_STATUSES];
  if (editing?.status && !statuses.includes(editing.status)) statuses.push(editing.status);

  /** The rows the filters match, in the table's order, as a spreadsheet opens them. */
  function saveCsv() {
    const header = [t('fields.name'), t('fields.area_ha'), t('fields.owner'), t('fields.status'), t('fields.parcel_number'), t('fields.last_scan'), t('report.index'), t('fields.index_mean')];
    const body = sorted.map((r) => [r.name, r.area, r.owner, r.status ? statusLabel(r.status) : null, r.parcel_number, r.scan?.date.slice(0, 10) ?? null, r.scan?.index?.toUpperCase() ?? null, r.scan?.mean ?? null]);
    const csv = toCsv([header, ...body], locale, { 1: 4, 7: 3 });
    saveBlob(new Blob([csv], { type: 'text/csv;charset=utf-8' }), `${t('nav.fields')}.csv`);
  }

  return (
    <div className="space-y-3">
      <ErrorMessage>{error}</ErrorMessage>
      <SuccessMessage>{notice}</SuccessMessage>
      {canEdit && selected.size > 0 && (
        <BulkEdit
          ids={[...selected]}
          matching={sorted.length}
          owners={owners}
          onSelectAll={() => setSelected(new Set(sorted.map((r) => r.id)))}
          onClear={() => {
            setSelected(new Set());
            setMerging(false);
          }}
          onMerge={canMerge && selected.size >= 2 && selected.size <= MAX_MERGED ? () => setMerging(true) : undefined}
          onSaved={(change, count) => {
            setRows((all) =>
              all.map((r) =>
                selected.has(r.id)
                  ? { ...r, ...(change.owner !== undefined ? { owner_id: change.owner?.id ?? null, owner: change.owner?.name ?? null } : {}), ...(change.status !== undefined ? { status: change.status } : {}) }
                  : r,
              ),
            );
            setSelected(new Set());
            setError(null);
            setNotice(t('fields.bulk_saved', { count }));
          }}
        />
      )}
      {merging && selected.size >= 2 && selected.size <= MAX_MERGED && (
        <MergeFields
          key={[...selected].join()}
          rows={rows.filter((r) => selected.has(r.id)).map((r) => ({ id: r.id, name: r.name, area: r.area, parcel_number: r.parcel_number, scanned: r.scan !== undefined }))}
          onCancel={() => setMerging(false)}
          onMerged={(field, taken) => {
            const gone = new Set(taken);
            setRows((all) => all.filter((r) => !gone.has(r.id)).map((r) => (r.id === field.id ? { ...r, name: field.name, area: field.area } : r)));
            setSelected(new Set());
            setMerging(false);
            setError(null);
            setNotice(t('fields.merged', { count: taken.length + 1, name: field.name }));
          }}
        />
      )}
      {rows.length > 0 && (
        <div className="flex flex-wrap gap-2">
          <Button variant="secondary" onClick={saveCsv}>
            {t('fields.export_csv')}
          </Button>
          <LinkButton href={`/api/fields${listQuery}`} download={`${t('nav.fields')}.geojson`}>
            {t('fields.export_geojson')}
          </LinkButton>
          {canExport && (
            <Button variant="secondary" onClick={() => void exportKmz('all')} busy={exporting.has('all')}>
              {t('fields.export_all_kmz')}
            </Button>
          )}
        </div>
      )}
      <div className="overflow-x-auto rounded-lg border border-stone-200 bg-white">
        <table ref={tableRef} className="min-w-full text-sm" data-testid="fields-table">
          <thead className="bg-stone-100 text-stone-700">
            <tr>
              {canEdit && (
                <th scope="col" className="w-8 px-2 py-2">
                  <input type="checkbox" aria-label={t('fields.select_page')} checked={pageSelected} disabled={shown.length === 0} onChange={(e) => toggle(shown.map((r) => r.id), e.target.checked)} />
                </th>
              )}
              {header('name', t('fields.name'))}
              {header('area', t('fields.area_ha'), 'text-right')}
              {header('owner', t('fields.owner'))}
              {header('status', t('fields.status'))}
              {header('parcel_number', t('fields.parcel_number'))}
              {header('last_scan', t('fields.last_scan'))}
              {header('index_mean', t('fields.index_mean'), 'text-right')}
              <th scope="col" className="px-2 py-2 text-left">
                {t('common.actions')}
              </th>
            </tr>
          </thead>
          <tbody>
            {sorted.length === 0 && (
              <tr>
                <td colSpan={columns} className="px-2 py-6 text-center text-stone-600">
                  {t('fields.none_found')}
                </td>
              </tr>
            )}
            {shown.map((r) =>
              editing?.id === r.id ? (
                <tr key={r.id} className="border-t border-stone-200 bg-amber-50" data-testid={`field-row-${r.id}`}>
                  <td className="px-2 py-1" />
                  <td className="px-2 py-1">
                    <input aria-label={t('fields.name')} className={`${inputClass} min-w-[10rem]`} value={editing.name} onChange={(e) => setEditing({ ...editing, name: e.target.value })} required autoFocus />
                  </td>
                  <td className="px-2 py-1 text-right tabular-nums">{ha(r.area)}</td>
                  <td className="px-2 py-1">
                    <select aria-label={t('fields.owner')} className={`${inputClass} min-w-[8rem]`} {...rowOwner.select}>
                      <OwnerChoiceOptions choice={rowOwner} />
                    </select>
                    {rowOwner.newOwner && <input aria-label={t('fields.new_owner_name')} className={`${inputClass} mt-1 min-w-[8rem]`} {...rowOwner.newOwner} />}
                  </td>
                  <td className="px-2 py-1">
                    <select aria-label={t('fields.status')} className={`${inputClass} min-w-[8rem]`} value={editing.status ?? ''} onChange={(e) => setEditing({ ...editing, status: e.target.value || null })}>
                      <StatusOptions statuses={statuses} none={t('common.none')} />
                    </select>
                  </td>
                  <td className="px-2 py-1">
                    <input
                      aria-label={t('fields.parcel_number')}
                      className={`${inputClass} min-w-[11rem] font-mono text-xs`}
                      value={editing.parcel_number ?? ''}
                      onChange={(e) => setEditing({ ...editing, parcel_number: e.target.value })}
                      placeholder="61:02:0600010:123"
                    />
                  </td>
                  <td className="px-2 py-1 whitespace-nowrap">{scanDayOf(r)}</td>
                  <td className="px-2 py-1 text-right whitespace-nowrap tabular-nums">{indexMean(r)}</td>
                  <td className="px-2 py-1 whitespace-nowrap">
                    <span className="flex gap-1">
                      <Button onClick={() => void save()} busy={busy}>
                        {t('common.save')}
                      </Button>
                      <Button variant="secondary" onClick={stopEditing} busy={busy}>
                        {t('common.cancel')}
                      </Button>
                    </span>
                  </td>
                </tr>
              ) : (
                <tr key={r.id} className={`border-t border-stone-200 hover:bg-stone-50 ${selected.has(r.id) ? 'bg-emerald-50' : ''}`} data-testid={`field-row-${r.id}`}>
                  {canEdit && (
                    <td className="px-2 py-1.5">
                      <input type="checkbox" aria-label={t('fields.select_row', { name: r.name })} checked={selected.has(r.id)} onChange={(e) => toggle([r.id], e.target.checked)} />
                    </td>
                  )}
                  <td className="px-2 py-1.5">
                    {/* Not prefetched: each page or sort of 100 rows fetched 40-75 field pages in advance. */}
                    <Link href={`/fields/${r.id}`} prefetch={false} className="text-emerald-800 underline-offset-2 hover:underline">
                      {r.name}
                    </Link>
                  </td>
                  <td className="px-2 py-1.5 text-right tabular-nums">{ha(r.area)}</td>
                  <td className="px-2 py-1.5">{r.owner ?? '—'}</td>
                  <td className="px-2 py-1.5">{statusLabel(r.status)}</td>
                  <td className="px-2 py-1.5 font-mono text-xs">{r.parcel_number ?? '—'}</td>
                  <td className="px-2 py-1.5 whitespace-nowrap">{scanDayOf(r)}</td>
                  <td className="px-2 py-1.5 text-right whitespace-nowrap tabular-nums">{indexMean(r)}</td>
                  <td className="px-2 py-1.5 whitespace-nowrap">
                    <span className="flex gap-2">
                      {/* Each row's controls say whose they are: a list of "Edit", "Edit", … tells a screen reader nothing. */}
                      <Link href={`/map?field=${r.id}`} prefetch={false} className="text-emerald-800 hover:underline" aria-label={t('fields.show_on_map_of', { name: r.name })}>
                        {t('fields.show_on_map')}
                      </Link>
                      {canEdit && (
                        <button
                          type="button"
                          className="text-emerald-800 hover:underline"
                          aria-label={t('fields.edit_of', { name: r.name })}
                          data-edit-row={r.id}
                          onClick={() => { setNotice(null); setEditing(r); rowOwner.start(r.owner_id ? String(r.owner_id) : ''); }}
                        >
                          {t('common.edit')}
                        </button>
                      )}
                      {canExport && (
                        <button
                          type="button"
                          className={`text-emerald-800 hover:underline ${exporting.has(String(r.id)) ? 'cursor-wait' : ''}`}
                          aria-label={t('fields.kmz_of', { name: r.name })}
                          aria-disabled={exporting.has(String(r.id)) || undefined}
                          aria-busy={exporting.has(String(r.id)) || undefined}
                          onClick={() => void exportKmz(r.id)}
                        >
                          KMZ
                        </button>
                      )}
                    </span>
                  </td>
                </tr>
              ),
            )}
          </tbody>
          <tfoot className="border-t-2 border-stone-300 bg-stone-50 font-semibold">
            <tr>
              {canEdit && <td />}
              <td className="px-2 py-2" data-testid="fields-total-count">
                {t('fields.total', { count: rows.length })}
              </td>
              <td className="px-2 py-2 text-right tabular-nums" data-testid="fields-total-area">
                {ha(total)}
              </td>
              <td colSpan={6} />
            </tr>
          </tfoot>
        </table>
      </div>
      {pages > 1 && (
        <nav aria-label={t('fields.table_pages')} className="flex flex-wrap items-center justify-end gap-2 text-sm" data-testid="fields-pager">
          <span data-testid="fields-range">{t('fields.rows_range', { from: current * PAGE_ROWS + 1, to: current * PAGE_ROWS + shown.length, count: sorted.length })}</span>
          <Button variant="secondary" onClick={() => setPage(current - 1)} disabled={current === 0}>
            {t('common.previous')}
          </Button>
          <Button variant="secondary" onClick={() => setPage(current + 1)} disabled={current === pages - 1}>
            {t('common.next')}
          </Button>
        </nav>
      )}
    </div>
  );
}
