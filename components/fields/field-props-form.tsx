'use client';
import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { KNOWN_STATUSES } from '@/lib/ui/status';
import type { OwnerOption } from '@/lib/ui/types';
import { Button, Select, TextInput } from '../ui/form';
import { SubmitButton } from '../ui/submit-button';
import { OwnerOptions, StatusOptions } from './field-options';

export interface FieldPropsValues {
  name: string;
  owner_id: number | null;
  status: string | null;
  parcel_number: string;
}

/** Name, owner, land status and parcel number of a field: for a new field and for editing one. */
export function FieldPropsForm({
  owners,
  initial,
  submitLabel,
  busy,
  onSubmit,
  onCancel,
}: {
  owners: OwnerOption[];
  initial?: Partial<FieldPropsValues>;
  submitLabel: string;
  busy?: boolean;
  onSubmit: (values: FieldPropsValues) => void | Promise<void>;
  onCancel?: () => void;
}) {
  const t = useTranslations();
  const [name, setName] = useState(initial?.name ?? '');
  const [ownerId, setOwnerId] = useState(initial?.owner_id ? String(initial.owner_id) : '');
  const [status, setStatus] = useState(initial?.status ?? '');
  const [parcel, setParcel] = useState(initial?.parcel_number ?? '');
  // A status typed elsewhere (an import) stays selectable as it is.
  const statuses: string[] = [...KNOWN_STATUSES];
  if (status && !statuses.includes(status)) statuses.push(status);

  return (
    <form
      className="space-y-3"
      onSubmit={(e) => {
        e.preventDefault();
        void onSubmit({ name: name.trim(), owner_id: ownerId ? Number(ownerId) : null, status: status || null, parcel_number: parcel.trim() });
      }}
    >
      <TextInput label={t('fields.name')} name="name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={255} />
      <Select label={t('fields.owner')} name="owner_id" value={ownerId} onChange={(e) => setOwnerId(e.target.value)}>
        <OwnerOptions owners={owners} />
      </Select>
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
        <SubmitButton disabled={busy}>
          {submitLabel}
        </SubmitButton>
        {onCancel && (
          <Button variant="secondary" onClick={onCancel} disabled={busy}>
            {t('common.cancel')}
          </Button>
        )}
      </div>
    </form>
  );
}
