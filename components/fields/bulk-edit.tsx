'use client';
import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { api } from '@/lib/ui/api';
import { KNOWN_STATUSES } from '@/lib/fields/land-status';
import type { OwnerOption } from '@/lib/ui/types';
import { Button, ErrorMessage, Select, TextInput } from '../ui/form';
import { StatusOptions } from './field-options';
import { type OwnerChoice, OwnerChoiceOptions, useOwnerChoice } from './owner-choice';

/** What a bulk edit gave the selected fields: an owner (null: none), a status, or both. */
export interface BulkChange {
  owner?: OwnerOption | null;
  status?: string | null;
}

/** The select's value that leaves a property as each field has it. */
const KEEP = 'keep';

interface BulkEditProps {
  ids: number[];
  matching: number;
  owners: OwnerOption[];
  onSelectAll: () => void;
  onClear: () => void;
  onSaved: (change: BulkChange, count: number) => void;
  /** Offered when the selected fields may be merged into one. */
  onMerge?: () => void;
}

/**
 * One owner or status, or both, for the fields selected in the table (PATCH /api/fields): farm staff
 * set them after importing a register, whose parcels come without.
 */
export function BulkEdit({ ids, matching, owners, onSelectAll, onClear, onSaved, onMerge }: BulkEditProps) {
  const t = useTranslations();
  const owner = useOwnerChoice(owners, KEEP);
  const [status, setStatus] = useState(KEEP);
  const { busy, error, apply } = useBulkApply(ids, owner, status, onSaved);

  return (
    <section aria-label={t('fields.bulk_title')} className="flex flex-wrap items-end gap-3 rounded-lg border border-emerald-200 bg-emerald-50 p-3 text-sm" data-testid="bulk-edit">
      <p className="basis-full font-medium sm:basis-auto sm:self-center">
        {t('fields.selected', { count: ids.length })}
        {ids.length < matching && (
          <button type="button" className="ml-2 text-emerald-800 underline" onClick={onSelectAll}>
            {t('fields.select_all', { count: matching })}
          </button>
        )}
      </p>
      <BulkChoices owner={owner} status={status} onStatusChange={setStatus} />
      <Button onClick={() => void apply()} busy={busy} disabled={owner.select.value === KEEP && status === KEEP}>
        {t('fields.bulk_apply')}
      </Button>
      {onMerge && (
        <Button variant="secondary" onClick={onMerge} busy={busy}>
          {t('fields.merge_open')}
        </Button>
      )}
      <Button variant="secondary" onClick={onClear} busy={busy}>
        {t('fields.clear_selection')}
      </Button>
      {error && (
        <div className="basis-full">
          <ErrorMessage>{error}</ErrorMessage>
        </div>
      )}
    </section>
  );
}

/** Saves the owner and status chosen (those not kept) to the selected fields. */
function useBulkApply(ids: number[], owner: OwnerChoice, status: string, onSaved: BulkEditProps['onSaved']) {
  const t = useTranslations();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const keepOwner = owner.select.value === KEEP;

  async function apply() {
    setBusy(true);
    setError(null);
    const chosen = keepOwner ? null : await owner.chosen(setError);
    if (chosen === undefined) {
      setBusy(false);
      return;
    }
    const statusChange = status === KEEP ? {} : { status: status || null };
    const res = await api<{ updated: number }>('/api/fields', { method: 'PATCH', body: { ids, ...(keepOwner ? {} : { owner_id: chosen?.id ?? null }), ...statusChange } });
    setBusy(false);
    if (!res.ok) {
      setError(res.error ?? t('common.network_error'));
      return;
    }
    onSaved({ ...(keepOwner ? {} : { owner: chosen }), ...statusChange }, res.data.updated);
  }
  return { busy, error, apply };
}

/** The owner (with a new one's name while it is asked for) and the status: each may be kept as the fields have it. */
function BulkChoices({ owner, status, onStatusChange }: { owner: OwnerChoice; status: string; onStatusChange: (status: string) => void }) {
  const t = useTranslations();
  return (
    <>
      <div className="min-w-40">
        <Select label={t('fields.owner')} {...owner.select}>
          <option value={KEEP}>{t('fields.bulk_keep')}</option>
          <OwnerChoiceOptions choice={owner} />
        </Select>
      </div>
      {owner.newOwner && (
        <div className="min-w-40">
          <TextInput label={t('fields.new_owner_name')} {...owner.newOwner} />
        </div>
      )}
      <div className="min-w-40">
        <Select label={t('fields.status')} value={status} onChange={(e) => onStatusChange(e.target.value)}>
          <option value={KEEP}>{t('fields.bulk_keep')}</option>
          <StatusOptions statuses={KNOWN_STATUSES} none={t('fields.no_status')} />
        </Select>
      </div>
    </>
  );
}
