'use client';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useFormatter, useTranslations } from 'next-intl';
import { useRef, useState } from 'react';
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
  const t = useTranslations();
  const format = useFormatter();
  const router = useRouter();
  const [newName, setNewName] = useState('');
  const [renaming, setRenaming] = useState<{ id: number; name: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // Keyboard users keep their place, as on a field's page (FieldEditPanel): the name takes the focus
  // when renaming opens, and the row's Rename gets it back when it closes (Save and Cancel are gone).
  const root = useRef<HTMLDivElement>(null);
  const returnFocusTo = useFocusAfterClose(renaming !== null);
  function stopRenaming(id: number) {
    returnFocusTo(() => root.current?.querySelector<HTMLButtonElement>(`[data-rename="${id}"]`));
    setRenaming(null);
  }

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

  return (
    <div ref={root} className="space-y-3">
      <ErrorMessage>{error}</ErrorMessage>
      <SuccessMessage>{notice}</SuccessMessage>
      {canEdit && (
        <Form
          className="flex flex-wrap items-end gap-2"
          onSubmit={async (e) => {
            e.preventDefault();
            const name = newName.trim();
            if (await run(api('/api/owners', { method: 'POST', body: { name } }), t('owners.created', { name }))) setNewName('');
          }}
        >
          <label className="block min-w-60 flex-1 space-y-1 text-sm">
            <span className="font-medium text-stone-700">{t('owners.new_owner')}</span>
            <input className={inputClass} value={newName} onChange={(e) => setNewName(e.target.value)} required maxLength={255} />
          </label>
          <SubmitButton busy={busy}>
            {t('owners.add')}
          </SubmitButton>
        </Form>
      )}
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
          <tr
            key={o.id}
            className="border-t border-stone-200"
            // Escape anywhere in the row being renamed (its name, Save, Cancel) cancels, as Cancel does.
            onKeyDown={(e) => {
              if (e.key === 'Escape' && renaming?.id === o.id) {
                e.preventDefault();
                stopRenaming(o.id);
              }
            }}
          >
            <td className="px-2 py-1.5">
              {renaming?.id === o.id ? (
                <input aria-label={t('owners.name')} className={inputClass} value={renaming.name} onChange={(e) => setRenaming({ id: o.id, name: e.target.value })} autoFocus />
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
                  {renaming?.id === o.id ? (
                    <>
                      <Button
                        busy={busy}
                        onClick={async () => {
                          const name = renaming.name.trim();
                          if (await run(api(`/api/owners/${o.id}`, { method: 'PUT', body: { name } }), t('owners.renamed', { name }))) stopRenaming(o.id);
                        }}
                      >
                        {t('common.save')}
                      </Button>
                      <Button variant="secondary" onClick={() => stopRenaming(o.id)}>
                        {t('common.cancel')}
                      </Button>
                    </>
                  ) : (
                    <>
                      {canEdit && (
                        <Button variant="secondary" data-rename={o.id} aria-label={t('owners.rename_of', { name: o.name })} onClick={() => setRenaming({ id: o.id, name: o.name })}>
                          {t('owners.rename')}
                        </Button>
                      )}
                      {canDelete && (
                        <ConfirmButton
                          label={t('common.delete')}
                          name={t('owners.delete_of', { name: o.name })}
                          question={t('owners.delete_confirm', { name: o.name, count: o.fields_count })}
                          onConfirm={async () => {
                            await run(api(`/api/owners/${o.id}`, { method: 'DELETE' }), t('owners.deleted', { name: o.name }));
                          }}
                        />
                      )}
                    </>
                  )}
                </span>
              </td>
            )}
          </tr>
        ))}
      </Table>
    </div>
  );
}
