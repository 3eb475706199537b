'use client';
import { useTranslations } from 'next-intl';
import { useRef, useState } from 'react';
import { download } from '@/lib/ui/api';
import { kmzExportPath } from '@/lib/ui/drone-choice';

export type KmzExports = ReturnType<typeof useKmzExports>;

/** The fields table's flight plan downloads, for the drone chosen on a field page (as its export panel remembers it). */
export function useKmzExports(setError: (message: string | null) => void) {
  const t = useTranslations();
  // The flight plans being downloaded ('all' or a field's id): their buttons are busy, and a click
  // more does not build the plan again. The ref answers at once, before React renders the state.
  const exportsInFlight = useRef(new Set<string>());
  const [exporting, setExporting] = useState<ReadonlySet<string>>(new Set());

  async function exportKmz(target: number | 'all') {
    const key = String(target);
    if (exportsInFlight.current.has(key)) return;
    exportsInFlight.current.add(key);
    setExporting(new Set(exportsInFlight.current));
    setError(null);
    try {
      const res = await download(kmzExportPath(target));
      if (!res.ok) setError(res.error ?? t('common.network_error'));
    } finally {
      exportsInFlight.current.delete(key);
      setExporting(new Set(exportsInFlight.current));
    }
  }

  return { exporting, exportKmz };
}
