'use client';
// The map page's workspace: the company's fields on a full-window map, with the layer panel and the
// legend over it and a side panel (a bottom sheet on a phone) for the selected field, the selection
// and the new field's form. Each job is a hook or a component of its own:
//   use-field-data.ts     reading the fields (simplified for the view in a large company)
//   use-field-layers.ts   the fields' polygons, their colours, the selection drawn heavier
//   use-field-editing.ts  drawing, editing and cutting boundaries, with the live area
//   use-escape-key.ts     Escape steps back out of what the map is doing
//   field-colors.ts       colouring by status/owner/index/crop, the legend's entries, tooltips
//   use-map-selection.ts  the fields selected, Shift-click and "Select several"
//   use-field-actions.ts  closing the panel, deleting, merging, Escape, the finder's pick
//   use-field-map-workspace.ts  all of the above together, in the order their effects run
//   field-panels.tsx      what the side panel shows (field-map-panel.tsx chooses); layer-panel.tsx,
//                         field-legend.tsx over the map (field-map-overlays.tsx)
import 'leaflet/dist/leaflet.css';
// Leaflet's global first: Leaflet-Geoman extends it when imported.
import './leaflet-global';
import '@geoman-io/leaflet-geoman-free';
import '@geoman-io/leaflet-geoman-free/dist/leaflet-geoman.css';
import { useTranslations } from 'next-intl';
import { MapContainer } from 'react-leaflet';
import type L from 'leaflet';
import type { BaseLayer, OwnerOption } from '@/lib/ui/types';
import { BaseTiles, MAP_MAX_ZOOM, ZoomButtons } from './base-map';
import type { LatestScans } from './field-colors';
import { FieldLegend } from './field-legend';
import { DrawHint, DrawToolbar, FieldsLayerPanel, MapLoading } from './field-map-overlays';
import { FieldMapPanel } from './field-map-panel';
import type { Abilities } from './field-panels';
import { MapBridge } from './map-bridge';
import { SelectedScanLayers } from './selected-scan-layers';
import { SidePanel } from './side-panel';
import { useFieldMapWorkspace } from './use-field-map-workspace';

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

export default function FieldMap({ title, message, bounds, owners, baseLayers, can, focusId, fieldCount, latestScan }: FieldMapProps) {
  const t = useTranslations();
  const w = useFieldMapWorkspace({ message, focusId, fieldCount, latestScan });
  const { editing, layerChoices, data } = w;

  return (
    <div className="relative flex min-h-0 flex-1 flex-col lg:flex-row" data-testid="map-workspace">
      <div className="relative min-h-0 flex-1" data-testid="field-map">
        <DrawHint editing={editing} ha={w.colors.ha} />
        <MapContainer
          {...(bounds ? { bounds, boundsOptions: { padding: [24, 24], maxZoom: 17 } } : { center: DEFAULT_CENTER, zoom: DEFAULT_ZOOM })}
          maxZoom={MAP_MAX_ZOOM}
          zoomControl={false}
          className="h-full w-full bg-stone-200"
          doubleClickZoom={false}
        >
          <BaseTiles layer={baseLayers[layerChoices.base]!} />
          <ZoomButtons />
          <MapBridge onReady={w.setMap} />
          {w.selectedScan && <SelectedScanLayers scan={w.selectedScan} state={w.scanLayers.state} bounds={w.scanBounds} />}
        </MapContainer>
        {editing.mode.kind === 'idle' && <FieldsLayerPanel baseLayers={baseLayers} choices={layerChoices} scanRows={w.scanLayers.rows} />}
        {!data.loaded && !data.loadFailed && <MapLoading />}
        {layerChoices.fieldsLayer.on && <FieldLegend entries={w.legend} />}
      </div>

      <SidePanel title={title} toolbar={<DrawToolbar editing={editing} canAdd={can.add} />} open={w.panelOpen} onOpen={w.setPanelOpen} label={t('map.panel')}>
        <FieldMapPanel workspace={w} owners={owners} can={can} latestScan={latestScan} />
      </SidePanel>
    </div>
  );
}
