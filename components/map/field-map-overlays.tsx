'use client';
// What the map page shows over the map (the drawing's hint, the layer panel, "Loading fields…") and
// the drawing's buttons in the side panel's header.
import { useTranslations } from 'next-intl';
import type { BaseLayer } from '@/lib/ui/types';
import { Button } from '../ui/form';
import type { ColorBy } from './field-colors';
import { LayerPanel, type OverlayControl } from './layer-panel';
import type { FieldEditing } from './use-field-editing';
import type { LayerChoices } from './use-layer-choices';

/** While a boundary is drawn, edited or cut: what to do, and the area as it changes. */
export function DrawHint({ editing, ha }: { editing: FieldEditing; ha: (v: number) => string }) {
  const t = useTranslations();
  const { mode } = editing;
  if (mode.kind !== 'drawing' && mode.kind !== 'editing' && mode.kind !== 'splitting') return null;
  // Over the map, not above it: a hint that pushed the map down moved the corners already
  // placed from under the finger, and the tap meant to close the boundary missed.
  return (
    <p role="status" className="pointer-events-none absolute top-2 right-2 left-14 z-[1001] rounded bg-amber-50/95 px-3 py-2 text-sm text-amber-900 shadow" data-testid="draw-hint">
      {mode.kind === 'drawing' ? t('map.draw_hint') : mode.kind === 'editing' ? t('map.edit_hint') : t('map.split_hint')}{' '}
      {mode.kind !== 'splitting' && editing.liveArea !== null && <strong data-testid="live-area">{t('map.area_live', { area: ha(editing.liveArea) })}</strong>}
    </p>
  );
}

/** The side panel header's buttons: drawing a new field, or finishing, undoing and cancelling one. */
export function DrawToolbar({ editing, canAdd }: { editing: FieldEditing; canAdd: boolean }) {
  const t = useTranslations();
  const { mode } = editing;
  if (mode.kind === 'drawing')
    return (
      <>
        {/* For touch: closing on the first corner needs a precise tap, and a tablet has no Escape key. */}
        <Button onClick={editing.finishShape}>{t('map.finish_shape')}</Button>
        <Button variant="secondary" onClick={editing.undoPoint}>
          {t('map.undo_point')}
        </Button>
        <Button variant="secondary" onClick={editing.cancelDrawing}>
          {t('common.cancel')}
        </Button>
      </>
    );
  return canAdd && mode.kind === 'idle' ? <Button onClick={() => void editing.startDrawing()}>{t('map.draw_field')}</Button> : null;
}

/** The layer panel: the base map, the fields (with their colouring) and the selected scan's layers. */
export function FieldsLayerPanel({ baseLayers, choices, scanRows }: { baseLayers: BaseLayer[]; choices: LayerChoices; scanRows: OverlayControl[] }) {
  const t = useTranslations();
  const { colorBy, setColorBy, fieldsLayer, setFieldsLayer } = choices;
  const fields: OverlayControl = {
    id: 'fields',
    label: t('map.layer_fields'),
    ...fieldsLayer,
    onToggle: (on) => setFieldsLayer((l) => ({ ...l, on })),
    onOpacity: (opacity) => setFieldsLayer((l) => ({ ...l, opacity })),
    extra: (
      <label className="flex items-center gap-1.5 pl-5 text-xs">
        {t('map.color_by')}
        <select value={colorBy} onChange={(e) => setColorBy(e.target.value as ColorBy)} className="rounded border border-stone-300 bg-white px-1 py-0.5">
          <option value="status">{t('fields.status')}</option>
          <option value="owner">{t('fields.owner')}</option>
          <option value="index">{t('map.color_index')}</option>
          <option value="crop">{t('map.color_crop')}</option>
        </select>
      </label>
    ),
  };
  return <LayerPanel baseLayers={baseLayers} base={choices.base} onBase={choices.setBase} overlays={[fields, ...scanRows]} />;
}

export function MapLoading() {
  const t = useTranslations();
  return (
    <p role="status" className="absolute top-2 left-1/2 z-[1000] -translate-x-1/2 rounded bg-white/90 px-3 py-1 text-sm shadow" data-testid="map-loading">
      {t('map.loading_fields')}
    </p>
  );
}
