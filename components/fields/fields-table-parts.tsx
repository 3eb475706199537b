'use client';
import { useLocale, useTranslations } from 'next-intl';
import { saveBlob } from '@/lib/ui/api';
import { toCsv } from '@/lib/ui/csv';
import type { SortKey } from '@/lib/ui/table-order';
import { Button, LinkButton } from '../ui/form';
import type { FieldRow } from './field-row';
import type { KmzExports } from './use-kmz-exports';
import type { RowSelection } from './use-row-selection';
import { PAGE_ROWS, type TableOrderState } from './use-table-order';
import { useFieldRowText } from './use-field-row-text';

/** The table's column headers: each sorts by its column; the first box selects the page's rows. */
export function FieldsTableHead({ canEdit, order, selection }: { canEdit: boolean; order: TableOrderState; selection: RowSelection }) {
  const t = useTranslations();
  const { shown } = order;
  const pageSelected = shown.length > 0 && shown.every((r) => selection.selected.has(r.id));
  const header = (key: SortKey, label: string, align?: string) => <SortHeader column={key} label={label} align={align} order={order} />;
  return (
    <thead className="bg-stone-100 text-stone-700">
      <tr>
        {canEdit && (
          <th scope="col" className="w-8 px-2 py-2">
            <input type="checkbox" aria-label={t('fields.select_page')} checked={pageSelected} disabled={shown.length === 0} onChange={(e) => selection.toggle(shown.map((r) => r.id), e.target.checked)} />
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
  );
}

function SortHeader({ column, label, align = 'text-left', order }: { column: SortKey; label: string; align?: string; order: TableOrderState }) {
  const { sort } = order;
  const active = sort.key === column;
  return (
    <th scope="col" className={`px-2 py-2 ${align}`} aria-sort={active ? (sort.dir === 1 ? 'ascending' : 'descending') : 'none'}>
      <button type="button" className="font-semibold hover:underline" onClick={() => order.sortBy(column)}>
        {label}
        {active ? (sort.dir === 1 ? ' ▲' : ' ▼') : ''}
      </button>
    </th>
  );
}

/** The count and area of all the rows the filters match. */
export function FieldsTableFoot({ canEdit, rows }: { canEdit: boolean; rows: FieldRow[] }) {
  const t = useTranslations();
  const { ha } = useFieldRowText();
  const total = rows.reduce((s, r) => s + r.area, 0);
  return (
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
  );
}

export function FieldsPager({ order }: { order: TableOrderState }) {
  const t = useTranslations();
  const { current, pages, setPage } = order;
  return (
    <nav aria-label={t('fields.table_pages')} className="flex flex-wrap items-center justify-end gap-2 text-sm" data-testid="fields-pager">
      <span data-testid="fields-range">{t('fields.rows_range', { from: current * PAGE_ROWS + 1, to: current * PAGE_ROWS + order.shown.length, count: order.sorted.length })}</span>
      <Button variant="secondary" onClick={() => setPage(current - 1)} disabled={current === 0}>
        {t('common.previous')}
      </Button>
      <Button variant="secondary" onClick={() => setPage(current + 1)} disabled={current === pages - 1}>
        {t('common.next')}
      </Button>
    </nav>
  );
}

interface FieldsExportsProps {
  /** The rows the filters match, in the table's order. */
  sorted: FieldRow[];
  listQuery: string;
  canExport: boolean;
  kmz: KmzExports;
}

/** The matching rows as a spreadsheet, their boundaries as GeoJSON, and all flight plans. */
export function FieldsExports({ sorted, listQuery, canExport, kmz }: FieldsExportsProps) {
  const t = useTranslations();
  const locale = useLocale();
  const { statusLabel } = useFieldRowText();

  /** The rows the filters match, in the table's order, as a spreadsheet opens them. */
  function saveCsv() {
    const header = [t('fields.name'), t('fields.area_ha'), t('fields.owner'), t('fields.status'), t('fields.parcel_number'), t('fields.last_scan'), t('report.index'), t('fields.index_mean')];
    const body = sorted.map((r) => [r.name, r.area, r.owner, r.status ? statusLabel(r.status) : null, r.parcel_number, r.scan?.date.slice(0, 10) ?? null, r.scan?.index?.toUpperCase() ?? null, r.scan?.mean ?? null]);
    const csv = toCsv([header, ...body], locale, { 1: 4, 7: 3 });
    saveBlob(new Blob([csv], { type: 'text/csv;charset=utf-8' }), `${t('nav.fields')}.csv`);
  }

  return (
    <div className="flex flex-wrap gap-2">
      <Button variant="secondary" onClick={saveCsv}>
        {t('fields.export_csv')}
      </Button>
      <LinkButton href={`/api/fields${listQuery}`} download={`${t('nav.fields')}.geojson`}>
        {t('fields.export_geojson')}
      </LinkButton>
      {canExport && (
        <Button variant="secondary" onClick={() => void kmz.exportKmz('all')} busy={kmz.exporting.has('all')}>
          {t('fields.export_all_kmz')}
        </Button>
      )}
    </div>
  );
}
