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
  const router = useRouter();
  const [editing, setEditing] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  // Focus goes back to Edit when the form closes.
  const editButton = useRef<HTMLButtonElement>(null);
  const returnFocusTo = useFocusAfterClose(editing);
  function stopEditing() {
    returnFocusTo(() => editButton.current);
    setEditing(false);
  }

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
            <Button
              ref={editButton}
              variant="secondary"
              onClick={() => {
                setNotice(null);
                setEditing(true);
              }}
            >
              {t('common.edit')}
            </Button>
          )}
          {canDelete && <ConfirmButton label={t('common.delete')} question={t('fields.delete_confirm', { name })} onConfirm={remove} />}
        </div>
      )}
    </div>
  );
}
