'use client';
// What the map's side panel shows: the new field's form, several fields selected, one field's
// details and actions, or the summary of all of them.
import Link from 'next/link';
import { useTranslations } from 'next-intl';
import { type RefObject, useEffect, useRef } from 'react';
import type { FieldFeature, OwnerOption } from '@/lib/ui/types';
import { ConfirmButton } from '../ui/confirm-button';
import { Button } from '../ui/form';
import { FieldPropsForm } from '../fields/field-props-form';
import { MergeFields } from '../fields/merge-fields';
import type { FieldEditing, Mode } from './use-field-editing';

export interface Abilities {
  add: boolean;
  edit: boolean;
  delete: boolean;
}

export function NewFieldPanel({ editing, owners, ha }: { editing: FieldEditing; owners: OwnerOption[]; ha: (v: number) => string }) {
  const t = useTranslations();
  return (
    <section className="space-y-3 rounded-lg border border-amber-300 bg-white p-4">
      <h2 className="text-lg font-semibold">{t('map.new_field')}</h2>
      <p className="text-sm">
        {t('fields.area')}: <strong data-testid="new-area">{editing.liveArea !== null ? ha(editing.liveArea) : '—'}</strong>
      </p>
      <FieldPropsForm owners={owners} submitLabel={t('common.save')} busy={editing.busy} onSubmit={editing.saveNew} onCancel={editing.cancelDrawing} />
    </section>
  );
}

interface SelectionPanelProps {
  chosen: FieldFeature[];
  adding: boolean;
  canMerge: boolean;
  scanned: (id: number) => boolean;
  ha: (v: number) => string;
  onClose: () => void;
  onMerged: (field: { id: number; name: string }, taken: number[]) => Promise<void>;
}

/** Several fields Shift-clicked: their total area, and merging them for a role that may. */
export function SelectionPanel({ chosen, adding, canMerge, scanned, ha, onClose, onMerged }: SelectionPanelProps) {
  const t = useTranslations();
  return (
    <section className="space-y-3 rounded-lg border border-stone-200 bg-white p-4 text-sm" data-testid="selection-panel">
      <div className="flex items-start justify-between gap-2">
        <h2 className="text-lg font-semibold">{t('fields.selected', { count: chosen.length })}</h2>
        <button type="button" onClick={onClose} className="text-stone-600 hover:text-stone-900" aria-label={t('fields.clear_selection')}>
          ×
        </button>
      </div>
      {adding && <p className="text-stone-600">{t('map.select_several_hint')}</p>}
      <p>
        {t('fields.area')}: <strong data-testid="selection-area">{ha(chosen.reduce((sum, f) => sum + f.properties.area, 0))}</strong>
      </p>
      {canMerge && (
        <MergeFields
          key={chosen.map((f) => f.id).join()}
          rows={chosen.map((f) => ({ id: f.id, name: f.properties.name, area: f.properties.area, parcel_number: f.properties.parcel_number, scanned: scanned(f.id) }))}
          onCancel={onClose}
          onMerged={onMerged}
        />
      )}
    </section>
  );
}

interface FieldPanelProps {
  field: FieldFeature;
  editing: FieldEditing;
  can: Abilities;
  adding: boolean;
  ha: (v: number) => string;
  statusLabel: (status: string | null) => string;
  onClose: () => void;
  onSelectSeveral: () => void;
  onDelete: () => Promise<void>;
}

// Keyboard users keep their place: "Edit boundary" gives way to Save, and comes back when the edit
// ends (the buttons pressed are gone, and the focus fell to the page's start).
function useBoundaryFocus(modeKind: Mode['kind']) {
  const editBoundaryRef = useRef<HTMLButtonElement>(null);
  const saveBoundaryRef = useRef<HTMLButtonElement>(null);
  const wasEditing = useRef(false);
  useEffect(() => {
    const lost = !document.activeElement || document.activeElement === document.body;
    if (modeKind === 'editing') {
      wasEditing.current = true;
      if (lost) saveBoundaryRef.current?.focus();
    } else if (modeKind === 'idle' && wasEditing.current) {
      wasEditing.current = false;
      if (lost) editBoundaryRef.current?.focus();
    }
  }, [modeKind]);
  return { editBoundaryRef, saveBoundaryRef };
}

/** A field's area (live while its boundary is edited), owner, status and parcel number. */
function FieldFacts({ field, area, statusLabel }: { field: FieldFeature; area: string; statusLabel: (status: string | null) => string }) {
  const t = useTranslations();
  return (
    <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
      <dt className="text-stone-600">{t('fields.area')}</dt>
      <dd data-testid="panel-area">{area}</dd>
      <dt className="text-stone-600">{t('fields.owner')}</dt>
      <dd>{field.properties.owner ?? t('fields.no_owner')}</dd>
      <dt className="text-stone-600">{t('fields.status')}</dt>
      <dd>{statusLabel(field.properties.status)}</dd>
      <dt className="text-stone-600">{t('fields.parcel_number')}</dt>
      <dd>{field.properties.parcel_number || '—'}</dd>
    </dl>
  );
}

type FieldButtonsProps = Pick<FieldPanelProps, 'field' | 'editing' | 'can' | 'adding' | 'onSelectSeveral' | 'onDelete'> & {
  editBoundaryRef: RefObject<HTMLButtonElement | null>;
  saveBoundaryRef: RefObject<HTMLButtonElement | null>;
};

/** The field's buttons: Cancel while a cut is drawn, Save and Cancel while the boundary is edited, else what may be done with it. */
function FieldButtons({ editing, saveBoundaryRef, ...idle }: FieldButtonsProps) {
  const t = useTranslations();
  const { mode, busy } = editing;
  // Keyed: React would otherwise reuse a button of one row for another (Cancel becoming "Select
  // several"), the focus on it, and the focus would not go back to Edit boundary.
  if (mode.kind === 'splitting')
    return (
      <div key="splitting" className="flex flex-wrap gap-2">
        <Button variant="secondary" onClick={editing.cancelDrawing} disabled={busy}>
          {t('common.cancel')}
        </Button>
      </div>
    );
  if (mode.kind === 'editing')
    return (
      <div key="editing" className="flex flex-wrap gap-2">
        <Button ref={saveBoundaryRef} onClick={() => void editing.finishEditing(true)} busy={busy}>
          {t('map.save_boundary')}
        </Button>
        <Button variant="secondary" onClick={() => void editing.finishEditing(false)} busy={busy}>
          {t('common.cancel')}
        </Button>
      </div>
    );
  return <IdleFieldButtons key="idle" editing={editing} {...idle} />;
}

/** What may be done with a field: open its page, select several, edit or cut its boundary, delete it. */
function IdleFieldButtons({ field, editing, can, adding, onSelectSeveral, onDelete, editBoundaryRef }: Omit<FieldButtonsProps, 'saveBoundaryRef'>) {
  const t = useTranslations();
  return (
    <div className="flex flex-wrap gap-2">
      <Link href={`/fields/${field.id}`} className="rounded border border-stone-300 px-3 py-1.5 text-sm font-medium hover:bg-stone-100">
        {t('map.open_field')}
      </Link>
      {adding ? (
        <p className="basis-full text-sm text-stone-600">{t('map.select_several_hint')}</p>
      ) : (
        <Button variant="secondary" onClick={onSelectSeveral}>
          {t('map.select_several')}
        </Button>
      )}
      {can.edit && (
        <Button ref={editBoundaryRef} variant="secondary" onClick={() => void editing.startEditing(field.id)}>
          {t('map.edit_boundary')}
        </Button>
      )}
      {can.edit && (
        <Button variant="secondary" onClick={() => void editing.startSplitting(field.id)}>
          {t('map.split_field')}
        </Button>
      )}
      {can.delete && <ConfirmButton label={t('common.delete')} question={t('fields.delete_confirm', { name: field.properties.name })} onConfirm={onDelete} />}
    </div>
  );
}

/** One field's details, and what may be done with it: open its page, edit or cut its boundary, delete it. */
export function FieldPanel({ field, editing, can, adding, ha, statusLabel, onClose, onSelectSeveral, onDelete }: FieldPanelProps) {
  const t = useTranslations();
  const { mode, busy, liveArea } = editing;
  const { editBoundaryRef, saveBoundaryRef } = useBoundaryFocus(mode.kind);
  return (
    <section className="space-y-3 rounded-lg border border-stone-200 bg-white p-4" data-testid="field-panel">
      <div className="flex items-start justify-between gap-2">
        <h2 className="text-lg font-semibold break-words">{field.properties.name}</h2>
        <button type="button" onClick={onClose} aria-disabled={busy || undefined} className="text-stone-600 hover:text-stone-900" aria-label={t('common.close')}>
          ×
        </button>
      </div>
      <FieldFacts field={field} area={mode.kind === 'editing' && liveArea !== null ? ha(liveArea) : ha(field.properties.area)} statusLabel={statusLabel} />
      <FieldButtons
        field={field}
        editing={editing}
        can={can}
        adding={adding}
        onSelectSeveral={onSelectSeveral}
        onDelete={onDelete}
        editBoundaryRef={editBoundaryRef}
        saveBoundaryRef={saveBoundaryRef}
      />
    </section>
  );
}

/** No field selected: how many there are and what a click does, or, when the list could not be read, Try again. */
export function SummaryPanel({ loaded, loadFailed, count, totalArea, can, onRetry }: { loaded: boolean; loadFailed: boolean; count: number; totalArea: string; can: Abilities; onRetry: () => void }) {
  const t = useTranslations();
  // Merging needs the right to delete: a viewer is not offered it.
  const hint = count ? (can.delete ? t('map.click_hint') : t('map.click_hint_no_merge')) : can.add ? t('map.empty_hint_draw') : t('map.empty_hint');
  return (
    <section className="space-y-2 rounded-lg border border-stone-200 bg-white p-4 text-sm">
      {loadFailed && !loaded ? (
        <Button variant="secondary" onClick={onRetry}>
          {t('common.try_again')}
        </Button>
      ) : (
        <p data-testid="map-summary">{loaded ? t('map.summary', { count, area: totalArea }) : t('map.loading_fields')}</p>
      )}
      {loaded && <p className="text-stone-600" data-testid="map-hint">{hint}</p>}
    </section>
  );
}
