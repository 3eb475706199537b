import { type Coverage, PARTIAL_COVERAGE } from '@/lib/scans/coverage';

/** A scan's coverage of its field (lib/scans/coverage.ts), set as a warning when it is partial. */
export function ScanCoverage({ coverage, text, partialNote }: { coverage: Coverage; text: string; partialNote: string }) {
  const partial = coverage.share < PARTIAL_COVERAGE;
  return (
    <>
      <span className={partial ? 'font-medium text-amber-900' : undefined} data-testid="scan-coverage" data-partial={partial ? 'true' : undefined}>
        {text}
      </span>
      {partial && <span className="block text-xs text-stone-600">{partialNote}</span>}
    </>
  );
}
