// The index value histogram as a plain SVG (rendered on the server; no chart library needed).
export function Histogram({ histogram, label, formatValue }: { histogram: { min: number; max: number; counts: number[] }; label: string; formatValue: (v: number) => string }) {
  const { counts, min, max } = histogram;
  const peak = Math.max(1, ...counts);
  const w = 100 / Math.max(1, counts.length);
  return (
    <figure className="space-y-1">
      <svg viewBox="0 0 100 40" preserveAspectRatio="none" className="h-32 w-full rounded bg-stone-50" role="img" aria-label={label}>
        {counts.map((c, i) => {
          const h = (c / peak) * 38;
          const v = min + ((i + 0.5) / counts.length) * (max - min);
          // Low index values brown, high ones green.
          const hue = Math.round(30 + Math.max(0, Math.min(1, v)) * 90);
          return <rect key={i} x={i * w} y={40 - h} width={w * 0.9} height={h} fill={`hsl(${hue} 60% 40%)`} />;
        })}
      </svg>
      <figcaption className="flex justify-between text-xs text-stone-600">
        <span>{formatValue(min)}</span>
        <span>{label}</span>
        <span>{formatValue(max)}</span>
      </figcaption>
    </figure>
  );
}
