'use client';
// The map page's workspace: the company's fields on a full-window map, with the layer panel and the
// legend over it and a side panel (a bottom sheet on a phone) for the selected field, the selection
// and the new field's form. Each job is a hook or a component of its own:
//   use-field-data.ts     reading the fields (simplified for the view in a large company)
//   use-field-layers.ts   the fields' polygons, their colours, the selection drawn heavier
//   use-field-editing.ts  drawing, editing and cutting boundaries, with the live area
//   use-escape-key.ts     Escape steps back out of what the map is doing
//   field-colors.ts       colouring by status/owner/index/crop, the legend's entries, tooltips
//   field-panels.tsx      what the side panel shows; layer-panel.tsx, field-legend.tsx over the map
import 'leaflet/dist/leaflet.css';
// Leaflet's global first: Leaflet-Geoman extends it when imported.
import './leaflet-global';
import '@geoman-io/leaflet-geoman-free';
import '@geoman-io/leaflet-geoman-free/dist/leaflet-geoman.css';
import { useTranslations } from 'next-intl';
import { useCallback, useMemo, useState } from 'react';
import { MapContainer } from 'react-leaflet';
import type L from 'leaflet';
import { api } from '@/lib/ui/api';
import type { BaseLayer, FieldFeature, OwnerOption } from '@/lib/ui/types';
import { FieldFinder } from '../ui/field-finder';
import { Button, ErrorMessage, SuccessMessage } from '../ui/form';
import { BaseTiles, MAP_MAX_ZOOM, ZoomButtons } from './base-map';
import { type ColorBy, type LatestScans, useFieldColors, useLegend } from './field-colors';
import { FieldLegend } from './field-legend';
import { type Abilities, FieldPanel, NewFieldPanel, SelectionPanel, SummaryPanel } from './field-panels';
import { LayerPanel } from './layer-panel';
import { MapBridge } from './map-bridge';
import { SelectedScanLayers, useSelectedScanLayers } from './selected-scan-layers';
import { SidePanel } from './side-panel';
import { useEscapeKey } from './use-escape-key';
import { useFieldData } from './use-field-data';
import { modeIds, useFieldEditing } from './use-field-editing';
import { FieldLayerStore, useFieldLayers } from './use-field-layers';

export interface FieldMapProps {
  /** The page's heading, at the top of the side panel. */
  title: string;
  /** A message for the top of the panel (a page the user's role may not open). */
  message?: string;
  /** The first view ([[south, west], [north, east]]): the field asked for, or all of them. */
  bounds?: [[number, number], [number, number]];
  owners: OwnerOption[];
  baseLayers: BaseLayer[];
  can: Abilities;
  focusId?: number;
  /** How many fields the company has: over 1,000 the map reads them simplified for the view (level-of-detail.ts). */
  fieldCount: number;
  latestScan: LatestScans;
}

const DEFAULT_CENTER: L.LatLngExpression = [48.7, 19.5];
const DEFAULT_ZOOM = 14;
const featureSearchText = (f: FieldFeature) => `${f.properties.name} ${f.properties.parcel_number ?? ''}`;

export default function FieldMap({ title, message, bounds, owners, baseLayers, can, focusId, fieldCount, latestScan }: FieldMapProps) {
  const t = useTranslations();
  const [map, setMap] = useState<L.Map | null>(null);
  const [store] = useState(() => new FieldLayerStore());
  const [error, setError] = useState<string | null>(message ?? null);
  const [notice, setNotice] = useState<string | null>(null);
  const [panelOpen, setPanelOpen] = useState<boolean | null>(null);
  const revealPanel = useCallback(() => setPanelOpen(true), []);

  // The fields selected, the first shown in the panel; Shift-click adds more (to total or merge them),
  // and so does a plain click or tap once "Select several" is on (a tablet has no Shift key).
  const [selection, setSelection] = useState<number[]>(focusId ? [focusId] : []);
  const [adding, setAdding] = useState(false);
  const select = useCallback(
    (id: number | null) => {
      setSelection(id === null ? [] : [id]);
      setAdding(false);
      // A tap on a field must show something: on a phone, the sheet opens.
      if (id !== null) revealPanel();
    },
    [revealPanel],
  );

  const [colorBy, setColorBy] = useState<ColorBy>('status');
  const [base, setBase] = useState(0);
  const [fieldsLayer, setFieldsLayer] = useState({ on: true, opacity: 1 });
  const colors = useFieldColors(colorBy, latestScan);

  const data = useFieldData({ map, fieldCount, store, onError: setError });
  const editing = useFieldEditing({ map, store, data, setError, setNotice, select, revealPanel });
  const { mode } = editing;

  const onFieldClick = (f: FieldFeature, shiftKey: boolean) => {
    if (mode.kind !== 'idle') return;
    // A message about the last action ("Field split into 2 parts") ends with the next one.
    setNotice(null);
    if (!(adding || shiftKey)) return select(f.id);
    const next = selection.includes(f.id) ? selection.filter((id) => id !== f.id) : [...selection, f.id];
    // The last field taken out ends "Select several", as closing the selection does.
    if (next.length === 0) select(null);
    else setSelection(next);
  };
  useFieldLayers({
    map,
    store,
    features: data.features,
    paint: colors.paint,
    selection,
    keep: () => [...selection, ...modeIds(mode)],
    tooltip: colors.tooltip,
    onClick: onFieldClick,
    visible: fieldsLayer.on,
    opacity: fieldsLayer.opacity,
  });

  useEscapeKey(() => {
    if (mode.kind === 'drawing' || mode.kind === 'splitting') editing.cancelDrawing();
    else if (mode.kind === 'editing') void editing.finishEditing(false);
    else if (mode.kind === 'idle') select(null);
  });

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

  const { features, loaded } = data;
  const selected = features.find((f) => f.id === selection[0]) ?? null;
  const chosen = selection.length > 1 ? features.filter((f) => selection.includes(f.id)) : [];
  // The finder names each field by `name`, as the list's properties hold it.
  const searchable = useMemo(() => features.map((f) => ({ ...f, name: f.properties.name })), [features]);
  const totalArea = features.reduce((s, f) => s + f.properties.area, 0);
  const legend = useLegend(features, colorBy, colors);
  // One field selected with a scan: that scan's mosaic, index and zones can go on the map.
  const selectedScan = selected && selection.length === 1 ? (latestScan[selected.id] ?? null) : null;
  const scanLayers = useSelectedScanLayers(selectedScan);
  const scanBounds = selected ? store.layers.get(selected.id)?.getBounds().pad(1) : undefined;
  const { ha } = colors;

  const toolbar =
    mode.kind === 'drawing' ? (
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
    ) : can.add && mode.kind === 'idle' ? (
      <Button onClick={() => void editing.startDrawing()}>{t('map.draw_field')}</Button>
    ) : null;

  return (
    <div className="relative flex min-h-0 flex-1 flex-col lg:flex-row" data-testid="map-workspace">
      <div className="relative min-h-0 flex-1" data-testid="field-map">
        {/* Over the map, not above it: a hint that pushed the map down moved the corners already
            placed from under the finger, and the tap meant to close the boundary missed. */}
        {(mode.kind === 'drawing' || mode.kind === 'editing' || mode.kind === 'splitting') && (
          <p role="status" className="pointer-events-none absolute top-2 right-2 left-14 z-[1001] rounded bg-amber-50/95 px-3 py-2 text-sm text-amber-900 shadow" data-testid="draw-hint">
            {mode.kind === 'drawing' ? t('map.draw_hint') : mode.kind === 'editing' ? t('map.edit_hint') : t('map.split_hint')}{' '}
            {mode.kind !== 'splitting' && editing.liveArea !== null && <strong data-testid="live-area">{t('map.area_live', { area: ha(editing.liveArea) })}</strong>}
          </p>
        )}
        <MapContainer
          {...(bounds ? { bounds, boundsOptions: { padding: [24, 24], maxZoom: 17 } } : { center: DEFAULT_CENTER, zoom: DEFAULT_ZOOM })}
          maxZoom={MAP_MAX_ZOOM}
          zoomControl={false}
          className="h-full w-full bg-stone-200"
          doubleClickZoom={false}
        >
          <BaseTiles layer={baseLayers[base]!} />
          <ZoomButtons />
          <MapBridge onReady={setMap} />
          {selectedScan && <SelectedScanLayers scan={selectedScan} state={scanLayers.state} bounds={scanBounds} />}
        </MapContainer>
        {mode.kind === 'idle' && (
          <LayerPanel
            baseLayers={baseLayers}
            base={base}
            onBase={setBase}
            overlays={[
              {
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
              },
              ...scanLayers.rows,
            ]}
          />
        )}
        {!loaded && !data.loadFailed && (
          <p role="status" className="absolute top-2 left-1/2 z-[1000] -translate-x-1/2 rounded bg-white/90 px-3 py-1 text-sm shadow" data-testid="map-loading">
            {t('map.loading_fields')}
          </p>
        )}
        {fieldsLayer.on && <FieldLegend entries={legend} />}
      </div>

      <SidePanel title={title} toolbar={toolbar} open={panelOpen} onOpen={setPanelOpen} label={t('map.panel')}>
        {mode.kind === 'idle' && features.length > 0 && (
          <FieldFinder
            label={t('map.find_field')}
            items={searchable}
            textOf={featureSearchText}
            detail={(f) => ha(f.properties.area)}
            onPick={(f) => {
              setNotice(null);
              select(f.id);
              const layer = store.layers.get(f.id);
              if (map && layer) map.fitBounds(layer.getBounds(), { padding: [24, 24], maxZoom: 17 });
            }}
          />
        )}
        <ErrorMessage>{error}</ErrorMessage>
        <SuccessMessage>{notice}</SuccessMessage>
        {mode.kind === 'new' ? (
          <NewFieldPanel editing={editing} owners={owners} ha={ha} />
        ) : selection.length > 1 && mode.kind === 'idle' ? (
          <SelectionPanel
            chosen={chosen}
            adding={adding}
            canMerge={can.delete}
            scanned={(id) => id in latestScan}
            ha={ha}
            onClose={() => select(null)}
            onMerged={async (field, taken) => {
              setError(null);
              setNotice(t('fields.merged', { count: taken.length + 1, name: field.name }));
              await data.refresh([field.id], taken);
              select(field.id);
            }}
          />
        ) : selected ? (
          <FieldPanel
            field={selected}
            editing={editing}
            can={can}
            adding={adding}
            ha={ha}
            statusLabel={colors.statusLabel}
            onClose={() => void closePanel()}
            onSelectSeveral={() => setAdding(true)}
            onDelete={() => remove(selected.id)}
          />
        ) : (
          <SummaryPanel loaded={loaded} loadFailed={data.loadFailed} count={features.length} totalArea={ha(totalArea)} can={can} onRetry={() => void data.retryLoad()} />
        )}
      </SidePanel>
    </div>
  );
}
