'use client';
// What every map of ours has: the base map's tiles and zoom buttons in the page's language.
import { useTranslations } from 'next-intl';
import { TileLayer, ZoomControl } from 'react-leaflet';
import type { BaseLayer } from '@/lib/ui/types';

/** Maps zoom this far in: a drone mosaic holds detail down to a few centimetres, and vertices are
 * placed more precisely. Beyond the tiles' own deepest zoom they are enlarged. */
export const MAP_MAX_ZOOM = 21;

/** The chosen base map (MAP_BASE_LAYERS); one without an attribution is OpenStreetMap's. */
export function BaseTiles({ layer }: { layer: BaseLayer }) {
  const t = useTranslations('map');
  // Keyed by URL: Leaflet takes a layer's attribution and deepest zoom when it is made.
  return <TileLayer key={layer.url} url={layer.url} maxNativeZoom={layer.maxZoom} maxZoom={MAP_MAX_ZOOM} attribution={layer.attribution ?? t('attribution')} className="fm-base-tiles" />;
}

/** Leaflet's zoom buttons, titled in the page's language (the map needs `zoomControl={false}`). */
export function ZoomButtons() {
  const t = useTranslations('map');
  // Keyed by language: the control takes its titles when it is made.
  return <ZoomControl key={t('zoom_in')} zoomInTitle={t('zoom_in')} zoomOutTitle={t('zoom_out')} />;
}
