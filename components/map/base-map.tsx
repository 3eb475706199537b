'use client';
// What every map of ours has: the base map's tiles and zoom buttons in the page's language.
import { useTranslations } from 'next-intl';
import { TileLayer, ZoomControl } from 'react-leaflet';
import type { TileSource } from '@/lib/ui/types';

/** Maps zoom this far in: a drone mosaic's preview holds detail down to a few centimetres, and
 * vertices are placed more precisely. Beyond the tiles' own deepest zoom they are enlarged. */
export const MAP_MAX_ZOOM = 21;

export function BaseTiles({ tiles }: { tiles: TileSource }) {
  const t = useTranslations('map');
  return <TileLayer url={tiles.url} maxNativeZoom={tiles.maxNativeZoom} maxZoom={MAP_MAX_ZOOM} attribution={t('attribution')} />;
}

/** Leaflet's zoom buttons, titled in the page's language (the map needs `zoomControl={false}`). */
export function ZoomButtons() {
  const t = useTranslations('map');
  // Keyed by language: the control takes its titles when it is made.
  return <ZoomControl key={t('zoom_in')} zoomInTitle={t('zoom_in')} zoomOutTitle={t('zoom_out')} />;
}
