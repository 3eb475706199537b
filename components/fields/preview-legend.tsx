'use client';
// What the colours of a scan's index image or index tiles mean: the ramp as a bar, with the index
// values its ends and stops are painted for (the index's fixed range, lib/raster/ramp.ts), and the
// index's name. Read out whole (role img) as the range, red low to green high. The field page lays it
// over its map's corner; another map places it with `className`.
import { useFormatter, useTranslations } from 'next-intl';
import { legendDigits, type PreviewLegend as Legend, RAMP_STOPS } from '@/lib/raster/ramp';

const GRADIENT = `linear-gradient(to right, ${RAMP_STOPS.map(([r, g, b], i) => `rgb(${r} ${g} ${b}) ${(i / (RAMP_STOPS.length - 1)) * 100}%`).join(', ')})`;

const OVER_MAP_CORNER = 'absolute bottom-2 left-2 z-[1000]';

export function PreviewLegend({ legend, className = OVER_MAP_CORNER }: { legend: Legend; className?: string }) {
  const t = useTranslations('field');
  const format = useFormatter();
  const digits = legendDigits(legend);
  const value = (v: number) => format.number(v, { minimumFractionDigits: digits, maximumFractionDigits: digits });
  const index = legend.index.toUpperCase();
  const [first, last] = [legend.ticks[0]!, legend.ticks.at(-1)!];
  const at = (v: number) => ((v - first.value) / (last.value - first.value)) * 100;
  return (
    <figure
      role="img"
      aria-label={t('legend_label', { index, min: value(first.value), max: value(last.value) })}
      data-testid="preview-legend"
      className={`${className} rounded bg-white/90 px-3 py-1 text-xs text-stone-800 shadow`}
    >
      <div className="font-semibold">{index}</div>
      <div className="mt-0.5 h-2.5 w-48 rounded-sm border border-stone-500" style={{ background: GRADIENT }} />
      <div className="relative mt-0.5 h-4 w-48 tabular-nums">
        {legend.ticks.map((tick, i) => (
          // Each label is shifted by its place along the bar: the ends' stay inside it, the middle one is centred.
          <span key={i} className="absolute whitespace-nowrap" style={{ left: `${at(tick.value)}%`, transform: `translateX(-${(i / (legend.ticks.length - 1)) * 100}%)` }}>
            {value(tick.value)}
          </span>
        ))}
      </div>
    </figure>
  );
}
