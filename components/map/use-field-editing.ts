'use client';
// Drawing a new field, editing a boundary and cutting a field with a line (Leaflet-Geoman), with the
// area shown as it changes: measured by fieldAreaHa, the function the server stores the area with.
import type L from './leaflet-global';
import { useTranslations } from 'next-intl';
import { useCallback, useEffect, useRef, useState } from 'react';
import { fieldAreaHa } from '@/lib/geo/area';
import { api } from '@/lib/ui/api';
import type { FieldGeometry } from '@/lib/ui/types';
import type { FieldPropsValues } from '../fields/field-props-form';
import { type FieldData, SNAP_FIELDS_AT_MOST } from './use-field-data';
import { type FieldLayerStore, snapTargets } from './use-field-layers';
import { useLatest } from './use-latest';

export type Mode = { kind: 'idle' } | { kind: 'drawing' } | { kind: 'new'; geometry: FieldGeometry } | { kind: 'editing'; id: number } | { kind: 'splitting'; id: number };

/** The fields a mode works on, kept on the map whatever the view. */
export const modeIds = (mode: Mode): number[] => (mode.kind === 'editing' || mode.kind === 'splitting' ? [mode.id] : []);

/** The area of a ring of corners (three at least), unrounded coordinates as the server gets them. */
function ringsArea(points: L.LatLng[]): number | null {
  if (points.length < 3) return null;
  const ring = points.map((p) => [p.lng, p.lat]);
  ring.push(ring[0]!);
  return fieldAreaHa({ type: 'Polygon', coordinates: [ring] });
}

/** A layer's area from its corners as they are: Leaflet rounds them to 6 decimals unless told not to, and the area it then gave differed from the saved one. */
const layerArea = (layer: L.Polygon) => fieldAreaHa(layer.toGeoJSON(false).geometry as FieldGeometry);

/** Geoman's polygon tool while it draws: its own toolbar finishes a shape and takes back a corner through it. */
const polygonTool = (map: L.Map | null) => (map?.pm.Draw as unknown as { Polygon?: { _finishShape(): void; _removeLastVertex(): void } } | undefined)?.Polygon;

/** Turns on geoman's editing of a field's corners, snapping to the fields in view but the field itself. */
function enableVertexEditing(map: L.Map, store: FieldLayerStore, layer: L.Polygon, id: number) {
  layer.pm.enable({ allowSelfIntersection: false, snappable: snapTargets(map, store, SNAP_FIELDS_AT_MOST, id) });
}

export interface FieldEditing {
  mode: Mode;
  liveArea: number | null;
  busy: boolean;
  startDrawing: () => Promise<void>;
  /** Geoman's polygon tool: its own toolbar finishes a shape and takes back a corner through these. */
  finishShape: () => void;
  undoPoint: () => void;
  cancelDrawing: () => void;
  saveNew: (values: FieldPropsValues) => Promise<void>;
  startSplitting: (id: number) => Promise<void>;
  startEditing: (id: number) => Promise<void>;
  finishEditing: (save: boolean) => Promise<void>;
}

interface Options {
  map: L.Map | null;
  store: FieldLayerStore;
  data: FieldData;
  setError: (message: string | null) => void;
  setNotice: (message: string | null) => void;
  /** Selects a field (null: none) once an action ends on it. */
  select: (id: number | null) => void;
  /** Brings the side panel into view, where the new field's form opens. */
  revealPanel: () => void;
}

export function useFieldEditing(options: Options): FieldEditing {
  const t = useTranslations();
  const state = useEditingState(options.revealPanel);
  useDrawingEvents(options.map, state);
  const context: EditingContext = { ...options, ...state, t };
  const { startDrawing, cancelDrawing, saveNew } = newFieldActions(context);
  const { startSplitting, splitAlong } = splitActions(context);
  const { splitRef } = state;
  useEffect(() => {
    splitRef.current = splitAlong;
  });
  const { startEditing, finishEditing } = boundaryActions(context);

  return {
    mode: state.mode,
    liveArea: state.liveArea,
    busy: state.busy,
    startDrawing,
    finishShape: () => polygonTool(options.map)?._finishShape(),
    undoPoint: () => polygonTool(options.map)?._removeLastVertex(),
    cancelDrawing,
    saveNew,
    startSplitting,
    startEditing,
    finishEditing,
  };
}

/** The mode, the live area and the busy flag, with the refs Leaflet's handlers read them by. */
function useEditingState(revealPanel: () => void) {
  const [mode, setMode] = useState<Mode>({ kind: 'idle' });
  const [liveArea, setLiveArea] = useState<number | null>(null);
  const [busy, setBusy] = useState(false);
  const modeRef = useRef<Mode>(mode);
  const drawnRef = useRef<L.Layer | null>(null);
  /** Whether the boundary being edited was changed at all. */
  const editedRef = useRef(false);
  // The ref is read by Leaflet's event handlers, which outlive renders: it changes with the state.
  const changeMode = useCallback((next: Mode) => {
    modeRef.current = next;
    setMode(next);
  }, []);
  /** Cuts the field along the line just drawn; read by Leaflet's create handler. */
  const splitRef = useRef<(id: number, line: L.Polyline) => Promise<void>>(async () => {});
  const revealRef = useLatest(revealPanel);

  const discardDrawn = () => {
    drawnRef.current?.remove();
    drawnRef.current = null;
  };
  const backToIdle = () => {
    changeMode({ kind: 'idle' });
    setLiveArea(null);
  };
  return { mode, liveArea, setLiveArea, busy, setBusy, modeRef, drawnRef, editedRef, changeMode, splitRef, revealRef, discardDrawn, backToIdle };
}

type EditingState = ReturnType<typeof useEditingState>;
/** What Leaflet's drawing handlers read and change: all stable, made once for the component. */
type DrawingRefs = Pick<EditingState, 'modeRef' | 'drawnRef' | 'splitRef' | 'revealRef' | 'changeMode' | 'setLiveArea'>;

/** A drawing's handlers: the live area while the corners are placed, then the new field's form (or the cut). */
function drawingHandlers({ modeRef, drawnRef, splitRef, revealRef, changeMode, setLiveArea }: DrawingRefs) {
  let working: L.Polyline | null = null;
  const update = (cursor?: L.LatLng) => {
    if (!working) return;
    const points = [...(working.getLatLngs() as L.LatLng[])];
    if (cursor) points.push(cursor);
    setLiveArea(ringsArea(points));
  };
  const onDrawStart = (e: { workingLayer: L.Layer }) => {
    working = e.workingLayer as L.Polyline;
    working.on('pm:vertexadded', () => update());
  };
  const onMove = (e: L.LeafletMouseEvent) => {
    if (modeRef.current.kind === 'drawing') update(e.latlng);
  };
  const onCreate = (e: { layer: L.Layer }) => {
    working = null;
    drawnRef.current = e.layer;
    const current = modeRef.current;
    if (current.kind === 'splitting') {
      void splitRef.current(current.id, e.layer as L.Polyline);
      return;
    }
    const geometry = (e.layer as L.Polygon).toGeoJSON(false).geometry as FieldGeometry;
    setLiveArea(fieldAreaHa(geometry));
    changeMode({ kind: 'new', geometry });
    // Once the form has rendered, for the panel to be tall enough to go to.
    setTimeout(() => revealRef.current(), 0);
  };
  const onDrawEnd = () => {
    working = null;
    if (modeRef.current.kind === 'drawing' || (modeRef.current.kind === 'splitting' && !drawnRef.current)) {
      changeMode({ kind: 'idle' });
      setLiveArea(null);
    }
  };
  return { onDrawStart, onMove, onCreate, onDrawEnd };
}

/** Listens to geoman's drawing on `map`; gives back what stops listening. */
function listenToDrawing(map: L.Map, refs: DrawingRefs): () => void {
  const { onDrawStart, onMove, onCreate, onDrawEnd } = drawingHandlers(refs);
  map.on('pm:drawstart', onDrawStart);
  map.on('mousemove', onMove as L.LeafletEventHandlerFn);
  map.on('pm:create', onCreate);
  map.on('pm:drawend', onDrawEnd);
  return () => {
    map.off('pm:drawstart', onDrawStart);
    map.off('mousemove', onMove as L.LeafletEventHandlerFn);
    map.off('pm:create', onCreate);
    map.off('pm:drawend', onDrawEnd);
  };
}

// Drawing: live area while the corners are placed, then the new field's form. Attached once a map
// is there (the other dependencies never change).
function useDrawingEvents(map: L.Map | null, { modeRef, drawnRef, splitRef, revealRef, changeMode, setLiveArea }: DrawingRefs) {
  useEffect(() => {
    if (!map) return;
    return listenToDrawing(map, { modeRef, drawnRef, splitRef, revealRef, changeMode, setLiveArea });
  }, [map, changeMode, modeRef, drawnRef, splitRef, revealRef, setLiveArea]);
}

/** What the editing's actions work with: the hook's options, its state of this render, the translations. */
type EditingContext = Options & EditingState & { t: ReturnType<typeof useTranslations> };

/** Drawing a new field: started, ended keeping nothing, or saved with the form's values. */
function newFieldActions({ map, store, data, mode, setError, setNotice, select, setLiveArea, changeMode, setBusy, discardDrawn, backToIdle, t }: EditingContext) {
  async function startDrawing() {
    if (!map) return;
    setError(null);
    setNotice(null);
    if (!(await data.exactBoundaries())) return;
    select(null);
    setLiveArea(null);
    changeMode({ kind: 'drawing' });
    map.pm.enableDraw('Polygon', {
      tooltips: false,
      snappable: snapTargets(map, store, SNAP_FIELDS_AT_MOST),
      allowSelfIntersection: false,
      templineStyle: { color: '#b45309' },
      hintlineStyle: { color: '#b45309', dashArray: [5, 5] },
      pathOptions: { color: '#b45309', fillColor: '#f59e0b', fillOpacity: 0.3 },
    });
  }

  /** Ends drawing a new field or a cutting line, keeping nothing of it. */
  function cancelDrawing() {
    map?.pm.disableDraw();
    discardDrawn();
    backToIdle();
  }

  async function saveNew(values: FieldPropsValues) {
    if (mode.kind !== 'new') return;
    setBusy(true);
    setError(null);
    const res = await api<{ id: number }>('/api/fields', { method: 'POST', body: { ...values, geometry: mode.geometry } });
    setBusy(false);
    if (!res.ok) {
      setError(res.error ?? t('common.network_error'));
      return;
    }
    discardDrawn();
    backToIdle();
    setNotice(t('map.field_created', { name: values.name }));
    await data.refresh([res.data.id]);
    select(res.data.id);
  }
  return { startDrawing, cancelDrawing, saveNew };
}

/** Cutting a field: drawing the line, then cutting along it once drawn (splitAlong, called by the create handler). */
function splitActions({ map, store, data, setError, setNotice, select, changeMode, setBusy, discardDrawn, backToIdle, t }: EditingContext) {
  async function startSplitting(id: number) {
    if (!map) return;
    setError(null);
    setNotice(null);
    if (!(await data.exactBoundaries(id))) return;
    discardDrawn();
    changeMode({ kind: 'splitting', id });
    map.pm.enableDraw('Line', {
      tooltips: false,
      snappable: snapTargets(map, store, SNAP_FIELDS_AT_MOST),
      templineStyle: { color: '#b91c1c' },
      hintlineStyle: { color: '#b91c1c', dashArray: [5, 5] },
      pathOptions: { color: '#b91c1c', weight: 3 },
    });
  }

  async function splitAlong(id: number, line: L.Polyline) {
    setBusy(true);
    const coordinates = (line.getLatLngs() as L.LatLng[]).map((p) => [p.lng, p.lat]);
    const res = await api<{ created: { id: number }[] }>(`/api/fields/${id}/split`, { method: 'POST', body: { line: { type: 'LineString', coordinates } } });
    setBusy(false);
    discardDrawn();
    backToIdle();
    if (!res.ok) {
      setError(res.error ?? t('common.network_error'));
      return;
    }
    setNotice(t('map.field_split', { count: res.data.created.length + 1 }));
    await data.refresh([id, ...res.data.created.map((c) => c.id)]);
    select(id);
  }
  return { startSplitting, splitAlong };
}

/** From now on, each change geoman makes to the boundary marks it changed and measures it again. */
function followEdits(layer: L.Polygon, editedRef: EditingState['editedRef'], setLiveArea: EditingState['setLiveArea']) {
  editedRef.current = false;
  layer.on('pm:markerdrag pm:edit pm:vertexremoved', () => {
    editedRef.current = true;
    setLiveArea(layerArea(layer));
  });
}

/** Editing a field's boundary: its corners made editable, then saved or put back as stored. */
function boundaryActions({ map, store, data, mode, busy, setError, setNotice, changeMode, setLiveArea, setBusy, editedRef, backToIdle, t }: EditingContext) {
  async function startEditing(id: number) {
    if (!map) return;
    setError(null);
    setNotice(null);
    if (!(await data.exactBoundaries(id))) return;
    const layer = store.layers.get(id);
    if (!layer) return;
    changeMode({ kind: 'editing', id });
    setLiveArea(layerArea(layer));
    enableVertexEditing(map, store, layer, id);
    followEdits(layer, editedRef, setLiveArea);
  }

  /** Ends editing a boundary: saved, or put back as stored. A save that fails stays in the edit. */
  async function finishEditing(save: boolean) {
    // While a save is under way its answer decides (Escape or × meanwhile would race it).
    if (mode.kind !== 'editing' || busy) return;
    const id = mode.id;
    const layer = store.layers.get(id);
    layer?.pm.disable();
    // Only a boundary that was changed is sent, unrounded: the same boundary sent back would be no
    // change, and a cadastral area stays.
    if (save && layer && editedRef.current) {
      setBusy(true);
      setError(null);
      const res = await api(`/api/fields/${id}`, { method: 'PUT', body: { geometry: layer.toGeoJSON(false).geometry } });
      setBusy(false);
      if (!res.ok) {
        // The corners moved are the user's work: a refusal (a self-intersection), a lost connection or
        // an ended session leaves them on the map, still editable, for a fix or another Save.
        setError(res.error ?? t('common.network_error'));
        if (map) enableVertexEditing(map, store, layer, id);
        return;
      }
      setNotice(t('map.boundary_saved'));
    }
    layer?.off('pm:markerdrag pm:edit pm:vertexremoved');
    backToIdle();
    // Reading the field again puts back the stored boundary after a cancel, and the new area after a
    // save (its layer is made again from it).
    await data.refresh([id]);
  }
  return { startEditing, finishEditing };
}

