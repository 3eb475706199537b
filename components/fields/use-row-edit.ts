'use client';
import { useTranslations } from 'next-intl';
import { type Dispatch, type RefObject, type SetStateAction, useState } from 'react';
import { PARCEL_NUMBER } from '@/lib/fields/parcel-number';
import { api } from '@/lib/ui/api';
import { useFocusAfterClose } from '@/lib/ui/focus-after-close';
import type { OwnerOption } from '@/lib/ui/types';
import type { FieldRow } from './field-row';
import { type OwnerChoice, useOwnerChoice } from './owner-choice';

interface UpdatedField {
  field: { id: number; name: string; area: number; owner: { id: number; name: string } | null; status: string | null; parcel_number: string | null };
}

const putField = (row: FieldRow, ownerId: number | null) =>
  api<UpdatedField>(`/api/fields/${row.id}`, {
    method: 'PUT',
    body: { name: row.name.trim(), owner_id: ownerId, status: row.status || null, parcel_number: (row.parcel_number ?? '').trim() },
  });

const savedRow = (r: FieldRow, f: UpdatedField['field']): FieldRow => ({
  ...r,
  name: f.name,
  area: f.area,
  owner: f.owner?.name ?? null,
  owner_id: f.owner?.id ?? null,
  status: f.status,
  parcel_number: f.parcel_number,
});

interface RowEditOptions {
  owners: OwnerOption[];
  /** The table, where the edited row's Edit button is found again when the edit closes. */
  tableRef: RefObject<HTMLTableElement | null>;
  setRows: Dispatch<SetStateAction<FieldRow[]>>;
  setError: (message: string | null) => void;
  setNotice: (message: string | null) => void;
}

export type RowEdit = ReturnType<typeof useRowEdit>;

/** The fields table's row edit: the row's values as typed, its owner, and saving them. */
export function useRowEdit({ owners, tableRef, setRows, setError, setNotice }: RowEditOptions) {
  const t = useTranslations();
  const [editing, setEditing] = useState<FieldRow | null>(null);
  // The edited row's owner (its owner_id aside), which may be a new one.
  const rowOwner = useOwnerChoice(owners, '');
  const [busy, setBusy] = useState(false);
  // Keyboard users keep their place, as on a field's page (FieldEditPanel): the row's name takes the
  // focus when its edit opens, and its Edit button gets it back when the edit closes (Save and Cancel
  // are gone with the inputs, and the focus had fallen to the page's start).
  const returnFocusTo = useFocusAfterClose(editing !== null);

  function start(r: FieldRow) {
    setNotice(null);
    setEditing(r);
    rowOwner.start(r.owner_id ? String(r.owner_id) : '');
  }

  function stop() {
    if (editing) {
      const id = editing.id;
      returnFocusTo(() => tableRef.current?.querySelector<HTMLButtonElement>(`[data-edit-row="${id}"]`));
    }
    setEditing(null);
  }

  /** The saved row in the table, the edit closed, and a word that it is saved. */
  function saved(f: UpdatedField['field']) {
    setRows((all) => all.map((r) => (r.id === f.id ? savedRow(r, f) : r)));
    stop();
    setNotice(t('fields.saved', { name: f.name }));
  }

  async function save() {
    if (!editing) return;
    await saveRow(editing, { t, rowOwner, setBusy, setError, saved });
  }

  return { editing, setEditing, rowOwner, busy, start, stop, save };
}

/** What saving a row uses beside the row: the owner chosen, and where its progress, failure and success go. */
interface RowSave {
  t: ReturnType<typeof useTranslations>;
  rowOwner: OwnerChoice;
  setBusy: (busy: boolean) => void;
  setError: (message: string | null) => void;
  saved: (field: UpdatedField['field']) => void;
}

/** Checks the edited row's parcel number, takes its owner (adding a new one), and PUTs the row. */
async function saveRow(editing: FieldRow, { t, rowOwner, setBusy, setError, saved }: RowSave) {
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
  const res = await putField(editing, owner?.id ?? null);
  setBusy(false);
  if (!res.ok) {
    setError(res.error ?? t('common.network_error'));
    return;
  }
  saved(res.data.field);
}
