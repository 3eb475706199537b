'use client';
import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { KNOWN_STATUSES } from '@/lib/fields/land-status';
import type { OwnerOption } from '@/lib/ui/types';
import { Button, ErrorMessage, Select, TextInput } from '../ui/form';
import { SubmitButton } from '../ui/submit-button';
import { Form } from '../ui/validation-messages';
import { StatusOptions } from './field-options';
import { type OwnerChoice, OwnerChoiceOptions, useOwnerChoice } from './owner-choice';

export interface FieldPropsValues {
  name: string;
  owner_id: number | null;
  status: string | null;
  parcel_number: string;
}

interface FieldPropsFormProps {
  owners: OwnerOption[];
  initial?: Partial<FieldPropsValues>;
  submitLabel: string;
  busy?: boolean;
  onSubmit: (values: FieldPropsValues) => void | Promise<void>;
  onCancel?: () => void;
  /** Focus the name when the form opens (an Edit button that opened it is gone). */
  focusName?: boolean;
}

/**
 * Name, owner, land status and parcel number of a field: for a new field and for editing one. An
 * owner not yet listed can be added here (useOwnerChoice), so that a field drawn for a new lessor is
 * not lost on the way to the owners page.
 */
export function FieldPropsForm({ owners, initial, submitLabel, busy, onSubmit, onCancel, focusName }: FieldPropsFormProps) {
  const t = useTranslations();
  const [name, setName] = useState(initial?.name ?? '');
  const [status, setStatus] = useState(initial?.status ?? '');
  const [parcel, setParcel] = useState(initial?.parcel_number ?? '');
  const owner = useOwnerChoice(owners, initial?.owner_id ? String(initial.owner_id) : '');
  const [ownerError, setOwnerError] = useState<string | null>(null);
  // A status typed elsewhere (an import) stays selectable as it is.
  const statuses: string[] = [...KNOWN_STATUSES];
  if (status && !statuses.includes(status)) statuses.push(status);

  return (
    <Form
      className="space-y-3"
      onSubmit={async (e) => {
        e.preventDefault();
        setOwnerError(null);
        const chosen = await owner.chosen(setOwnerError);
        if (chosen === undefined) return;
        await onSubmit({ name: name.trim(), owner_id: chosen?.id ?? null, status: status || null, parcel_number: parcel.trim() });
      }}
    >
      <TextInput label={t('fields.name')} name="name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={255} autoFocus={focusName} />
      <OwnerInputs owner={owner} error={ownerError} />
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
      <FormButtons submitLabel={submitLabel} busy={busy || owner.creating} onCancel={onCancel} />
    </Form>
  );
}

/** The owner select, a new owner's name while it asks for one, and why a new owner could not be added. */
function OwnerInputs({ owner, error }: { owner: OwnerChoice; error: string | null }) {
  const t = useTranslations();
  return (
    <>
      <Select label={t('fields.owner')} name="owner_id" {...owner.select}>
        <OwnerChoiceOptions choice={owner} />
      </Select>
      {owner.newOwner && <TextInput label={t('fields.new_owner_name')} name="new_owner" {...owner.newOwner} />}
      <ErrorMessage>{error}</ErrorMessage>
    </>
  );
}

function FormButtons({ submitLabel, busy, onCancel }: { submitLabel: string; busy: boolean | undefined; onCancel?: () => void }) {
  const t = useTranslations();
  return (
    <div className="flex flex-wrap gap-2">
      <SubmitButton busy={busy}>
        {submitLabel}
      </SubmitButton>
      {onCancel && (
        <Button variant="secondary" onClick={onCancel} busy={busy}>
          {t('common.cancel')}
        </Button>
      )}
    </div>
  );
}
