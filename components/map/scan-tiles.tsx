'use client';
// A scan's mosaic or index on the map, as tiles rendered by GET /api/scans/{id}/tiles/{layer}/{z}/{x}/{y}.png.
import { TileLayer } from 'react-leaflet';
import type { LatLngBoundsExpression } from 'leaflet';
import { MAP_MAX_ZOOM } from './base-map';

export type ScanLayer = 'ortho' | 'index';

export const scanTileUrl = (scanId: number, layer: ScanLayer) => `/api/scans/${scanId}/tiles/${layer}/{z}/{x}/{y}.png`;

/** `bounds`: where the scan lies, so that no tile is asked for elsewhere. */
export function ScanTiles({ scanId, layer, opacity, bounds }: { scanId: number; layer: ScanLayer; opacity: number; bounds?: LatLngBoundsExpression }) {
  // Keyed by scan and layer: the URL is the layer's identity; opacity changes in place.
  return <TileLayer key={`${scanId}-${layer}`} url={scanTileUrl(scanId, layer)} opacity={opacity} maxZoom={MAP_MAX_ZOOM} bounds={bounds} zIndex={2} className={`fm-scan-tiles fm-scan-${layer}`} />;
}
