'use client';
import { useFormatter, useTranslations } from 'next-intl';
import { useState } from 'react';
import { api } from '@/lib/ui/api';
import { Button, ErrorMessage, TextInput } from '../ui/form';

/** A field offered for a merge: what the person needs to choose the one kept. */
export interface MergeCandidate {
  id: number;
  name: string;
  area: number;
  parcel_number: string | null;
  /** Only the field kept may have scans. */
  scanned: boolean;
}

export interface MergedField {
  id: number;
  name: string;
  area: number;
}

/** The field a merge keeps by default: one with scans (only it may have them), else the largest. */
const defaultKept = (rows: MergeCandidate[]) => (rows.find((r) => r.scanned) ?? rows.reduce((a, b) => (b.area > a.area ? b : a))).id;

/**
 * Merges the fields selected in the table or on the map into one (POST /api/fields/merge): register
 * parcels farmed as one field. The person chooses the field that stays; the others become part of it.
 */
export function MergeFields({ rows, onCancel, onMerged }: { rows: MergeCandidate[]; onCancel: () => void; onMerged: (field: MergedField, taken: number[]) => void }) {
  const t = useTranslations();
  const { keptRow, setKept, name, setName, busy, error, merge } = useMerge(rows, onMerged);

  return (
    <section aria-label={t('fields.merge_title')} className="space-y-3 rounded-lg border border-amber-300 bg-amber-50 p-3 text-sm" data-testid="merge-fields">
      <h2 className="font-semibold">{t('fields.merge_title')}</h2>
      <p className="text-stone-700">{t('fields.merge_hint')}</p>
      <KeptFieldChoice rows={rows} kept={keptRow.id} onChange={setKept} />
      <div className="max-w-sm">
        <TextInput label={t('fields.merge_name')} value={name} placeholder={keptRow.name} maxLength={255} onChange={(e) => setName(e.target.value)} />
      </div>
      <div className="flex flex-wrap gap-2">
        <Button variant="danger" onClick={() => void merge()} busy={busy}>
          {t('fields.merge_apply', { count: rows.length })}
        </Button>
        <Button variant="secondary" onClick={onCancel} busy={busy}>
          {t('common.cancel')}
        </Button>
      </div>
      <ErrorMessage>{error}</ErrorMessage>
    </section>
  );
}

/** The field kept and the name it takes (empty: its own), and the merge of the others into it. */
function useMerge(rows: MergeCandidate[], onMerged: (field: MergedField, taken: number[]) => void) {
  const t = useTranslations();
  const [kept, setKept] = useState(() => defaultKept(rows));
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const keptRow = rows.find((r) => r.id === kept) ?? rows[0]!;

  async function merge() {
    setBusy(true);
    const ids = [keptRow.id, ...rows.filter((r) => r.id !== keptRow.id).map((r) => r.id)];
    const res = await api<{ field: MergedField }>('/api/fields/merge', { method: 'POST', body: { ids, ...(name.trim() ? { name: name.trim() } : {}) } });
    setBusy(false);
    if (!res.ok) {
      setError(res.error ?? t('common.network_error'));
      return;
    }
    onMerged(res.data.field, ids.slice(1));
  }
  return { keptRow, setKept, name, setName, busy, error, merge };
}

function KeptFieldChoice({ rows, kept, onChange }: { rows: MergeCandidate[]; kept: number; onChange: (id: number) => void }) {
  const t = useTranslations();
  const format = useFormatter();
  return (
    <fieldset className="space-y-1">
      <legend className="font-medium text-stone-700">{t('fields.merge_keep')}</legend>
      {rows.map((r) => (
        <label key={r.id} className="flex items-center gap-2">
          <input type="radio" name="merge-kept" checked={r.id === kept} onChange={() => onChange(r.id)} />
          <span>
            {r.name} · {t('common.ha', { value: format.number(r.area, 'hectares') })}
            {r.parcel_number ? ` · ${r.parcel_number}` : ''}
            {r.scanned ? ` · ${t('fields.merge_has_scans')}` : ''}
          </span>
        </label>
      ))}
    </fieldset>
  );
}
