'use client';
// The fields on the map: one polygon layer each in one group, coloured as the map is coloured, the
// selected ones drawn heavier, and, in a large company, only those near the view on the map.
import L from './leaflet-global';
import { type RefObject, useEffect, useRef } from 'react';
import { textElement } from '@/lib/ui/text-element';
import type { FieldFeature } from '@/lib/ui/types';
import { useLatest } from './use-latest';

/** Up to this many fields each is an SVG path of its own; more are painted on one canvas. */
const SVG_FIELDS_AT_MOST = 1000;
/** Around the view, the share of its size within which a large company's fields are kept on the map. */
export const NEAR_VIEW = 0.5;

/** The layers of the fields and what was read of them, shared by the hooks that read, draw and edit them. */
export class FieldLayerStore {
  readonly layers = new Map<number, L.Polygon>();
  /** The tolerance in metres each field's boundary was read at; none for one read as stored. */
  readonly tolerance = new Map<number, number>();
  private paintNow: (f: FieldFeature) => L.PathOptions = () => ({});
  /** A field's colours as the map is coloured now (read when layers are made or refined). */
  paint(f: FieldFeature): L.PathOptions {
    return this.paintNow(f);
  }
  setPaint(paint: (f: FieldFeature) => L.PathOptions) {
    this.paintNow = paint;
  }
}

/** A field's line and fill: heavier when selected, all scaled by the fields layer's opacity. */
const weightOf = (selected: boolean, opacity: number): L.PathOptions => ({ weight: selected ? 5 : 2, opacity, fillOpacity: (selected ? 0.5 : 0.35) * opacity });

/**
 * Puts on the map (in `group`) the layers near the view and takes the others off, when `cull` (a
 * large company); else all of them. Leaflet projects each layer on the map again at every zoom and
 * redraws it at every move: 10,000 fields of 50-200 corners took 0.6-1.9 s a zoom, the 400 or so near
 * the view at zoom 13 40-150 ms. The fields `keep` (selected, being edited) stay on the map.
 */
function placeLayers(map: L.Map, group: L.FeatureGroup, layers: ReadonlyMap<number, L.Polygon>, cull: boolean, keep: readonly number[]) {
  const near = cull ? map.getBounds().pad(NEAR_VIEW) : null;
  for (const [id, layer] of layers) {
    const wanted = !near || keep.includes(id) || near.intersects(layer.getBounds());
    if (wanted === group.hasLayer(layer)) continue;
    if (wanted) group.addLayer(layer);
    else group.removeLayer(layer);
  }
}

export interface FieldLayersOptions {
  map: L.Map | null;
  store: FieldLayerStore;
  features: FieldFeature[];
  paint: (f: FieldFeature) => L.PathOptions;
  /** The fields drawn heavier. */
  selection: number[];
  /** Fields kept on the map whatever the view: the selected ones and the one being edited. */
  keep: () => number[];
  tooltip: (f: FieldFeature) => string;
  onClick: (f: FieldFeature, shiftKey: boolean) => void;
  /** The fields layer's switch and opacity (layer panel). */
  visible: boolean;
  opacity: number;
}

/** The options the group's handlers and the layers' placing read as they are now (they outlive renders). */
type Handlers = RefObject<Pick<FieldLayersOptions, 'tooltip' | 'onClick' | 'keep' | 'opacity'>>;

/** The refs the hooks of the fields' layers share, made once for the component. */
interface LayerRefs {
  groupRef: RefObject<L.FeatureGroup | null>;
  /** Whether the layers were made for a large company (canvas, kept on the map near the view only). */
  manyRef: RefObject<boolean | null>;
  canvasRef: RefObject<L.Canvas | null>;
  /** The fields drawn as selected, so that a new selection restyles them and no others. */
  styledRef: RefObject<ReadonlySet<number>>;
  handlers: Handlers;
}

/** The group of all the fields' layers, with the one tooltip and the one click handler that serve them all. */
function fieldGroup(handlers: Handlers): L.FeatureGroup {
  return L.featureGroup()
    .bindTooltip((layer) => textElement(handlers.current.tooltip((layer as L.Polygon).feature as FieldFeature)), { sticky: true })
    .on('click', (e) => {
      const f = (e.propagatedFrom as L.Polygon).feature as FieldFeature | undefined;
      if (f) handlers.current.onClick(f, !!(e as L.LeafletMouseEvent).originalEvent?.shiftKey);
    });
}

/** Makes the layers of the fields new or changed in `features` and drops those of the fields no longer listed. */
function syncLayers(group: L.FeatureGroup, store: FieldLayerStore, features: FieldFeature[], renderer: L.Canvas | undefined, handlers: Handlers) {
  const layers = store.layers;
  const listed = new Set<number>();
  for (const f of features) {
    listed.add(f.id);
    const old = layers.get(f.id);
    if (old?.feature === f) continue;
    if (old) group.removeLayer(old);
    const latlngs = L.GeoJSON.coordsToLatLngs(f.geometry.coordinates, f.geometry.type === 'Polygon' ? 1 : 2);
    // Not a snapping target unless in view when drawing starts (snapTargets).
    const layer = L.polygon(latlngs, { ...store.paint(f), ...weightOf(false, handlers.current.opacity), className: `fm-field fm-field-${f.id}`, renderer, snapIgnore: true });
    layer.feature = f;
    layers.set(f.id, layer);
  }
  for (const [id, layer] of layers) {
    if (listed.has(id)) continue;
    group.removeLayer(layer);
    layers.delete(id);
  }
}

// A new colouring restyles the layers there are: re-making 10,000 of them took 3 s.
function useRepaint(store: FieldLayerStore, paint: (f: FieldFeature) => L.PathOptions) {
  useEffect(() => {
    store.setPaint(paint);
    for (const layer of store.layers.values()) layer.setStyle(paint(layer.feature as FieldFeature));
  }, [paint, store]);
}

// One tooltip and one click handler on the group serve all the fields, and a large company's are
// painted on one canvas: with 10,000 fields each drawn as its own SVG path, with its own tooltip,
// the map took 5 s to show them and half a second to follow a drag. A new list re-makes only the
// layers of the fields that changed (an edit reads only those again).
function useFieldPolygons(map: L.Map | null, store: FieldLayerStore, features: FieldFeature[], { groupRef, manyRef, canvasRef, styledRef, handlers }: LayerRefs) {
  useEffect(() => {
    if (!map) return;
    const group = (groupRef.current ??= fieldGroup(handlers));
    const many = features.length > SVG_FIELDS_AT_MOST;
    // Crossing the threshold changes every layer's renderer: all are made again.
    if (manyRef.current !== many) {
      group.clearLayers();
      store.layers.clear();
      styledRef.current = new Set();
      manyRef.current = many;
    }
    const renderer = many ? (canvasRef.current ??= L.canvas()) : undefined;
    syncLayers(group, store, features, renderer, handlers);
    placeLayers(map, group, store.layers, many, handlers.current.keep());
  }, [map, features, store, groupRef, manyRef, canvasRef, styledRef, handlers]);
}

// The layer panel's switch for the fields.
function useFieldsSwitch(map: L.Map | null, groupRef: LayerRefs['groupRef'], visible: boolean, features: FieldFeature[]) {
  useEffect(() => {
    const group = groupRef.current;
    if (!map || !group) return;
    if (visible) group.addTo(map);
    else group.remove();
  }, [map, visible, features, groupRef]);
}

// A large company's fields are on the map only near the view (placeLayers), put there again as the
// view changes: on `zoom`, which comes before Leaflet projects every layer on the map again.
function usePlacingOnMove(map: L.Map | null, store: FieldLayerStore, { groupRef, manyRef, handlers }: LayerRefs) {
  useEffect(() => {
    if (!map) return;
    const place = () => {
      if (groupRef.current) placeLayers(map, groupRef.current, store.layers, manyRef.current === true, handlers.current.keep());
    };
    map.on('zoom moveend', place);
    return () => {
      map.off('zoom moveend', place);
    };
  }, [map, store, groupRef, manyRef, handlers]);
}

// The selected fields are drawn heavier (only those whose look changes are restyled); a new opacity restyles all.
function useSelectionWeight(store: FieldLayerStore, styledRef: LayerRefs['styledRef'], { selection, features, paint, opacity }: Pick<FieldLayersOptions, 'selection' | 'features' | 'paint' | 'opacity'>) {
  const opacityRef = useRef(opacity);
  useEffect(() => {
    const all = opacityRef.current !== opacity;
    opacityRef.current = opacity;
    for (const [id, layer] of store.layers) if (all || (styledRef.current.has(id) && !selection.includes(id))) layer.setStyle(weightOf(selection.includes(id), opacity));
    const styled = new Set<number>();
    for (const id of selection) {
      const layer = store.layers.get(id);
      layer?.setStyle(weightOf(true, opacity));
      if (layer) styled.add(id);
    }
    styledRef.current = styled;
  }, [selection, features, paint, opacity, store, styledRef]);
}

export function useFieldLayers({ map, store, features, paint, selection, keep, tooltip, onClick, visible, opacity }: FieldLayersOptions): void {
  const groupRef = useRef<L.FeatureGroup | null>(null);
  const manyRef = useRef<boolean | null>(null);
  const canvasRef = useRef<L.Canvas | null>(null);
  const styledRef = useRef<ReadonlySet<number>>(new Set());
  const handlers = useLatest({ tooltip, onClick, keep, opacity });
  const refs: LayerRefs = { groupRef, manyRef, canvasRef, styledRef, handlers };

  useRepaint(store, paint);
  useFieldPolygons(map, store, features, refs);
  useFieldsSwitch(map, groupRef, visible, features);
  usePlacingOnMove(map, store, refs);
  useSelectionWeight(store, styledRef, { selection, features, paint, opacity });
}

/** Whether geoman should snap to fields, and which: those in view, unless so many that measuring against each at every move would freeze the map (10,000 fields: 1-1.7 s a move). */
export function snapTargets(map: L.Map, store: FieldLayerStore, snapAtMost: number, except?: number): boolean {
  const view = map.getBounds();
  let near = 0;
  for (const [id, layer] of store.layers) {
    const inView = id !== except && view.intersects(layer.getBounds());
    layer.options.snapIgnore = !inView;
    if (inView) near++;
  }
  return near <= snapAtMost;
}
