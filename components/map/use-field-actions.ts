'use client';
import type L from 'leaflet';
import { useTranslations } from 'next-intl';
import { api } from '@/lib/ui/api';
import type { FieldFeature } from '@/lib/ui/types';
import type { FieldData } from './use-field-data';
import type { FieldEditing } from './use-field-editing';
import type { FieldLayerStore } from './use-field-layers';

interface FieldActionsOptions {
  map: L.Map | null;
  store: FieldLayerStore;
  data: FieldData;
  editing: FieldEditing;
  select: (id: number | null) => void;
  setError: (message: string | null) => void;
  setNotice: (message: string | null) => void;
}

export type FieldActions = ReturnType<typeof useFieldActions>;

/** What the side panel does to the fields: closes on them, deletes one, takes in a merge, steps back on Escape, finds one. */
export function useFieldActions({ map, store, data, editing, select, setError, setNotice }: FieldActionsOptions) {
  const t = useTranslations();
  const { mode } = editing;

  /** The panel's ×: steps out of an edit or a cut first, which would otherwise go on with no panel to end it. */
  async function closePanel() {
    if (editing.busy) return;
    if (mode.kind === 'editing') await editing.finishEditing(false);
    else if (mode.kind === 'splitting') editing.cancelDrawing();
    select(null);
  }

  async function remove(id: number) {
    setError(null);
    const res = await api(`/api/fields/${id}`, { method: 'DELETE' });
    if (!res.ok) {
      setError(res.error ?? t('common.network_error'));
      return;
    }
    select(null);
    setNotice(t('map.field_deleted'));
    await data.refresh([], [id]);
  }

  async function merged(field: { id: number; name: string }, taken: number[]) {
    setError(null);
    setNotice(t('fields.merged', { count: taken.length + 1, name: field.name }));
    await data.refresh([field.id], taken);
    select(field.id);
  }

  /** Escape steps back: out of a drawing or a cut, out of an edit unsaved, else out of the selection. */
  function escape() {
    if (mode.kind === 'drawing' || mode.kind === 'splitting') editing.cancelDrawing();
    else if (mode.kind === 'editing') void editing.finishEditing(false);
    else if (mode.kind === 'idle') select(null);
  }

  /** A field picked in the finder: selected, and the map brought to it. */
  function found(f: FieldFeature) {
    setNotice(null);
    select(f.id);
    const layer = store.layers.get(f.id);
    if (map && layer) map.fitBounds(layer.getBounds(), { padding: [24, 24], maxZoom: 17 });
  }

  return { closePanel, remove, merged, escape, found };
}
