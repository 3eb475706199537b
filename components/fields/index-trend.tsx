// A field's mean index over its scans, by when each was taken (rendered on the server, like the
// histogram). The x axis is time to scale: scans years apart look years apart. The line is an SVG
// stretched to the box; the points and labels are HTML laid over it, so that they keep their size
// on a phone's narrow screen.

export interface TrendPoint {
  scanId: number;
  /** When the scan's image was taken, in milliseconds. */
  time: number;
  /** The scan's date as the page words it. */
  date: string;
  mean: number;
}

/** Where a point sits in the box, in percent, kept off the edges so that a whole dot shows. */
const box = (fraction: number) => 5 + fraction * 90;

/**
 * The points link to their scans; `chosen` is the scan the page shows. Index values are drawn on a
 * fixed 0-1 scale (wider when a mean falls outside it), the range normalized-difference indices of
 * vegetation take, so that one field's scans compare with another's at a glance.
 */
export function IndexTrend({ points, chosen, href, label, formatValue }: { points: TrendPoint[]; chosen: number | null; href: (scanId: number) => string; label: string; formatValue: (v: number) => string }) {
  const sorted = [...points].sort((a, b) => a.time - b.time);
  const [first, last] = [sorted[0]!, sorted.at(-1)!];
  const lo = Math.min(0, ...sorted.map((p) => p.mean));
  const hi = Math.max(1, ...sorted.map((p) => p.mean));
  const span = last.time - first.time;
  const x = (t: number) => box(span > 0 ? (t - first.time) / span : 0.5);
  const y = (v: number) => box((hi - v) / (hi - lo));
  const ticks = [hi, (lo + hi) / 2, lo];
  return (
    <figure className="max-w-2xl space-y-1" data-testid="index-trend">
      <figcaption className="text-sm font-medium text-stone-700">{label}</figcaption>
      <div className="flex gap-2">
        <div className="relative h-32 w-10 shrink-0 text-right text-xs text-stone-600" aria-hidden="true">
          {ticks.map((v) => (
            <span key={v} className="absolute right-0 -translate-y-1/2" style={{ top: `${y(v)}%` }}>
              {formatValue(v)}
            </span>
          ))}
        </div>
        <div className="relative h-32 flex-1 rounded bg-stone-50">
          <svg className="absolute inset-0 h-full w-full" viewBox="0 0 100 100" preserveAspectRatio="none" aria-hidden="true">
            {ticks.map((v) => (
              <line key={v} x1="0" x2="100" y1={y(v)} y2={y(v)} stroke="#e7e5e4" vectorEffect="non-scaling-stroke" />
            ))}
            <polyline points={sorted.map((p) => `${x(p.time)},${y(p.mean)}`).join(' ')} fill="none" stroke="#059669" strokeWidth="2" vectorEffect="non-scaling-stroke" />
          </svg>
          {sorted.map((p) => {
            const isChosen = p.scanId === chosen;
            return (
              <a
                key={p.scanId}
                href={href(p.scanId)}
                title={`${p.date}: ${formatValue(p.mean)}`}
                aria-label={`${p.date}: ${formatValue(p.mean)}`}
                aria-current={isChosen ? 'true' : undefined}
                className={`absolute -translate-x-1/2 -translate-y-1/2 rounded-full border-2 border-emerald-700 ${isChosen ? 'h-4 w-4 bg-emerald-700' : 'h-3 w-3 bg-white hover:bg-emerald-200'}`}
                style={{ left: `${x(p.time)}%`, top: `${y(p.mean)}%` }}
              />
            );
          })}
        </div>
      </div>
      <div className={`ml-12 flex text-xs text-stone-600 ${span > 0 ? 'justify-between' : 'justify-center'}`} aria-hidden="true">
        <span>{first.date}</span>
        {span > 0 && <span>{last.date}</span>}
      </div>
    </figure>
  );
}
