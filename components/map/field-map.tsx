'use client';
import 'leaflet/dist/leaflet.css';
import L from './leaflet-global';
import '@geoman-io/leaflet-geoman-free';
import '@geoman-io/leaflet-geoman-free/dist/leaflet-geoman.css';
import Link from 'next/link';
import { useFormatter, useTranslations } from 'next-intl';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { MapContainer, useMap } from 'react-leaflet';
import { isNamedCrop } from '@/lib/drone/crops';
import { geometryAreaHa } from '@/lib/geo/area';
import { INDEX_CLASSES, indexClass, zoneColor } from '@/lib/raster/ramp';
import { type ApiResult, api } from '@/lib/ui/api';
import { NO_VALUE_COLOR, UNSURE_CROP_COLOR, cropColor, ownerColor, statusColor, statusKey } from '@/lib/ui/status';
import { textElement } from '@/lib/ui/text-element';
import type { FieldCollection, FieldFeature, FieldGeometry, OwnerOption, TileSource } from '@/lib/ui/types';
import { ConfirmButton } from '../ui/confirm-button';
import { FieldFinder } from '../ui/field-finder';
import { Button, ErrorMessage, SuccessMessage } from '../ui/form';
import { FieldPropsForm, type FieldPropsValues } from '../fields/field-props-form';
import { MergeFields } from '../fields/merge-fields';
import { BaseTiles, MAP_MAX_ZOOM, ZoomButtons } from './base-map';
import { fieldsUrl, isCoarser, usesLevelOfDetail, viewTolerance } from './level-of-detail';

export interface FieldMapProps {
  /** The first view ([[south, west], [north, east]]): the field asked for, or all of them. */
  bounds?: [[number, number], [number, number]];
  owners: OwnerOption[];
  tiles: TileSource;
  can: { add: boolean; edit: boolean; delete: boolean };
  focusId?: number;
  /** How many fields the company has: over 1,000 the map reads them simplified for the view (level-of-detail.ts). */
  fieldCount: number;
  /** Each scanned field's latest scan (lib/fields/scans.ts): its index, mean and crop, by field id. */
  latestScan: Record<number, { index: string | null; mean: number | null; crop: string | null; cropUnsure: boolean }>;
}

type Mode = { kind: 'idle' } | { kind: 'drawing' } | { kind: 'new'; geometry: FieldGeometry } | { kind: 'editing'; id: number } | { kind: 'splitting'; id: number };
type ColorBy = 'status' | 'owner' | 'index' | 'crop';

const DEFAULT_CENTER: L.LatLngExpression = [48.7, 19.5];
const DEFAULT_ZOOM = 14;
const readFields = (tolerance = 0, window?: L.LatLngBounds) =>
  api<FieldCollection>(fieldsUrl(tolerance, window && [window.getWest(), window.getSouth(), window.getEast(), window.getNorth()]));
/** The tolerance (metres) to read boundaries at for the map's view now. */
const mapTolerance = (map: L.Map) => viewTolerance(map.getZoom(), map.getCenter().lat);

/** Up to this many fields each is an SVG path of its own; more are painted on one canvas. */
const SVG_FIELDS_AT_MOST = 1000;
/**
 * Drawing or editing snaps to the fields in view when there are at most this many: geoman measures
 * the cursor against every corner of each at every move.
 */
const SNAP_FIELDS_AT_MOST = 300;
/** Around the view, the share of its size within which a large company's fields are kept on the map. */
const NEAR_VIEW = 0.5;

/** The fields a mode works on, kept on the map whatever the view. */
const modeIds = (mode: Mode): number[] => (mode.kind === 'editing' || mode.kind === 'splitting' ? [mode.id] : []);

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

/** A field as GET /api/fields/{id} answers it. */
interface FieldDetail {
  id: number;
  name: string;
  area: number;
  owner: { id: number; name: string } | null;
  status: string | null;
  parcel_number: string | null;
  geometry: FieldGeometry;
}

const toFeature = (f: FieldDetail): FieldFeature => ({
  type: 'Feature',
  id: f.id,
  properties: { name: f.name, area: f.area, owner: f.owner?.name ?? null, owner_id: f.owner?.id ?? null, status: f.status, parcel_number: f.parcel_number },
  geometry: f.geometry,
});

const featureSearchText = (f: FieldFeature) => `${f.properties.name} ${f.properties.parcel_number ?? ''}`;

function ringsArea(points: L.LatLng[]): number | null {
  if (points.length < 3) return null;
  const ring = points.map((p) => [p.lng, p.lat]);
  ring.push(ring[0]!);
  return geometryAreaHa({ type: 'Polygon', coordinates: [ring] });
}

function layerArea(layer: L.Polygon): number {
  return geometryAreaHa(layer.toGeoJSON().geometry as FieldGeometry);
}

/** Hands the Leaflet map to the parent once it exists. */
function MapBridge({ onReady }: { onReady: (map: L.Map) => void }) {
  const map = useMap();
  useEffect(() => onReady(map), [map, onReady]);
  return null;
}

export default function FieldMap({ bounds, owners, tiles, can, focusId, fieldCount, latestScan }: FieldMapProps) {
  const t = useTranslations();
  const format = useFormatter();
  const [map, setMap] = useState<L.Map | null>(null);
  const [features, setFeatures] = useState<FieldFeature[]>([]);
  const [loaded, setLoaded] = useState(false);
  /** The list could not be read (no server, a session ended): "Loading fields…" gives way to the error and a retry. */
  const [loadFailed, setLoadFailed] = useState(false);
  // The fields selected, the first shown in the panel; Shift-click adds more (to total or merge them),
  // and so does a plain click or tap once "Select several" is on (a tablet has no Shift key).
  const [selection, setSelection] = useState<number[]>(focusId ? [focusId] : []);
  const selectedId = selection[0] ?? null;
  const [adding, setAdding] = useState(false);
  /** The selection as the map's click handler, which outlives renders, reads it. */
  const selectionRef = useRef(selection);
  useEffect(() => {
    selectionRef.current = selection;
  }, [selection]);
  /** Read by the map's click handler, which outlives renders. */
  const addingRef = useRef(false);
  /** Whether the boundary being edited was changed at all. */
  const editedRef = useRef(false);
  /** The side panel: below the map on a phone, where a field's details would open out of sight. */
  const panelRef = useRef<HTMLElement | null>(null);
  const setSelectedId = useCallback((id: number | null) => {
    setSelection(id === null ? [] : [id]);
    addingRef.current = false;
    setAdding(false);
    // A tap on a field must show something: when the panel starts below the screen, go to it.
    const panel = panelRef.current;
    if (id !== null && panel && panel.getBoundingClientRect().top > window.innerHeight * 0.75) {
      requestAnimationFrame(() => panel.scrollIntoView({ block: 'start', behavior: window.matchMedia('(prefers-reduced-motion: reduce)').matches ? 'auto' : 'smooth' }));
    }
  }, []);
  const startAdding = useCallback(() => {
    addingRef.current = true;
    setAdding(true);
  }, []);
  const [colorBy, setColorBy] = useState<ColorBy>('status');
  const [mode, setMode] = useState<Mode>({ kind: 'idle' });
  const [liveArea, setLiveArea] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const groupRef = useRef<L.FeatureGroup | null>(null);
  const layersRef = useRef(new Map<number, L.Polygon>());
  /** A large company's boundaries are read simplified for the view (level-of-detail.ts). */
  const detail = usesLevelOfDetail(fieldCount);
  /** The tolerance in metres each field's boundary was read at; none for one read as stored. */
  const toleranceRef = useRef(new Map<number, number>());
  /** Whether the layers were made for a large company (canvas, kept on the map near the view only). */
  const manyRef = useRef<boolean | null>(null);
  /** The fields drawn as selected, so that a new selection restyles them and no others. */
  const styledRef = useRef<ReadonlySet<number>>(new Set());
  const canvasRef = useRef<L.Canvas | null>(null);
  const drawnRef = useRef<L.Layer | null>(null);
  const modeRef = useRef<Mode>(mode);
  /** Cuts the field along the line just drawn; read by Leaflet's create handler, which outlives renders. */
  const splitRef = useRef<(id: number, line: L.Polyline) => Promise<void>>(async () => {});
  // The ref is read by Leaflet's event handlers, which outlive renders: it changes with the state.
  const changeMode = useCallback((next: Mode) => {
    modeRef.current = next;
    setMode(next);
  }, []);

  const ha = useCallback((value: number) => t('common.ha', { value: format.number(value, 'hectares') }), [t, format]);
  const indexValue = useCallback((v: number) => format.number(v, { minimumFractionDigits: 2, maximumFractionDigits: 2 }), [format]);
  const cropName = useCallback((c: string) => (isNamedCrop(c) ? t(`drone.crops.${c}`) : c), [t]);
  // Read by the map's one tooltip, which outlives renders.
  const tooltipRef = useRef((f: FieldFeature) => f.properties.name);
  useEffect(() => {
    tooltipRef.current = (f) => {
      const scan = latestScan[f.id];
      const index = scan?.mean == null ? '' : ` · ${(scan.index ?? '').toUpperCase()} ${format.number(scan.mean, { minimumFractionDigits: 3, maximumFractionDigits: 3 })}`;
      const crop = scan?.crop ? ` · ${scan.cropUnsure ? t('map.crop_guess', { crop: cropName(scan.crop) }) : cropName(scan.crop)}` : '';
      return `${f.properties.name} · ${ha(f.properties.area)}${index}${crop}`;
    };
  }, [ha, format, latestScan, cropName, t]);
  const colorOf = useCallback(
    (f: FieldFeature) => {
      if (colorBy === 'status') return statusColor(f.properties.status);
      if (colorBy === 'owner') return ownerColor(f.properties.owner);
      const scan = latestScan[f.id];
      // A guess too close to call is not coloured as that crop: the map shows crops as facts.
      if (colorBy === 'crop') return scan?.crop && scan.cropUnsure ? UNSURE_CROP_COLOR : cropColor(scan?.crop);
      return scan?.mean != null ? zoneColor(indexClass(scan.mean), INDEX_CLASSES) : NO_VALUE_COLOR;
    },
    [colorBy, latestScan],
  );
  const statusLabel = useCallback(
    (status: string | null) => {
      const key = statusKey(status);
      return key ? t(`fields.status_values.${key}`) : status || t('fields.no_status');
    },
    [t],
  );

  const showList = useCallback(
    (res: ApiResult<FieldCollection>, tolerance: number) => {
      if (res.ok) {
        toleranceRef.current = new Map(tolerance > 0 ? res.data.features.map((f) => [f.id, tolerance]) : []);
        setFeatures(res.data.features);
        setLoaded(true);
        setLoadFailed(false);
      } else {
        setError(res.error ?? t('common.network_error'));
        setLoadFailed(true);
      }
    },
    [t],
  );
  const reload = useCallback(async () => {
    const tolerance = detail && map ? mapTolerance(map) : 0;
    showList(await readFields(tolerance), tolerance);
  }, [showList, detail, map]);
  /**
   * After an edit, reads again only the fields it changed (`ids`) and leaves out those it removed
   * (`gone`): the whole list is 9.5 MB for 10,000 fields, and each of its layers was made again. A
   * failed read falls back on the whole list.
   */
  const refresh = useCallback(
    async (ids: number[], gone: number[] = []) => {
      const read = await Promise.all(ids.map((id) => api<FieldDetail>(`/api/fields/${id}`)));
      if (read.some((r) => !r.ok && r.status !== 404)) return reload();
      const fresh = new Map<number, FieldFeature>();
      const removed = new Set(gone);
      read.forEach((r, i) => (r.ok ? fresh.set(ids[i]!, toFeature(r.data)) : removed.add(ids[i]!)));
      for (const id of [...fresh.keys(), ...removed]) toleranceRef.current.delete(id);
      setFeatures((all) => {
        const next = all.filter((f) => !removed.has(f.id)).map((f) => fresh.get(f.id) ?? f);
        const known = new Set(all.map((f) => f.id));
        for (const [id, f] of fresh) if (!known.has(id)) next.push(f);
        return next;
      });
    },
    [reload],
  );

  // The fields come from the API, not inside the page, so that the page opens at once however many
  // there are; the view is already where they are (`bounds`). A large company's are read simplified
  // for the first view's zoom, which waits for the map.
  const firstView = detail ? map : null;
  useEffect(() => {
    if (detail && !firstView) return;
    let current = true;
    const tolerance = firstView ? mapTolerance(firstView) : 0;
    void readFields(tolerance).then((res) => {
      if (current) showList(res, tolerance);
    });
    return () => {
      current = false;
    };
  }, [detail, firstView, showList]);

  /**
   * Puts the boundaries of `fresh`, read at `tolerance` (0: as stored), in place of those read
   * coarser, in their layers as they are (a layer geoman edits is not made again under it). Fields
   * the map does not have are left out.
   */
  const refine = useCallback((fresh: FieldFeature[], tolerance: number) => {
    const finer = new Map<number, FieldFeature>();
    for (const f of fresh) {
      const layer = layersRef.current.get(f.id);
      if (!layer || !isCoarser(toleranceRef.current.get(f.id) ?? 0, tolerance)) continue;
      if (tolerance > 0) toleranceRef.current.set(f.id, tolerance);
      else toleranceRef.current.delete(f.id);
      layer.setLatLngs(L.GeoJSON.coordsToLatLngs(f.geometry.coordinates, f.geometry.type === 'Polygon' ? 1 : 2));
      layer.setStyle(paintRef.current(f));
      layer.feature = f;
      finer.set(f.id, f);
    }
    if (finer.size) setFeatures((all) => all.map((f) => finer.get(f.id) ?? f));
  }, []);

  // Zoomed in, the fields near the view are read again at the finer tolerance the view wants and
  // replace the coarse ones (a later move supersedes a read still under way).
  useEffect(() => {
    if (!map || !detail || !loaded) return;
    let latest = 0;
    const onMove = () => {
      const tolerance = mapTolerance(map);
      const near = map.getBounds().pad(NEAR_VIEW);
      const coarse = [...layersRef.current].some(([id, layer]) => isCoarser(toleranceRef.current.get(id) ?? 0, tolerance) && near.intersects(layer.getBounds()));
      if (!coarse) return;
      const read = ++latest;
      void readFields(tolerance, near).then((res) => {
        if (res.ok && read === latest) refine(res.data.features, tolerance);
      });
    };
    map.on('moveend', onMove);
    return () => {
      latest = -1;
      map.off('moveend', onMove);
    };
  }, [map, detail, loaded, refine]);

  // The colours of a field's layer as the map is coloured now.
  const paint = useCallback(
    (f: FieldFeature) => {
      const color = colorOf(f);
      // The index ramp's middle classes are near white: outlined in their own colour, such fields
      // vanished against the map (1.03:1). Index classes get a dark outline and the colour inside.
      return { color: colorBy === 'index' ? '#1c1917' : color, fillColor: color };
    },
    [colorOf, colorBy],
  );
  /** Read when layers are made, so that a new list does not wait for the colouring to change. */
  const paintRef = useRef(paint);
  // A new colouring restyles the layers there are: re-making 10,000 of them took 3 s.
  useEffect(() => {
    paintRef.current = paint;
    for (const layer of layersRef.current.values()) layer.setStyle(paint(layer.feature as FieldFeature));
  }, [paint]);

  // Field polygons: one tooltip and one click handler on the group serve them all, and a large
  // company's are painted on one canvas: with 10,000 fields each drawn as its own SVG path, with its
  // own tooltip, the map took 5 s to show them and half a second to follow a drag. A new list
  // re-makes only the layers of the fields that changed (an edit reads only those again).
  useEffect(() => {
    if (!map) return;
    const group = (groupRef.current ??= L.featureGroup()
      .bindTooltip((layer) => textElement(tooltipRef.current((layer as L.Polygon).feature as FieldFeature)), { sticky: true })
      .on('click', (e) => {
        const f = (e.propagatedFrom as L.Polygon).feature as FieldFeature | undefined;
        if (!f || modeRef.current.kind !== 'idle') return;
        // A message about the last action ("Field split into 2 parts") ends with the next one.
        setNotice(null);
        if (!(addingRef.current || (e as L.LeafletMouseEvent).originalEvent?.shiftKey)) {
          setSelectedId(f.id);
          return;
        }
        const was = selectionRef.current;
        const next = was.includes(f.id) ? was.filter((id) => id !== f.id) : [...was, f.id];
        // The last field taken out ends "Select several", as closing the selection does.
        if (next.length === 0) setSelectedId(null);
        else setSelection(next);
      })
      .addTo(map));
    const layers = layersRef.current;
    const many = features.length > SVG_FIELDS_AT_MOST;
    // Crossing the threshold changes every layer's renderer: all are made again.
    if (manyRef.current !== many) {
      group.clearLayers();
      layers.clear();
      styledRef.current = new Set();
      manyRef.current = many;
    }
    const renderer = many ? (canvasRef.current ??= L.canvas()) : undefined;
    const listed = new Set<number>();
    for (const f of features) {
      listed.add(f.id);
      const old = layers.get(f.id);
      if (old?.feature === f) continue;
      if (old) group.removeLayer(old);
      const latlngs = L.GeoJSON.coordsToLatLngs(f.geometry.coordinates, f.geometry.type === 'Polygon' ? 1 : 2);
      // Not a snapping target unless in view when drawing starts (snapTargets).
      const layer = L.polygon(latlngs, { ...paintRef.current(f), weight: 2, fillOpacity: 0.35, className: `fm-field fm-field-${f.id}`, renderer, snapIgnore: true });
      layer.feature = f;
      layers.set(f.id, layer);
    }
    for (const [id, layer] of layers) {
      if (listed.has(id)) continue;
      group.removeLayer(layer);
      layers.delete(id);
    }
    placeLayers(map, group, layers, many, [...selectionRef.current, ...modeIds(modeRef.current)]);
  }, [map, features, setSelectedId]);

  // A large company's fields are on the map only near the view (placeLayers), put there again as the
  // view changes: on `zoom`, which comes before Leaflet projects every layer on the map again.
  useEffect(() => {
    if (!map) return;
    const place = () => {
      if (groupRef.current) placeLayers(map, groupRef.current, layersRef.current, manyRef.current === true, [...selectionRef.current, ...modeIds(modeRef.current)]);
    };
    map.on('zoom moveend', place);
    return () => {
      map.off('zoom moveend', place);
    };
  }, [map]);

  /**
   * Before an edit, a cut or a drawing, a large company's boundaries it works with are read as stored
   * where they were read simplified: the field `id`, and the fields in view when they are few enough
   * to snap to (snapTargets). False when a read failed (its message is shown).
   */
  async function exactBoundaries(id?: number): Promise<boolean> {
    if (!map) return false;
    const coarse = (fid: number) => toleranceRef.current.has(fid);
    const view = map.getBounds();
    const inView = [...layersRef.current].filter(([fid, layer]) => fid !== id && view.intersects(layer.getBounds())).map(([fid]) => fid);
    const [one, near] = await Promise.all([
      id !== undefined && coarse(id) ? api<FieldDetail>(`/api/fields/${id}`) : null,
      inView.length <= SNAP_FIELDS_AT_MOST && inView.some(coarse) ? readFields(0, view) : null,
    ]);
    const failed = [one, near].find((r) => r && !r.ok);
    if (failed && !failed.ok) {
      setError(failed.error ?? t('common.network_error'));
      return false;
    }
    refine([...(one?.ok ? [toFeature(one.data)] : []), ...(near?.ok ? near.data.features : [])], 0);
    return true;
  }

  /**
   * Whether geoman should snap to fields, and which: those in view, unless there are so many that
   * measuring against each at every move would freeze the map (10,000 fields: 1-1.7 s a move).
   */
  function snapTargets(except?: number): boolean {
    if (!map) return false;
    const view = map.getBounds();
    let near = 0;
    for (const [id, layer] of layersRef.current) {
      const inView = id !== except && view.intersects(layer.getBounds());
      layer.options.snapIgnore = !inView;
      if (inView) near++;
    }
    return near <= SNAP_FIELDS_AT_MOST;
  }

  // The selected fields are drawn heavier (only those whose look changes are restyled).
  useEffect(() => {
    for (const id of styledRef.current) if (!selection.includes(id)) layersRef.current.get(id)?.setStyle({ weight: 2, fillOpacity: 0.35 });
    const styled = new Set<number>();
    for (const id of selection) {
      const layer = layersRef.current.get(id);
      layer?.setStyle({ weight: 5, fillOpacity: 0.5 });
      if (layer) styled.add(id);
    }
    styledRef.current = styled;
  }, [selection, features, colorBy]);

  // Drawing: live area while the corners are placed, then the new field's form.
  useEffect(() => {
    if (!map) return;
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
      const geometry = (e.layer as L.Polygon).toGeoJSON().geometry as FieldGeometry;
      setLiveArea(geometryAreaHa(geometry));
      changeMode({ kind: 'new', geometry });
      // The new field's form opens in the panel: on a phone, below the map and out of sight, go to it
      // (once it has rendered, for the page to be long enough to scroll to it).
      const panel = panelRef.current;
      if (panel && panel.getBoundingClientRect().top > window.innerHeight * 0.75) {
        setTimeout(() => panel.scrollIntoView({ block: 'start', behavior: window.matchMedia('(prefers-reduced-motion: reduce)').matches ? 'auto' : 'smooth' }), 0);
      }
    };
    const onDrawEnd = () => {
      working = null;
      if (modeRef.current.kind === 'drawing' || (modeRef.current.kind === 'splitting' && !drawnRef.current)) {
        changeMode({ kind: 'idle' });
        setLiveArea(null);
      }
    };
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
  }, [map, changeMode]);

  async function startDrawing() {
    if (!map) return;
    setError(null);
    setNotice(null);
    if (detail && !(await exactBoundaries())) return;
    setSelectedId(null);
    setLiveArea(null);
    changeMode({ kind: 'drawing' });
    map.pm.enableDraw('Polygon', {
      tooltips: false,
      snappable: snapTargets(),
      allowSelfIntersection: false,
      templineStyle: { color: '#b45309' },
      hintlineStyle: { color: '#b45309', dashArray: [5, 5] },
      pathOptions: { color: '#b45309', fillColor: '#f59e0b', fillOpacity: 0.3 },
    });
  }

  /** Geoman's polygon tool, whose own toolbar finishes a shape and takes back a corner through these. */
  function drawTool() {
    return (map?.pm.Draw as unknown as { Polygon?: { _finishShape(): void; _removeLastVertex(): void } } | undefined)?.Polygon;
  }

  function discardDrawn() {
    drawnRef.current?.remove();
    drawnRef.current = null;
  }

  /** Ends drawing a new field or a cutting line, keeping nothing of it. */
  function cancelDrawing() {
    map?.pm.disableDraw();
    discardDrawn();
    changeMode({ kind: 'idle' });
    setLiveArea(null);
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
    changeMode({ kind: 'idle' });
    setLiveArea(null);
    setNotice(t('map.field_created', { name: values.name }));
    await refresh([res.data.id]);
    setSelectedId(res.data.id);
  }

  async function startSplitting(id: number) {
    if (!map) return;
    setError(null);
    setNotice(null);
    if (detail && !(await exactBoundaries(id))) return;
    discardDrawn();
    changeMode({ kind: 'splitting', id });
    map.pm.enableDraw('Line', {
      tooltips: false,
      snappable: snapTargets(),
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
    changeMode({ kind: 'idle' });
    setLiveArea(null);
    if (!res.ok) {
      setError(res.error ?? t('common.network_error'));
      return;
    }
    setNotice(t('map.field_split', { count: res.data.created.length + 1 }));
    await refresh([id, ...res.data.created.map((c) => c.id)]);
    setSelectedId(id);
  }
  useEffect(() => {
    splitRef.current = splitAlong;
  });

  // Keyboard users keep their place: "Edit boundary" gives way to Save, and comes back when the edit
  // ends (the buttons pressed are gone, and the focus fell to the page's start), as FieldEditPanel does.
  const editBoundaryRef = useRef<HTMLButtonElement>(null);
  const saveBoundaryRef = useRef<HTMLButtonElement>(null);
  const refocusEditRef = useRef(false);
  useEffect(() => {
    const lost = !document.activeElement || document.activeElement === document.body;
    if (mode.kind === 'editing') {
      if (lost) saveBoundaryRef.current?.focus();
    } else if (mode.kind === 'idle' && refocusEditRef.current) {
      refocusEditRef.current = false;
      if (lost) editBoundaryRef.current?.focus();
    }
  }, [mode.kind]);

  async function startEditing(id: number) {
    setError(null);
    setNotice(null);
    if (detail && !(await exactBoundaries(id))) return;
    const layer = layersRef.current.get(id);
    if (!layer) return;
    changeMode({ kind: 'editing', id });
    setLiveArea(layerArea(layer));
    layer.pm.enable({ allowSelfIntersection: false, snappable: snapTargets(id) });
    editedRef.current = false;
    const update = () => {
      editedRef.current = true;
      setLiveArea(layerArea(layer));
    };
    layer.on('pm:markerdrag pm:edit pm:vertexremoved', update);
  }

  // Escape steps back out of what the map is doing: a drawing or a cut, an edit (unsaved), a selection.
  // Not while typing: Escape in the new field's form must not throw the drawn boundary away.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || (e.target as HTMLElement | null)?.closest('input, select, textarea')) return;
      if (mode.kind === 'drawing' || mode.kind === 'splitting') cancelDrawing();
      else if (mode.kind === 'editing') void finishEditing(false);
      else if (mode.kind === 'idle') setSelectedId(null);
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  });

  /** Ends editing a boundary: saved, or put back as stored. A save that fails stays in the edit. */
  async function finishEditing(save: boolean) {
    // While a save is under way its answer decides (Escape or × meanwhile would race it).
    if (mode.kind !== 'editing' || busy) return;
    const id = mode.id;
    const layer = layersRef.current.get(id);
    layer?.pm.disable();
    // Only a boundary that was changed is sent, unrounded (Leaflet rounds to 6 decimals unless told
    // not to): the same boundary sent back would be no change, and a cadastral area stays.
    if (save && layer && editedRef.current) {
      setBusy(true);
      setError(null);
      const res = await api(`/api/fields/${id}`, { method: 'PUT', body: { geometry: layer.toGeoJSON(false).geometry } });
      setBusy(false);
      if (!res.ok) {
        // The corners moved are the user's work: a refusal (a self-intersection), a lost connection or
        // an ended session leaves them on the map, still editable, for a fix or another Save.
        setError(res.error ?? t('common.network_error'));
        layer.pm.enable({ allowSelfIntersection: false, snappable: snapTargets(id) });
        return;
      }
      setNotice(t('map.boundary_saved'));
    }
    layer?.off('pm:markerdrag pm:edit pm:vertexremoved');
    refocusEditRef.current = true;
    changeMode({ kind: 'idle' });
    setLiveArea(null);
    // Reading the field again puts back the stored boundary after a cancel, and the new area after a
    // save (its layer is made again from it).
    await refresh([id]);
  }

  /** The panel's ×: steps out of an edit or a cut first, which would otherwise go on with no panel to end it. */
  async function closePanel() {
    if (busy) return;
    if (mode.kind === 'editing') await finishEditing(false);
    else if (mode.kind === 'splitting') cancelDrawing();
    setSelectedId(null);
  }

  async function remove(id: number) {
    setError(null);
    const res = await api(`/api/fields/${id}`, { method: 'DELETE' });
    if (!res.ok) {
      setError(res.error ?? t('common.network_error'));
      return;
    }
    setSelectedId(null);
    setNotice(t('map.field_deleted'));
    await refresh([], [id]);
  }

  /** Reads the list again after the first read failed (the error it left is cleared first). */
  async function retryLoad() {
    setError(null);
    setLoadFailed(false);
    await reload();
  }

  const selected = features.find((f) => f.id === selectedId) ?? null;
  // The fields Shift-clicked, for the selection's panel (a map re-renders with every move while drawing).
  const chosen = selection.length > 1 ? features.filter((f) => selection.includes(f.id)) : [];
  // The finder names each field by `name`, as the list's properties hold it.
  const searchable = useMemo(() => features.map((f) => ({ ...f, name: f.properties.name })), [features]);
  const totalArea = features.reduce((s, f) => s + f.properties.area, 0);
  const legend = useMemo(() => {
    /** What a field's colour stands for: its key, label and place (index classes from high to low). */
    const meaning = (f: FieldFeature): { key: string; label: string; order: number } => {
      if (colorBy === 'status') return { key: f.properties.status ?? '', label: statusLabel(f.properties.status), order: 0 };
      if (colorBy === 'owner') return { key: f.properties.owner ?? '', label: f.properties.owner || t('fields.no_owner'), order: 0 };
      const scan = latestScan[f.id];
      if (colorBy === 'crop') {
        if (scan?.crop && scan.cropUnsure) return { key: '?', label: t('map.crop_unsure'), order: 0 };
        return scan?.crop ? { key: scan.crop, label: cropName(scan.crop), order: 0 } : { key: '', label: t('map.no_crop'), order: 0 };
      }
      if (scan?.mean == null) return { key: '', label: t('map.no_scan'), order: 0 };
      const k = indexClass(scan.mean);
      const [lo, hi] = [(k - 1) / INDEX_CLASSES, k / INDEX_CLASSES];
      return { key: String(k), label: k === 1 ? `< ${indexValue(hi)}` : k === INDEX_CLASSES ? `≥ ${indexValue(lo)}` : `${indexValue(lo)}–${indexValue(hi)}`, order: k };
    };
    const seen = new Map<string, { label: string; color: string; count: number; order: number }>();
    for (const f of features) {
      const { key, label, order } = meaning(f);
      const entry = seen.get(key) ?? { label, order, color: colorOf(f), count: 0 };
      entry.count++;
      seen.set(key, entry);
    }
    // Statuses and owners by how many fields they have; index classes from high to low.
    return [...seen.values()].sort((a, b) => (colorBy === 'index' ? b.order - a.order : b.count - a.count));
  }, [features, colorBy, colorOf, statusLabel, t, latestScan, indexValue, cropName]);

  return (
    <div className="grid gap-4 lg:grid-cols-[minmax(0,1fr)_340px]">
      <div className="space-y-2">
        <div className="flex flex-wrap items-center gap-2">
          {can.add && mode.kind === 'idle' && <Button onClick={() => void startDrawing()}>{t('map.draw_field')}</Button>}
          {mode.kind === 'drawing' && (
            <>
              {/* For touch: closing on the first corner needs a precise tap, and a tablet has no Escape key. */}
              <Button onClick={() => drawTool()?._finishShape()}>{t('map.finish_shape')}</Button>
              <Button variant="secondary" onClick={() => drawTool()?._removeLastVertex()}>
                {t('map.undo_point')}
              </Button>
              <Button variant="secondary" onClick={cancelDrawing}>
                {t('common.cancel')}
              </Button>
            </>
          )}
          <label className="ml-auto flex items-center gap-2 text-sm">
            {t('map.color_by')}
            <select value={colorBy} onChange={(e) => setColorBy(e.target.value as ColorBy)} className="rounded border border-stone-300 bg-white px-1 py-0.5">
              <option value="status">{t('fields.status')}</option>
              <option value="owner">{t('fields.owner')}</option>
              <option value="index">{t('map.color_index')}</option>
              <option value="crop">{t('map.color_crop')}</option>
            </select>
          </label>
        </div>
        <div className="relative h-[60vh] min-h-[320px] overflow-hidden rounded-lg border border-stone-200 lg:h-[72vh]" data-testid="field-map">
          {/* Over the map, not above it: a hint that pushed the map down moved the corners already
              placed from under the finger, and the tap meant to close the boundary missed. */}
          {(mode.kind === 'drawing' || mode.kind === 'editing' || mode.kind === 'splitting') && (
            <p role="status" className="pointer-events-none absolute top-2 right-2 left-14 z-[1000] rounded bg-amber-50/95 px-3 py-2 text-sm text-amber-900 shadow" data-testid="draw-hint">
              {mode.kind === 'drawing' ? t('map.draw_hint') : mode.kind === 'editing' ? t('map.edit_hint') : t('map.split_hint')}{' '}
              {mode.kind !== 'splitting' && liveArea !== null && <strong data-testid="live-area">{t('map.area_live', { area: ha(liveArea) })}</strong>}
            </p>
          )}
          <MapContainer
            {...(bounds ? { bounds, boundsOptions: { padding: [24, 24], maxZoom: 17 } } : { center: DEFAULT_CENTER, zoom: DEFAULT_ZOOM })}
            maxZoom={MAP_MAX_ZOOM}
            zoomControl={false}
            className="h-full w-full bg-stone-200"
            doubleClickZoom={false}
          >
            <BaseTiles tiles={tiles} />
            <ZoomButtons />
            <MapBridge onReady={setMap} />
          </MapContainer>
          {!loaded && !loadFailed && (
            <p role="status" className="absolute top-2 left-1/2 z-[1000] -translate-x-1/2 rounded bg-white/90 px-3 py-1 text-sm shadow" data-testid="map-loading">
              {t('map.loading_fields')}
            </p>
          )}
          {legend.length > 0 && (
            <ul className="absolute bottom-6 left-2 z-[1000] max-w-[60%] space-y-0.5 rounded bg-white/90 px-2 py-1 text-xs shadow" aria-label={t('map.legend')}>
              {legend.map((l) => (
                <li key={l.label} className="flex items-center gap-1.5">
                  <span className="inline-block h-3 w-3 shrink-0 rounded-sm border border-stone-700" style={{ background: l.color }} />
                  <span className="truncate">{l.label}</span>
                  <span className="text-stone-600">({format.number(l.count)})</span>
                </li>
              ))}
            </ul>
          )}
        </div>
      </div>

      <aside ref={panelRef} className="scroll-mt-2 space-y-3" aria-label={t('map.panel')}>
        {mode.kind === 'idle' && features.length > 0 && (
          <FieldFinder
            label={t('map.find_field')}
            items={searchable}
            textOf={featureSearchText}
            detail={(f) => ha(f.properties.area)}
            onPick={(f) => {
              setNotice(null);
              setSelectedId(f.id);
              const layer = layersRef.current.get(f.id);
              if (map && layer) map.fitBounds(layer.getBounds(), { padding: [24, 24], maxZoom: 17 });
            }}
          />
        )}
        <ErrorMessage>{error}</ErrorMessage>
        <SuccessMessage>{notice}</SuccessMessage>
        {mode.kind === 'new' ? (
          <section className="space-y-3 rounded-lg border border-amber-300 bg-white p-4">
            <h2 className="text-lg font-semibold">{t('map.new_field')}</h2>
            <p className="text-sm">
              {t('fields.area')}: <strong data-testid="new-area">{liveArea !== null ? ha(liveArea) : '—'}</strong>
            </p>
            <FieldPropsForm owners={owners} submitLabel={t('common.save')} busy={busy} onSubmit={saveNew} onCancel={cancelDrawing} />
          </section>
        ) : selection.length > 1 && mode.kind === 'idle' ? (
          <section className="space-y-3 rounded-lg border border-stone-200 bg-white p-4 text-sm" data-testid="selection-panel">
            <div className="flex items-start justify-between gap-2">
              <h2 className="text-lg font-semibold">{t('fields.selected', { count: chosen.length })}</h2>
              <button type="button" onClick={() => setSelectedId(null)} className="text-stone-600 hover:text-stone-900" aria-label={t('fields.clear_selection')}>
                ×
              </button>
            </div>
            {adding && <p className="text-stone-600">{t('map.select_several_hint')}</p>}
            <p>
              {t('fields.area')}: <strong data-testid="selection-area">{ha(chosen.reduce((sum, f) => sum + f.properties.area, 0))}</strong>
            </p>
            {can.delete && (
              <MergeFields
                key={selection.join()}
                rows={chosen.map((f) => ({ id: f.id, name: f.properties.name, area: f.properties.area, parcel_number: f.properties.parcel_number, scanned: f.id in latestScan }))}
                onCancel={() => setSelectedId(null)}
                onMerged={async (field, taken) => {
                  setError(null);
                  setNotice(t('fields.merged', { count: taken.length + 1, name: field.name }));
                  await refresh([field.id], taken);
                  setSelectedId(field.id);
                }}
              />
            )}
          </section>
        ) : selected ? (
          <section className="space-y-3 rounded-lg border border-stone-200 bg-white p-4" data-testid="field-panel">
            <div className="flex items-start justify-between gap-2">
              <h2 className="text-lg font-semibold break-words">{selected.properties.name}</h2>
              <button type="button" onClick={() => void closePanel()} aria-disabled={busy || undefined} className="text-stone-600 hover:text-stone-900" aria-label={t('common.close')}>
                ×
              </button>
            </div>
            <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
              <dt className="text-stone-600">{t('fields.area')}</dt>
              <dd>{mode.kind === 'editing' && liveArea !== null ? ha(liveArea) : ha(selected.properties.area)}</dd>
              <dt className="text-stone-600">{t('fields.owner')}</dt>
              <dd>{selected.properties.owner ?? t('fields.no_owner')}</dd>
              <dt className="text-stone-600">{t('fields.status')}</dt>
              <dd>{statusLabel(selected.properties.status)}</dd>
              <dt className="text-stone-600">{t('fields.parcel_number')}</dt>
              <dd>{selected.properties.parcel_number || '—'}</dd>
            </dl>
            {/* Keyed: React would otherwise reuse a button of one row for another (Cancel becoming "Select
                several"), the focus on it, and the focus would not go back to Edit boundary. */}
            {mode.kind === 'splitting' ? (
              <div key="splitting" className="flex flex-wrap gap-2">
                <Button variant="secondary" onClick={cancelDrawing} disabled={busy}>
                  {t('common.cancel')}
                </Button>
              </div>
            ) : mode.kind === 'editing' ? (
              <div key="editing" className="flex flex-wrap gap-2">
                <Button ref={saveBoundaryRef} onClick={() => void finishEditing(true)} busy={busy}>
                  {t('map.save_boundary')}
                </Button>
                <Button variant="secondary" onClick={() => void finishEditing(false)} busy={busy}>
                  {t('common.cancel')}
                </Button>
              </div>
            ) : (
              <div key="idle" className="flex flex-wrap gap-2">
                <Link href={`/fields/${selected.id}`} className="rounded border border-stone-300 px-3 py-1.5 text-sm font-medium hover:bg-stone-100">
                  {t('map.open_field')}
                </Link>
                {adding ? (
                  <p className="basis-full text-sm text-stone-600">{t('map.select_several_hint')}</p>
                ) : (
                  <Button variant="secondary" onClick={startAdding}>
                    {t('map.select_several')}
                  </Button>
                )}
                {can.edit && (
                  <Button ref={editBoundaryRef} variant="secondary" onClick={() => void startEditing(selected.id)}>
                    {t('map.edit_boundary')}
                  </Button>
                )}
                {can.edit && (
                  <Button variant="secondary" onClick={() => void startSplitting(selected.id)}>
                    {t('map.split_field')}
                  </Button>
                )}
                {can.delete && <ConfirmButton label={t('common.delete')} question={t('fields.delete_confirm', { name: selected.properties.name })} onConfirm={() => remove(selected.id)} />}
              </div>
            )}
          </section>
        ) : (
          <section className="space-y-2 rounded-lg border border-stone-200 bg-white p-4 text-sm">
            {loadFailed && !loaded ? (
              <Button variant="secondary" onClick={() => void retryLoad()}>
                {t('common.try_again')}
              </Button>
            ) : (
              <p data-testid="map-summary">{loaded ? t('map.summary', { count: features.length, area: ha(totalArea) }) : t('map.loading_fields')}</p>
            )}
            {loaded && <p className="text-stone-600">{features.length ? t('map.click_hint') : can.add ? t('map.empty_hint_draw') : t('map.empty_hint')}</p>}
          </section>
        )}
      </aside>
    </div>
  );
}
