'use client';
import type L from 'leaflet';
import { useFormatter, useLocale, useTranslations } from 'next-intl';
import { GeoJSON } from 'react-leaflet';
import { localizeZoneName } from '@/lib/i18n/formats';
import { textElement } from '@/lib/ui/text-element';
import type { ZoneFeatureCollection } from './field-detail-types';

interface ZonesLayerProps {
  zones: ZoneFeatureCollection;
  opacity: number;
  /** A scan's tiles lie under the zones: their fill is lighter, to let them show through. */
  overTiles: boolean;
}

/** The chosen scan's zones, each with its tooltip. */
export function ZonesLayer({ zones, opacity, overTiles }: ZonesLayerProps) {
  const t = useTranslations();
  const locale = useLocale();
  const format = useFormatter();
  return (
    <GeoJSON
      key={zones.features.map((z) => z.id).join(',')}
      data={zones as GeoJSON.FeatureCollection}
      style={(f) => ({
        color: '#1c1917',
        weight: 1,
        opacity,
        fillColor: (f?.properties as { color?: string } | undefined)?.color ?? '#999',
        fillOpacity: (overTiles ? 0.25 : 0.6) * opacity,
        className: 'fm-zone',
      })}
      onEachFeature={(f, layer) => {
        const p = f.properties as { name: string; area_ha: number; mean: number | null };
        const name = localizeZoneName(p.name, locale);
        // What an agronomist hovering a zone asks: how big it is and its mean, beside its range.
        const details = t('field.zone_tooltip', {
          name,
          area: format.number(p.area_ha, { minimumFractionDigits: 2, maximumFractionDigits: 2 }),
          mean: p.mean == null ? '—' : format.number(p.mean, { minimumFractionDigits: 3, maximumFractionDigits: 3 }),
        });
        layer.bindTooltip(textElement(details), { sticky: true });
        // Each zone is a stop of Tab (its tooltip on hover): named for a screen reader too.
        layer.on('add', () => (layer as L.Path).getElement?.()?.setAttribute('aria-label', name));
      }}
    />
  );
}
