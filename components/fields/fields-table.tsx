'use client';
// The fields page's table. Each job is a hook or a component of its own:
//   use-table-order.ts            sorting and paging, kept in the address
//   use-row-selection.ts          the selected rows; fields-selection-actions.tsx edits or merges them
//   use-row-edit.ts               a row's inline edit and its save; fields-table-rows.tsx draws the rows
//   use-kmz-exports.ts            flight plan downloads
//   fields-table-parts.tsx        the header, footer, pager and the exports above the table
import { useRef, useState } from 'react';
import type { OwnerOption } from '@/lib/ui/types';
import { ErrorMessage, SuccessMessage } from '../ui/form';
import type { FieldRow } from './field-row';
import { FieldsExports, FieldsPager, FieldsTableFoot, FieldsTableHead } from './fields-table-parts';
import { FieldsTableBody } from './fields-table-rows';
import { FieldsSelectionActions } from './fields-selection-actions';
import { useKmzExports } from './use-kmz-exports';
import { useRowEdit } from './use-row-edit';
import { useRowSelection } from './use-row-selection';
import { useTableOrder } from './use-table-order';

export type { FieldRow } from './field-row';

interface FieldsTableProps {
  rows: FieldRow[];
  owners: OwnerOption[];
  canEdit: boolean;
  canExport: boolean;
  canMerge: boolean;
  /** The page's filters as `GET /api/fields` takes them (`?q=…`), for the rows' boundaries as GeoJSON. */
  listQuery: string;
}

export function FieldsTable({ rows: initialRows, owners, canEdit, canExport, canMerge, listQuery }: FieldsTableProps) {
  const [rows, setRows] = useState(initialRows);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const selection = useRowSelection();
  const tableRef = useRef<HTMLTableElement>(null);
  const edit = useRowEdit({ owners, tableRef, setRows, setError, setNotice });
  const kmz = useKmzExports(setError);
  const order = useTableOrder(rows);
  // The table's columns: the selection's, when rows can be edited, and seven more.
  const columns = canEdit ? 9 : 8;
  const done = (message: string) => {
    setError(null);
    setNotice(message);
  };

  return (
    <div className="space-y-3">
      <ErrorMessage>{error}</ErrorMessage>
      <SuccessMessage>{notice}</SuccessMessage>
      <FieldsSelectionActions rows={rows} setRows={setRows} sorted={order.sorted} owners={owners} canEdit={canEdit} canMerge={canMerge} selection={selection} onDone={done} />
      {rows.length > 0 && <FieldsExports sorted={order.sorted} listQuery={listQuery} canExport={canExport} kmz={kmz} />}
      <div className="overflow-x-auto rounded-lg border border-stone-200 bg-white">
        <table ref={tableRef} className="min-w-full text-sm" data-testid="fields-table">
          <FieldsTableHead canEdit={canEdit} order={order} selection={selection} />
          <FieldsTableBody rows={order.shown} matched={order.sorted.length > 0} columns={columns} canEdit={canEdit} canExport={canExport} selection={selection} edit={edit} kmz={kmz} />
          <FieldsTableFoot canEdit={canEdit} rows={rows} />
        </table>
      </div>
      {order.pages > 1 && <FieldsPager order={order} />}
    </div>
  );
}
