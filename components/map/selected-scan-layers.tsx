'use client';
// On the map page, the selected field's latest scan as layers: its mosaic (a drone survey's), its
// index and its zones, each off at first and with its opacity in the layer panel.
import { useTranslations } from 'next-intl';
import { useEffect, useState } from 'react';
import { GeoJSON } from 'react-leaflet';
import type { LatLngBoundsExpression } from 'leaflet';
import { api } from '@/lib/ui/api';
import type { OverlayControl } from './layer-panel';
import { type ScanLayer, ScanTiles } from './scan-tiles';

export interface SelectedScan {
  scanId: number;
  source: string;
}

type LayerState = Record<ScanLayer | 'zones', { on: boolean; opacity: number }>;
const START: LayerState = { ortho: { on: false, opacity: 1 }, index: { on: false, opacity: 0.85 }, zones: { on: false, opacity: 1 } };

/** The layers the scan has: a drone survey its mosaic and index, an uploaded raster its index; both their zones. */
const layersOf = (scan: SelectedScan): (ScanLayer | 'zones')[] => [...(scan.source === 'drone' ? (['ortho'] as const) : []), 'index', 'zones'];

/** The scan's layer rows for the panel, and what they put on the map. */
export function useSelectedScanLayers(scan: SelectedScan | null) {
  const t = useTranslations('field');
  const [state, setState] = useState<LayerState>(START);
  const label = { ortho: t('layer_orthomosaic'), index: t('layer_index'), zones: t('layer_zones') };
  const rows: OverlayControl[] = scan
    ? layersOf(scan).map((id) => ({
        id: `scan-${id}`,
        label: label[id],
        ...state[id],
        onToggle: (on) => setState((s) => ({ ...s, [id]: { ...s[id], on } })),
        onOpacity: (opacity) => setState((s) => ({ ...s, [id]: { ...s[id], opacity } })),
      }))
    : [];
  return { rows, state };
}

/** Inside the map: the scan's tiles and, read when first switched on, its zones (not clickable: a click picks the field under them). */
export function SelectedScanLayers({ scan, state, bounds }: { scan: SelectedScan; state: LayerState; bounds?: LatLngBoundsExpression }) {
  const [zones, setZones] = useState<{ scanId: number; data: GeoJSON.FeatureCollection } | null>(null);
  const wantZones = state.zones.on && zones?.scanId !== scan.scanId;
  useEffect(() => {
    if (!wantZones) return;
    let current = true;
    void api<{ scan: { zones: GeoJSON.FeatureCollection } }>(`/api/scans/${scan.scanId}`).then((res) => {
      if (current && res.ok) setZones({ scanId: scan.scanId, data: res.data.scan.zones });
    });
    return () => {
      current = false;
    };
  }, [wantZones, scan.scanId]);
  const has = layersOf(scan);
  return (
    <>
      {has.includes('ortho') && state.ortho.on && <ScanTiles scanId={scan.scanId} layer="ortho" opacity={state.ortho.opacity} bounds={bounds} />}
      {state.index.on && <ScanTiles scanId={scan.scanId} layer="index" opacity={state.index.opacity} bounds={bounds} />}
      {state.zones.on && zones?.scanId === scan.scanId && (
        <GeoJSON
          key={scan.scanId}
          data={zones.data}
          interactive={false}
          style={(f) => ({ color: '#1c1917', weight: 1, opacity: state.zones.opacity, fillColor: (f?.properties as { color?: string } | undefined)?.color ?? '#999', fillOpacity: 0.6 * state.zones.opacity, className: 'fm-zone' })}
        />
      )}
    </>
  );
}
