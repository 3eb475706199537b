'use client';
// The map's fields: read from the API (simplified for the view in a large company, finer as it zooms
// in), and read again, only those an edit changed, after it.
import L from './leaflet-global';
import { type Dispatch, type SetStateAction, useCallback, useEffect, useState } from 'react';
import { useTranslations } from 'next-intl';
import { type ApiResult, api } from '@/lib/ui/api';
import type { FieldCollection, FieldFeature, FieldGeometry } from '@/lib/ui/types';
import { fieldsUrl, isCoarser, usesLevelOfDetail, viewTolerance } from './level-of-detail';
import { type FieldLayerStore, NEAR_VIEW } from './use-field-layers';

/**
 * Drawing or editing snaps to the fields in view when there are at most this many: geoman measures
 * the cursor against every corner of each at every move.
 */
export const SNAP_FIELDS_AT_MOST = 300;

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

const readFields = (tolerance = 0, window?: L.LatLngBounds) =>
  api<FieldCollection>(fieldsUrl(tolerance, window && [window.getWest(), window.getSouth(), window.getEast(), window.getNorth()]));
/** The tolerance (metres) to read boundaries at for the map's view now. */
const mapTolerance = (map: L.Map) => viewTolerance(map.getZoom(), map.getCenter().lat);

export interface FieldData {
  features: FieldFeature[];
  loaded: boolean;
  /** The list could not be read (no server, a session ended): "Loading fields…" gives way to the error and a retry. */
  loadFailed: boolean;
  /** Reads the list again after the first read failed. */
  retryLoad: () => Promise<void>;
  /** Reads again the fields an edit changed (`ids`) and leaves out those it removed (`gone`). */
  refresh: (ids: number[], gone?: number[]) => Promise<void>;
  /** Reads as stored the boundaries an edit of field `id` (or a drawing) works with; false when a read failed. */
  exactBoundaries: (id?: number) => Promise<boolean>;
}

export function useFieldData({ map, fieldCount, store, onError }: { map: L.Map | null; fieldCount: number; store: FieldLayerStore; onError: (message: string | null) => void }): FieldData {
  const t = useTranslations();
  /** A large company's boundaries are read simplified for the view (level-of-detail.ts). */
  const detail = usesLevelOfDetail(fieldCount);
  const { features, setFeatures, loaded, loadFailed, setLoadFailed, showList, reload } = useFieldList(map, detail, store, onError, t);
  const refresh = useRefresh(store, reload, setFeatures);
  useFirstRead(map, detail, showList);
  const refine = useRefine(store, setFeatures);
  useFinerNearView(map, detail, loaded, refine, store);
  const exactBoundaries = useExactBoundaries(map, detail, store, refine, onError, t);

  const retryLoad = useCallback(async () => {
    onError(null);
    setLoadFailed(false);
    await reload();
  }, [onError, reload, setLoadFailed]);

  return { features, loaded, loadFailed, retryLoad, refresh, exactBoundaries };
}

type Translate = ReturnType<typeof useTranslations>;
type SetFeatures = Dispatch<SetStateAction<FieldFeature[]>>;

/** The list with the fields read again in place of theirs (those new to it at its end) and the fields `removed` left out. */
function withChanges(all: FieldFeature[], fresh: ReadonlyMap<number, FieldFeature>, removed: ReadonlySet<number>): FieldFeature[] {
  const next = all.filter((f) => !removed.has(f.id)).map((f) => fresh.get(f.id) ?? f);
  const known = new Set(all.map((f) => f.id));
  for (const [id, f] of fresh) if (!known.has(id)) next.push(f);
  return next;
}

/** The list of fields, whether it was read or failed to be, and reading it (again) whole. */
function useFieldList(map: L.Map | null, detail: boolean, store: FieldLayerStore, onError: (message: string | null) => void, t: Translate) {
  const [features, setFeatures] = useState<FieldFeature[]>([]);
  const [loaded, setLoaded] = useState(false);
  const [loadFailed, setLoadFailed] = useState(false);

  const showList = useCallback(
    (res: ApiResult<FieldCollection>, tolerance: number) => {
      if (res.ok) {
        store.tolerance.clear();
        if (tolerance > 0) for (const f of res.data.features) store.tolerance.set(f.id, tolerance);
        setFeatures(res.data.features);
        setLoaded(true);
        setLoadFailed(false);
      } else {
        onError(res.error ?? t('common.network_error'));
        setLoadFailed(true);
      }
    },
    [t, store, onError],
  );
  const reload = useCallback(async () => {
    const tolerance = detail && map ? mapTolerance(map) : 0;
    showList(await readFields(tolerance), tolerance);
  }, [showList, detail, map]);
  return { features, setFeatures, loaded, loadFailed, setLoadFailed, showList, reload };
}

// The whole list is 9.5 MB for 10,000 fields, and each of its layers was made again: an edit reads
// only what it changed. A failed read falls back on the whole list.
function useRefresh(store: FieldLayerStore, reload: () => Promise<void>, setFeatures: SetFeatures) {
  return useCallback(
    async (ids: number[], gone: number[] = []) => {
      const read = await Promise.all(ids.map((id) => api<FieldDetail>(`/api/fields/${id}`)));
      if (read.some((r) => !r.ok && r.status !== 404)) return reload();
      const fresh = new Map<number, FieldFeature>();
      const removed = new Set(gone);
      read.forEach((r, i) => (r.ok ? fresh.set(ids[i]!, toFeature(r.data)) : removed.add(ids[i]!)));
      for (const id of [...fresh.keys(), ...removed]) store.tolerance.delete(id);
      setFeatures((all) => withChanges(all, fresh, removed));
    },
    [reload, store, setFeatures],
  );
}

// The fields come from the API, not inside the page, so that the page opens at once however many
// there are; the view is already where they are. A large company's are read simplified for the
// first view's zoom, which waits for the map.
function useFirstRead(map: L.Map | null, detail: boolean, showList: (res: ApiResult<FieldCollection>, tolerance: number) => void) {
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
}

/**
 * Puts the boundaries of `fresh`, read at `tolerance` (0: as stored), in place of those read
 * coarser, in their layers as they are (a layer geoman edits is not made again under it). Fields
 * the map does not have are left out.
 */
function useRefine(store: FieldLayerStore, setFeatures: SetFeatures) {
  return useCallback(
    (fresh: FieldFeature[], tolerance: number) => {
      const finer = new Map<number, FieldFeature>();
      for (const f of fresh) {
        const layer = store.layers.get(f.id);
        if (!layer || !isCoarser(store.tolerance.get(f.id) ?? 0, tolerance)) continue;
        if (tolerance > 0) store.tolerance.set(f.id, tolerance);
        else store.tolerance.delete(f.id);
        layer.setLatLngs(L.GeoJSON.coordsToLatLngs(f.geometry.coordinates, f.geometry.type === 'Polygon' ? 1 : 2));
        layer.setStyle(store.paint(f));
        layer.feature = f;
        finer.set(f.id, f);
      }
      if (finer.size) setFeatures((all) => all.map((f) => finer.get(f.id) ?? f));
    },
    [store, setFeatures],
  );
}

type Refine = ReturnType<typeof useRefine>;

// Zoomed in, the fields near the view are read again at the finer tolerance the view wants and
// replace the coarse ones (a later move supersedes a read still under way).
function useFinerNearView(map: L.Map | null, detail: boolean, loaded: boolean, refine: Refine, store: FieldLayerStore) {
  useEffect(() => {
    if (!map || !detail || !loaded) return;
    let latest = 0;
    const onMove = () => {
      const tolerance = mapTolerance(map);
      const near = map.getBounds().pad(NEAR_VIEW);
      const coarse = [...store.layers].some(([id, layer]) => isCoarser(store.tolerance.get(id) ?? 0, tolerance) && near.intersects(layer.getBounds()));
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
  }, [map, detail, loaded, refine, store]);
}

/**
 * Before an edit, a cut or a drawing, a large company's boundaries it works with are read as stored
 * where they were read simplified: the field `id`, and the fields in view when they are few enough
 * to snap to. False when a read failed (its message is shown).
 */
function useExactBoundaries(map: L.Map | null, detail: boolean, store: FieldLayerStore, refine: Refine, onError: (message: string | null) => void, t: Translate) {
  return useCallback(
    async (id?: number): Promise<boolean> => {
      if (!map) return false;
      if (!detail) return true;
      const coarse = (fid: number) => store.tolerance.has(fid);
      const view = map.getBounds();
      const inView = [...store.layers].filter(([fid, layer]) => fid !== id && view.intersects(layer.getBounds())).map(([fid]) => fid);
      const [one, near] = await Promise.all([
        id !== undefined && coarse(id) ? api<FieldDetail>(`/api/fields/${id}`) : null,
        inView.length <= SNAP_FIELDS_AT_MOST && inView.some(coarse) ? readFields(0, view) : null,
      ]);
      const failed = [one, near].find((r) => r && !r.ok);
      if (failed && !failed.ok) {
        onError(failed.error ?? t('common.network_error'));
        return false;
      }
      refine([...(one?.ok ? [toFeature(one.data)] : []), ...(near?.ok ? near.data.features : [])], 0);
      return true;
    },
    [map, detail, store, refine, onError, t],
  );
}

