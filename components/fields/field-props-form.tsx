'use client';
import { useRouter } from 'next/navigation';
import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { ownerNameKey } from '@/lib/owners/name-key';
import { api } from '@/lib/ui/api';
import { KNOWN_STATUSES } from '@/lib/ui/status';
import type { OwnerOption } from '@/lib/ui/types';
import { Button, ErrorMessage, Select, TextInput } from '../ui/form';
import { SubmitButton } from '../ui/submit-button';
import { OwnerOptions, StatusOptions } from './field-options';

export interface FieldPropsValues {
  name: string;
  owner_id: number | null;
  status: string | null;
  parcel_number: string;
}

/** The owner select's value for "a new owner", whose name is typed below it. */
const NEW_OWNER = 'new';

/**
 * Name, owner, land status and parcel number of a field: for a new field and for editing one. An
 * owner not yet listed can be added here, so that a field drawn for a new lessor is not lost on the
 * way to the owners page; a name already listed, in any case, is that owner.
 */
export function FieldPropsForm({
  owners,
  initial,
  submitLabel,
  busy,
  onSubmit,
  onCancel,
  focusName,
}: {
  owners: OwnerOption[];
  initial?: Partial<FieldPropsValues>;
  submitLabel: string;
  busy?: boolean;
  onSubmit: (values: FieldPropsValues) => void | Promise<void>;
  onCancel?: () => void;
  /** Focus the name when the form opens (an Edit button that opened it is gone). */
  focusName?: boolean;
}) {
  const t = useTranslations();
  const [name, setName] = useState(initial?.name ?? '');
  const [ownerId, setOwnerId] = useState(initial?.owner_id ? String(initial.owner_id) : '');
  const [status, setStatus] = useState(initial?.status ?? '');
  const [parcel, setParcel] = useState(initial?.parcel_number ?? '');
  const [newOwner, setNewOwner] = useState('');
  const [ownerError, setOwnerError] = useState<string | null>(null);
  const [creatingOwner, setCreatingOwner] = useState(false);
  // Owners added here, listed before the page's owners are read again.
  const [added, setAdded] = useState<OwnerOption[]>([]);
  const listed = [...owners, ...added.filter((a) => !owners.some((o) => o.id === a.id))];
  const router = useRouter();

  /** The owner to save the field with; undefined when a new one could not be added (the reason is shown). */
  async function chosenOwnerId(): Promise<number | null | undefined> {
    if (ownerId !== NEW_OWNER) return ownerId ? Number(ownerId) : null;
    const name = newOwner.trim();
    // The browser's `required` takes spaces for a name.
    if (!name) {
      setOwnerError(t('fields.new_owner_name_missing'));
      return undefined;
    }
    const take = (owner: OwnerOption) => {
      if (!listed.some((o) => o.id === owner.id)) {
        // Listed here at once, and in the page's owners once they are read again.
        setAdded((list) => [...list, owner]);
        router.refresh();
      }
      setOwnerId(String(owner.id));
      setNewOwner('');
      return owner.id;
    };
    const known = listed.find((o) => ownerNameKey(o.name) === ownerNameKey(name));
    if (known) return take(known);
    setCreatingOwner(true);
    const res = await api<{ id: number }>('/api/owners', { method: 'POST', body: { name } });
    // Taken since the page was read (by a colleague, or another tab): that owner, found in the list as it is now.
    const taken = !res.ok && res.status === 409 ? (await api<OwnerOption[]>('/api/owners')) : null;
    setCreatingOwner(false);
    if (taken?.ok) {
      const owner = taken.data.find((o) => ownerNameKey(o.name) === ownerNameKey(name));
      if (owner) return take({ id: owner.id, name: owner.name });
    }
    if (!res.ok) {
      setOwnerError(res.error ?? t('common.network_error'));
      return undefined;
    }
    return take({ id: res.data.id, name });
  }
  // A status typed elsewhere (an import) stays selectable as it is.
  const statuses: string[] = [...KNOWN_STATUSES];
  if (status && !statuses.includes(status)) statuses.push(status);

  return (
    <form
      className="space-y-3"
      onSubmit={async (e) => {
        e.preventDefault();
        setOwnerError(null);
        const owner_id = await chosenOwnerId();
        if (owner_id === undefined) return;
        await onSubmit({ name: name.trim(), owner_id, status: status || null, parcel_number: parcel.trim() });
      }}
    >
      <TextInput label={t('fields.name')} name="name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={255} autoFocus={focusName} />
      <Select label={t('fields.owner')} name="owner_id" value={ownerId} onChange={(e) => setOwnerId(e.target.value)}>
        <OwnerOptions owners={listed} />
        <option value={NEW_OWNER}>{t('fields.add_owner')}</option>
      </Select>
      {ownerId === NEW_OWNER && (
        // Focused as it appears: on a phone the box would otherwise wait for a tap.
        <TextInput label={t('fields.new_owner_name')} name="new_owner" value={newOwner} onChange={(e) => setNewOwner(e.target.value)} required maxLength={255} autoFocus />
      )}
      <ErrorMessage>{ownerError}</ErrorMessage>
      <Select label={t('fields.status')} name="status" value={status} onChange={(e) => setStatus(e.target.value)}>
        <StatusOptions statuses={statuses} none={t('common.none')} />
      </Select>
      <TextInput
        label={t('fields.parcel_number')}
        name="parcel_number"
        value={parcel}
        onChange={(e) => setParcel(e.target.value)}
        pattern="\d+(:\d+)*"
        title={t('fields.parcel_hint')}
        hint={t('fields.parcel_hint')}
        maxLength={64}
      />
      <div className="flex flex-wrap gap-2">
        <SubmitButton disabled={busy || creatingOwner}>
          {submitLabel}
        </SubmitButton>
        {onCancel && (
          <Button variant="secondary" onClick={onCancel} disabled={busy || creatingOwner}>
            {t('common.cancel')}
          </Button>
        )}
      </div>
    </form>
  );
}
