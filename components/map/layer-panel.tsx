'use client';
// The map's layer panel: the base map (MAP_BASE_LAYERS) and the layers over it, each with its switch
// and opacity. Open at first on a wide screen, folded on a phone, where it would cover the map.
import { useTranslations } from 'next-intl';
import { useId, useState } from 'react';
import type { BaseLayer } from '@/lib/ui/types';

export interface OverlayControl {
  /** Names the row's controls in tests and in the DOM (data-layer). */
  id: string;
  label: string;
  on: boolean;
  opacity: number;
  onToggle: (on: boolean) => void;
  onOpacity: (opacity: number) => void;
  /** More under the row (the fields' colouring). */
  extra?: React.ReactNode;
}

interface LayerPanelProps {
  baseLayers: BaseLayer[];
  base: number;
  onBase: (i: number) => void;
  overlays: OverlayControl[];
  /** More at the panel's end (comparing two scans). */
  footer?: React.ReactNode;
}

export function LayerPanel({ baseLayers, base, onBase, overlays, footer }: LayerPanelProps) {
  const t = useTranslations('map');
  const [open, setOpen] = useState(() => window.matchMedia('(min-width: 1024px)').matches);
  const id = useId();
  return (
    <div className="absolute top-2 right-2 z-[1000] max-h-[calc(100%-1rem)] max-w-[min(18rem,calc(100%-4rem))] overflow-y-auto rounded bg-white/95 text-sm shadow" data-testid="layer-panel">
      <button type="button" className="w-full px-3 py-1.5 text-left font-medium" aria-expanded={open} aria-controls={id} onClick={() => setOpen(!open)}>
        {t('layers')}
      </button>
      <div id={id} hidden={!open} className="space-y-2 border-t border-stone-200 px-3 py-2">
        {baseLayers.length > 1 && (
          <fieldset className="space-y-0.5">
            <legend className="text-xs font-semibold text-stone-600">{t('base_map')}</legend>
            {baseLayers.map((l, i) => (
              <label key={l.url} className="flex items-center gap-1.5">
                <input type="radio" name={`${id}-base`} checked={base === i} onChange={() => onBase(i)} />
                {l.name}
              </label>
            ))}
          </fieldset>
        )}
        {overlays.map((o) => (
          <div key={o.id} className="space-y-0.5" data-layer={o.id}>
            <label className="flex items-center gap-1.5">
              <input type="checkbox" checked={o.on} onChange={(e) => o.onToggle(e.target.checked)} />
              {o.label}
            </label>
            {o.on && (
              <label className="flex items-center gap-1.5 pl-5 text-xs text-stone-600">
                {t('opacity')}
                <input type="range" min={0} max={100} step={5} value={Math.round(o.opacity * 100)} onChange={(e) => o.onOpacity(Number(e.target.value) / 100)} className="w-28" />
              </label>
            )}
            {o.on && o.extra}
          </div>
        ))}
        {footer}
      </div>
    </div>
  );
}
