'use client';
import Link from 'next/link';
import { useTranslations } from 'next-intl';
import { KNOWN_STATUSES } from '@/lib/fields/land-status';
import { Button, inputClass } from '../ui/form';
import { StatusOptions } from './field-options';
import type { FieldRow } from './field-row';
import { OwnerChoiceOptions } from './owner-choice';
import type { KmzExports } from './use-kmz-exports';
import type { RowEdit } from './use-row-edit';
import type { RowSelection } from './use-row-selection';
import { useFieldRowText } from './use-field-row-text';

interface FieldsTableBodyProps {
  rows: FieldRow[];
  /** Whether the filters match any row at all (else the table says none was found). */
  matched: boolean;
  columns: number;
  canEdit: boolean;
  canExport: boolean;
  selection: RowSelection;
  edit: RowEdit;
  kmz: KmzExports;
}

/** The table's rows on this page, the one being edited as inputs. */
export function FieldsTableBody({ rows, matched, columns, canEdit, canExport, selection, edit, kmz }: FieldsTableBodyProps) {
  const t = useTranslations();
  const { editing } = edit;
  return (
    <tbody>
      {!matched && (
        <tr>
          <td colSpan={columns} className="px-2 py-6 text-center text-stone-600">
            {t('fields.none_found')}
          </td>
        </tr>
      )}
      {rows.map((r) =>
        editing?.id === r.id ? (
          <EditingFieldRow key={r.id} row={r} values={editing} edit={edit} />
        ) : (
          <FieldTableRow
            key={r.id}
            row={r}
            selected={selection.selected.has(r.id)}
            canEdit={canEdit}
            canExport={canExport}
            exporting={kmz.exporting.has(String(r.id))}
            onSelect={(on) => selection.toggle([r.id], on)}
            onEdit={() => edit.start(r)}
            onExport={() => void kmz.exportKmz(r.id)}
          />
        ),
      )}
    </tbody>
  );
}

interface FieldTableRowProps {
  row: FieldRow;
  selected: boolean;
  canEdit: boolean;
  canExport: boolean;
  /** Its flight plan is being downloaded. */
  exporting: boolean;
  onSelect: (on: boolean) => void;
  onEdit: () => void;
  onExport: () => void;
}

/** A field's row as read: its name links to its page. */
function FieldTableRow({ row: r, selected, canEdit, canExport, exporting, onSelect, onEdit, onExport }: FieldTableRowProps) {
  const t = useTranslations();
  const { ha, scanDayOf, indexMean, statusLabel } = useFieldRowText();
  return (
    <tr className={`border-t border-stone-200 hover:bg-stone-50 ${selected ? 'bg-emerald-50' : ''}`} data-testid={`field-row-${r.id}`}>
      {canEdit && (
        <td className="px-2 py-1.5">
          <input type="checkbox" aria-label={t('fields.select_row', { name: r.name })} checked={selected} onChange={(e) => onSelect(e.target.checked)} />
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
        <RowActions row={r} canEdit={canEdit} canExport={canExport} exporting={exporting} onEdit={onEdit} onExport={onExport} />
      </td>
    </tr>
  );
}

/** A row's links and buttons: its field on the map, its edit, its flight plan. */
function RowActions({ row: r, canEdit, canExport, exporting, onEdit, onExport }: Omit<FieldTableRowProps, 'selected' | 'onSelect'>) {
  const t = useTranslations();
  return (
    <span className="flex gap-2">
      {/* Each row's controls say whose they are: a list of "Edit", "Edit", … tells a screen reader nothing. */}
      <Link href={`/map?field=${r.id}`} prefetch={false} className="text-emerald-800 hover:underline" aria-label={t('fields.show_on_map_of', { name: r.name })}>
        {t('fields.show_on_map')}
      </Link>
      {canEdit && (
        <button type="button" className="text-emerald-800 hover:underline" aria-label={t('fields.edit_of', { name: r.name })} data-edit-row={r.id} onClick={onEdit}>
          {t('common.edit')}
        </button>
      )}
      {canExport && (
        <button
          type="button"
          className={`text-emerald-800 hover:underline ${exporting ? 'cursor-wait' : ''}`}
          aria-label={t('fields.kmz_of', { name: r.name })}
          aria-disabled={exporting || undefined}
          aria-busy={exporting || undefined}
          onClick={onExport}
        >
          KMZ
        </button>
      )}
    </span>
  );
}

/** The row being edited: its name, owner, status and parcel number as inputs, with Save and Cancel. */
function EditingFieldRow({ row: r, values, edit }: { row: FieldRow; values: FieldRow; edit: RowEdit }) {
  const t = useTranslations();
  const { ha, scanDayOf, indexMean } = useFieldRowText();
  const { setEditing } = edit;
  const statuses: string[] = [...KNOWN_STATUSES];
  if (values.status && !statuses.includes(values.status)) statuses.push(values.status);
  return (
    <tr className="border-t border-stone-200 bg-amber-50" data-testid={`field-row-${r.id}`}>
      <td className="px-2 py-1" />
      <td className="px-2 py-1">
        <input aria-label={t('fields.name')} className={`${inputClass} min-w-[10rem]`} value={values.name} onChange={(e) => setEditing({ ...values, name: e.target.value })} required autoFocus />
      </td>
      <td className="px-2 py-1 text-right tabular-nums">{ha(r.area)}</td>
      <td className="px-2 py-1">
        <select aria-label={t('fields.owner')} className={`${inputClass} min-w-[8rem]`} {...edit.rowOwner.select}>
          <OwnerChoiceOptions choice={edit.rowOwner} />
        </select>
        {edit.rowOwner.newOwner && <input aria-label={t('fields.new_owner_name')} className={`${inputClass} mt-1 min-w-[8rem]`} {...edit.rowOwner.newOwner} />}
      </td>
      <td className="px-2 py-1">
        <select aria-label={t('fields.status')} className={`${inputClass} min-w-[8rem]`} value={values.status ?? ''} onChange={(e) => setEditing({ ...values, status: e.target.value || null })}>
          <StatusOptions statuses={statuses} none={t('common.none')} />
        </select>
      </td>
      <td className="px-2 py-1">
        <input
          aria-label={t('fields.parcel_number')}
          className={`${inputClass} min-w-[11rem] font-mono text-xs`}
          value={values.parcel_number ?? ''}
          onChange={(e) => setEditing({ ...values, parcel_number: e.target.value })}
          placeholder="61:02:0600010:123"
        />
      </td>
      <td className="px-2 py-1 whitespace-nowrap">{scanDayOf(r)}</td>
      <td className="px-2 py-1 text-right whitespace-nowrap tabular-nums">{indexMean(r)}</td>
      <td className="px-2 py-1 whitespace-nowrap">
        <span className="flex gap-1">
          <Button onClick={() => void edit.save()} busy={edit.busy}>
            {t('common.save')}
          </Button>
          <Button variant="secondary" onClick={edit.stop} busy={edit.busy}>
            {t('common.cancel')}
          </Button>
        </span>
      </td>
    </tr>
  );
}
