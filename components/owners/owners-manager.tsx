'use client';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useFormatter, useTranslations } from 'next-intl';
import { type RefObject, useRef, useState } from 'react';
import { api } from '@/lib/ui/api';
import { ConfirmButton } from '../ui/confirm-button';
import { Button, ErrorMessage, SuccessMessage, inputClass } from '../ui/form';
import { SubmitButton } from '../ui/submit-button';
import { Table, Th } from '../ui/table';
import { Form } from '../ui/validation-messages';
import { useFocusAfterClose } from '@/lib/ui/focus-after-close';

export interface OwnerRow {
  id: number;
  name: string;
  fields_count: number;
  total_area: number;
}

export function OwnersManager({ owners, canEdit, canDelete }: { owners: OwnerRow[]; canEdit: boolean; canDelete: boolean }) {
  const action = useOwnerAction();
  const root = useRef<HTMLDivElement>(null);
  const renaming = useRenaming(root);
  return (
    <div ref={root} className="space-y-3">
      <ErrorMessage>{action.error}</ErrorMessage>
      <SuccessMessage>{action.notice}</SuccessMessage>
      {canEdit && <NewOwnerForm action={action} />}
      <OwnersTable owners={owners} canEdit={canEdit} canDelete={canDelete} action={action} renaming={renaming} />
    </div>
  );
}

/** A change to the owners in flight, and how the last one went (one message for the whole page). */
type OwnerAction = ReturnType<typeof useOwnerAction>;

function useOwnerAction() {
  const t = useTranslations();
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  /** Sends `call`; true once it succeeded, `success` said and the owners read again. */
  async function run(call: Promise<{ ok: boolean; error?: string | null }>, success: string) {
    setBusy(true);
    setError(null);
    setNotice(null);
    const res = await call;
    setBusy(false);
    if (!res.ok) {
      setError(res.error ?? t('common.network_error'));
      return false;
    }
    setNotice(success);
    router.refresh();
    return true;
  }
  return { error, notice, busy, run };
}

/** The owner being renamed (null: none) with the name typed so far, and ending the renaming. */
type Renaming = ReturnType<typeof useRenaming>;

/**
 * Keyboard users keep their place, as on a field's page (FieldEditPanel): the name takes the focus when
 * renaming opens, and the row's Rename (found in `root`) gets it back when it closes (Save and Cancel are gone).
 */
function useRenaming(root: RefObject<HTMLDivElement | null>) {
  const [current, setCurrent] = useState<{ id: number; name: string } | null>(null);
  const returnFocusTo = useFocusAfterClose(current !== null);
  function stop(id: number) {
    returnFocusTo(() => root.current?.querySelector<HTMLButtonElement>(`[data-rename="${id}"]`));
    setCurrent(null);
  }
  return { current, set: setCurrent, stop };
}

function NewOwnerForm({ action }: { action: OwnerAction }) {
  const t = useTranslations();
  const [newName, setNewName] = useState('');
  return (
    <Form
      className="flex flex-wrap items-end gap-2"
      onSubmit={async (e) => {
        e.preventDefault();
        const name = newName.trim();
        if (await action.run(api('/api/owners', { method: 'POST', body: { name } }), t('owners.created', { name }))) setNewName('');
      }}
    >
      <label className="block min-w-60 flex-1 space-y-1 text-sm">
        <span className="font-medium text-stone-700">{t('owners.new_owner')}</span>
        <input className={inputClass} value={newName} onChange={(e) => setNewName(e.target.value)} required maxLength={255} />
      </label>
      <SubmitButton busy={action.busy}>
        {t('owners.add')}
      </SubmitButton>
    </Form>
  );
}

interface OwnersTableProps {
  owners: OwnerRow[];
  canEdit: boolean;
  canDelete: boolean;
  action: OwnerAction;
  renaming: Renaming;
}

function OwnersTable({ owners, canEdit, canDelete, action, renaming }: OwnersTableProps) {
  const t = useTranslations();
  return (
    <Table
      framed
      testId="owners-table"
      head={
        <>
          <Th>{t('owners.name')}</Th>
          <Th figures>{t('owners.fields_count')}</Th>
          <Th figures>{t('fields.area_ha')}</Th>
          {(canEdit || canDelete) && <Th>{t('common.actions')}</Th>}
        </>
      }
    >
      {owners.length === 0 && (
        <tr>
          <td colSpan={4} className="px-2 py-6 text-center text-stone-600">
            {t('owners.none')}
          </td>
        </tr>
      )}
      {owners.map((o) => (
        <OwnerTableRow key={o.id} owner={o} canEdit={canEdit} canDelete={canDelete} action={action} renaming={renaming} />
      ))}
    </Table>
  );
}

function OwnerTableRow({ owner: o, canEdit, canDelete, action, renaming }: Omit<OwnersTableProps, 'owners'> & { owner: OwnerRow }) {
  const t = useTranslations();
  const format = useFormatter();
  const renamed = renaming.current?.id === o.id ? renaming.current : null;
  return (
    <tr
      className="border-t border-stone-200"
      // Escape anywhere in the row being renamed (its name, Save, Cancel) cancels, as Cancel does.
      onKeyDown={(e) => {
        if (e.key === 'Escape' && renamed) {
          e.preventDefault();
          renaming.stop(o.id);
        }
      }}
    >
      <td className="px-2 py-1.5">
        {renamed ? (
          <input aria-label={t('owners.name')} className={inputClass} value={renamed.name} onChange={(e) => renaming.set({ id: o.id, name: e.target.value })} autoFocus />
        ) : (
          <Link href={`/fields?owner_id=${o.id}`} className="text-emerald-800 hover:underline">
            {o.name}
          </Link>
        )}
      </td>
      <td className="px-2 py-1.5 text-right tabular-nums">{o.fields_count}</td>
      <td className="px-2 py-1.5 text-right tabular-nums">{format.number(o.total_area, 'hectares')}</td>
      {(canEdit || canDelete) && (
        <td className="px-2 py-1.5">
          <span className="flex flex-wrap gap-2">
            <OwnerRowActions owner={o} newName={renamed?.name ?? null} canEdit={canEdit} canDelete={canDelete} action={action} renaming={renaming} />
          </span>
        </td>
      )}
    </tr>
  );
}

/** Save and Cancel while the owner is renamed (`newName` not null), else Rename and Delete. */
function OwnerRowActions({ owner: o, newName, canEdit, canDelete, action, renaming }: Omit<OwnersTableProps, 'owners'> & { owner: OwnerRow; newName: string | null }) {
  const t = useTranslations();
  // One fragment or the other, as when they were written in the row: its buttons are reused in place.
  return newName !== null ? (
    <>
      <Button
        busy={action.busy}
        onClick={async () => {
          const name = newName.trim();
          if (await action.run(api(`/api/owners/${o.id}`, { method: 'PUT', body: { name } }), t('owners.renamed', { name }))) renaming.stop(o.id);
        }}
      >
        {t('common.save')}
      </Button>
      <Button variant="secondary" onClick={() => renaming.stop(o.id)}>
        {t('common.cancel')}
      </Button>
    </>
  ) : (
    <>
      {canEdit && (
        <Button variant="secondary" data-rename={o.id} aria-label={t('owners.rename_of', { name: o.name })} onClick={() => renaming.set({ id: o.id, name: o.name })}>
          {t('owners.rename')}
        </Button>
      )}
      {canDelete && (
        <ConfirmButton
          label={t('common.delete')}
          name={t('owners.delete_of', { name: o.name })}
          question={t('owners.delete_confirm', { name: o.name, count: o.fields_count })}
          onConfirm={async () => {
            await action.run(api(`/api/owners/${o.id}`, { method: 'DELETE' }), t('owners.deleted', { name: o.name }));
          }}
        />
      )}
    </>
  );
}
