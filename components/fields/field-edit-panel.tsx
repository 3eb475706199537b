'use client';
import { useRouter } from 'next/navigation';
import { useTranslations } from 'next-intl';
import { useRef, useState } from 'react';
import { api } from '@/lib/ui/api';
import type { OwnerOption } from '@/lib/ui/types';
import { ConfirmButton } from '../ui/confirm-button';
import { Button, ErrorMessage, SuccessMessage } from '../ui/form';
import { FieldPropsForm, type FieldPropsValues } from './field-props-form';
import { useFocusAfterClose } from '@/lib/ui/focus-after-close';

export function FieldEditPanel({ id, name, initial, owners, canEdit, canDelete }: { id: number; name: string; initial: FieldPropsValues; owners: OwnerOption[]; canEdit: boolean; canDelete: boolean }) {
  const t = useTranslations();
  const { editing, editButton, startEditing, stopEditing, busy, error, notice, save, remove } = useFieldEdit(id);

  if (!canEdit && !canDelete) return null;
  return (
    <div className="space-y-2">
      <ErrorMessage>{error}</ErrorMessage>
      <SuccessMessage>{notice}</SuccessMessage>
      {editing ? (
        <FieldPropsForm owners={owners} initial={initial} submitLabel={t('common.save')} busy={busy} onSubmit={save} onCancel={stopEditing} focusName />
      ) : (
        <div className="flex flex-wrap gap-2">
          {canEdit && (
            <Button ref={editButton} variant="secondary" onClick={startEditing}>
              {t('common.edit')}
            </Button>
          )}
          {canDelete && <ConfirmButton label={t('common.delete')} question={t('fields.delete_confirm', { name })} onConfirm={remove} />}
        </div>
      )}
    </div>
  );
}

/** Saving the field's properties (the form then closes) and deleting the field (its list then opens). */
function useFieldEdit(id: number) {
  const t = useTranslations();
  const router = useRouter();
  const { editing, setEditing, editButton, stopEditing } = useEditingForm();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  async function save(values: FieldPropsValues) {
    setBusy(true);
    setError(null);
    const res = await api(`/api/fields/${id}`, { method: 'PUT', body: values });
    setBusy(false);
    if (!res.ok) {
      setError(res.error ?? t('common.network_error'));
      return;
    }
    stopEditing();
    setNotice(t('fields.saved', { name: values.name }));
    router.refresh();
  }

  async function remove() {
    const res = await api(`/api/fields/${id}`, { method: 'DELETE' });
    if (!res.ok) {
      setError(res.error ?? t('common.network_error'));
      return;
    }
    router.push('/fields');
    router.refresh();
  }

  function startEditing() {
    setNotice(null);
    setEditing(true);
  }
  return { editing, editButton, startEditing, stopEditing, busy, error, notice, save, remove };
}

/** Whether the form is open, and the Edit button that opens it. */
function useEditingForm() {
  const [editing, setEditing] = useState(false);
  // Focus goes back to Edit when the form closes.
  const editButton = useRef<HTMLButtonElement>(null);
  const returnFocusTo = useFocusAfterClose(editing);
  function stopEditing() {
    returnFocusTo(() => editButton.current);
    setEditing(false);
  }
  return { editing, setEditing, editButton, stopEditing };
}
