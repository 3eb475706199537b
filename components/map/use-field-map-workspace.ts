'use client';
import type L from 'leaflet';
import { useCallback, useState } from 'react';
import { type LatestScans, useFieldColors, useLegend } from './field-colors';
import { useSelectedScanLayers } from './selected-scan-layers';
import { useEscapeKey } from './use-escape-key';
import { useFieldActions } from './use-field-actions';
import { useFieldData } from './use-field-data';
import { modeIds, useFieldEditing } from './use-field-editing';
import { FieldLayerStore, useFieldLayers } from './use-field-layers';
import { useLayerChoices } from './use-layer-choices';
import { useMapSelection } from './use-map-selection';

interface WorkspaceOptions {
  message?: string;
  focusId?: number;
  fieldCount: number;
  latestScan: LatestScans;
}

export type FieldMapWorkspace = ReturnType<typeof useFieldMapWorkspace>;

/** The map page's state: the map, its fields read and drawn, the selection, the drawing and the panel's messages. */
export function useFieldMapWorkspace({ message, focusId, fieldCount, latestScan }: WorkspaceOptions) {
  const [map, setMap] = useState<L.Map | null>(null);
  const [store] = useState(() => new FieldLayerStore());
  const [error, setError] = useState<string | null>(message ?? null);
  const [notice, setNotice] = useState<string | null>(null);
  const [panelOpen, setPanelOpen] = useState<boolean | null>(null);
  const revealPanel = useCallback(() => setPanelOpen(true), []);
  const picked = useMapSelection(focusId, revealPanel);
  const { selection, select } = picked;
  const layerChoices = useLayerChoices();
  const colors = useFieldColors(layerChoices.colorBy, latestScan);

  // Their effects share the map and the store, and run in this order: reading, editing, drawing the fields.
  const data = useFieldData({ map, fieldCount, store, onError: setError });
  const editing = useFieldEditing({ map, store, data, setError, setNotice, select, revealPanel });
  const { mode } = editing;
  const actions = useFieldActions({ map, store, data, editing, select, setError, setNotice });
  useFieldLayers({
    map,
    store,
    features: data.features,
    paint: colors.paint,
    selection,
    keep: () => [...selection, ...modeIds(mode)],
    tooltip: colors.tooltip,
    onClick: (f, shiftKey) => {
      if (mode.kind !== 'idle') return;
      // A message about the last action ("Field split into 2 parts") ends with the next one.
      setNotice(null);
      picked.pick(f.id, shiftKey);
    },
    visible: layerChoices.fieldsLayer.on,
    opacity: layerChoices.fieldsLayer.opacity,
  });
  useEscapeKey(actions.escape);

  const { features } = data;
  const selected = features.find((f) => f.id === selection[0]) ?? null;
  const legend = useLegend(features, layerChoices.colorBy, colors);
  // One field selected with a scan: that scan's mosaic, index and zones can go on the map.
  const selectedScan = selected && selection.length === 1 ? (latestScan[selected.id] ?? null) : null;
  const scanLayers = useSelectedScanLayers(selectedScan);
  const scanBounds = selected ? store.layers.get(selected.id)?.getBounds().pad(1) : undefined;

  return { setMap, error, notice, panelOpen, setPanelOpen, picked, layerChoices, colors, data, editing, actions, selected, legend, selectedScan, scanLayers, scanBounds };
}
