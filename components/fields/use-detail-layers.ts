'use client';
import { useTranslations } from 'next-intl';
import { useState } from 'react';
import type { OverlayControl } from '../map/layer-panel';
import type { ScanLayer } from '../map/scan-tiles';
import type { MapScan, ZoneFeatureCollection } from './field-detail-types';

type Layers = Record<ScanLayer | 'zones', { on: boolean; opacity: number }>;

export type DetailLayers = ReturnType<typeof useDetailLayers>;

/** The field map's overlays (the chosen scan's mosaic, index and zones): their switches, opacity and whether each is shown. */
export function useDetailLayers(scan: MapScan | null, zones: ZoneFeatureCollection | null, comparing: boolean) {
  const t = useTranslations();
  // A drone survey opens on its mosaic (the ground as photographed), an index raster on its colours.
  const [layers, setLayers] = useState<Layers>(() => ({ ortho: { on: true, opacity: 1 }, index: { on: !scan?.layers.includes('ortho'), opacity: 0.85 }, zones: { on: true, opacity: 1 } }));
  const has = (layer: ScanLayer) => !!scan?.layers.includes(layer);
  const hasZones = !!zones?.features.length;

  const row = (id: ScanLayer | 'zones', label: string): OverlayControl => ({
    id,
    label,
    ...layers[id],
    onToggle: (on) => setLayers((l) => ({ ...l, [id]: { ...l[id], on } })),
    onOpacity: (opacity) => setLayers((l) => ({ ...l, [id]: { ...l[id], opacity } })),
  });
  const overlays = comparing
    ? []
    : [...(has('ortho') ? [row('ortho', t('field.layer_orthomosaic'))] : []), ...(has('index') ? [row('index', t('field.layer_index'))] : []), ...(hasZones ? [row('zones', t('field.layer_zones'))] : [])];
  const show = (id: ScanLayer | 'zones') => !comparing && layers[id].on && (id === 'zones' ? hasZones : has(id));

  return { layers, overlays, show };
}
