'use client';
import { useTranslations } from 'next-intl';
import type { Dispatch, SetStateAction } from 'react';
import type { OwnerOption } from '@/lib/ui/types';
import { type BulkChange, BulkEdit } from './bulk-edit';
import type { FieldRow } from './field-row';
import { type MergedField, MergeFields } from './merge-fields';
import type { RowSelection } from './use-row-selection';

/** Fields one merge may join (as POST /api/fields/merge takes). */
const MAX_MERGED = 100;

/** A row as a bulk edit left it: the owner and status it gave, the rest as it was. */
const bulkChanged = (r: FieldRow, change: BulkChange): FieldRow => ({
  ...r,
  ...(change.owner !== undefined ? { owner_id: change.owner?.id ?? null, owner: change.owner?.name ?? null } : {}),
  ...(change.status !== undefined ? { status: change.status } : {}),
});

/** The rows once a merge has taken the fields `taken` into `field`. */
const afterMerge = (rows: FieldRow[], field: MergedField, taken: number[]): FieldRow[] => {
  const gone = new Set(taken);
  return rows.filter((r) => !gone.has(r.id)).map((r) => (r.id === field.id ? { ...r, name: field.name, area: field.area } : r));
};

interface FieldsSelectionActionsProps {
  rows: FieldRow[];
  setRows: Dispatch<SetStateAction<FieldRow[]>>;
  /** The rows the filters match, in the table's order. */
  sorted: FieldRow[];
  owners: OwnerOption[];
  canEdit: boolean;
  canMerge: boolean;
  selection: RowSelection;
  /** Says what an action did, in place of the last error. */
  onDone: (notice: string) => void;
}

/** Over the table, for the selected rows: the bulk edit, and the merge once it is asked for. */
export function FieldsSelectionActions({ rows, setRows, sorted, owners, canEdit, canMerge, selection, onDone }: FieldsSelectionActionsProps) {
  const t = useTranslations();
  const { selected, setSelected, merging, setMerging } = selection;
  const mergeable = selected.size >= 2 && selected.size <= MAX_MERGED;
  return (
    <>
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
          onMerge={canMerge && mergeable ? () => setMerging(true) : undefined}
          onSaved={(change, count) => {
            setRows((all) => all.map((r) => (selected.has(r.id) ? bulkChanged(r, change) : r)));
            setSelected(new Set());
            onDone(t('fields.bulk_saved', { count }));
          }}
        />
      )}
      {merging && mergeable && (
        <MergeFields
          key={[...selected].join()}
          rows={rows.filter((r) => selected.has(r.id)).map((r) => ({ id: r.id, name: r.name, area: r.area, parcel_number: r.parcel_number, scanned: r.scan !== undefined }))}
          onCancel={() => setMerging(false)}
          onMerged={(field, taken) => {
            setRows((all) => afterMerge(all, field, taken));
            setSelected(new Set());
            setMerging(false);
            onDone(t('fields.merged', { count: taken.length + 1, name: field.name }));
          }}
        />
      )}
    </>
  );
}
