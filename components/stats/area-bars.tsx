/** One line of a breakdown of the company's area: its label, its area as written, its value and colour. */
export interface AreaRow {
  label: string;
  area: string;
  value: number;
  color: string;
}

/**
 * Bars of area by `label`; beside each its area with the unit (the tables' heading names it, these stand alone).
 * One grid for the list, each row on its columns (subgrid): a grid per row sized each track by its own
 * figure, so that a longer area drew a shorter track and bars of one list were not to one scale.
 */
export function AreaBars({ rows, total, label, withUnit }: { rows: AreaRow[]; total: number; label: string; withUnit: (area: string) => string }) {
  return (
    <ul className="grid grid-cols-[minmax(0,8rem)_1fr_auto] gap-x-2 gap-y-1.5" aria-label={label}>
      {rows.map((r) => (
        <li key={r.label} className="col-span-3 grid grid-cols-subgrid items-center text-sm">
          <span className="truncate" title={r.label}>
            {r.label}
          </span>
          <span className="h-4 rounded bg-stone-100" data-testid="stats-bar-track">
            <span className="block h-4 rounded" style={{ width: `${total ? Math.max(1, (r.value / total) * 100) : 0}%`, background: r.color }} />
          </span>
          <span className="tabular-nums text-stone-700">{withUnit(r.area)}</span>
        </li>
      ))}
    </ul>
  );
}
