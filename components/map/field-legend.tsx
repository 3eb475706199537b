'use client';
import { useFormatter, useTranslations } from 'next-intl';
import type { LegendEntry } from './field-colors';

/** The legend of the fields' colours, over the map's lower left corner. */
export function FieldLegend({ entries }: { entries: LegendEntry[] }) {
  const t = useTranslations('map');
  const format = useFormatter();
  if (entries.length === 0) return null;
  return (
    <ul className="absolute bottom-6 left-2 z-[1000] max-w-[60%] space-y-0.5 rounded bg-white/90 px-2 py-1 text-xs shadow" aria-label={t('legend')} data-testid="field-legend">
      {entries.map((l) => (
        <li key={l.label} className="flex items-center gap-1.5">
          <span className="inline-block h-3 w-3 shrink-0 rounded-sm border border-stone-700" style={{ background: l.color }} />
          <span className="truncate">{l.label}</span>
          <span className="text-stone-600">({format.number(l.count)})</span>
        </li>
      ))}
    </ul>
  );
}
