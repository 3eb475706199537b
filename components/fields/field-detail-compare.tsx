'use client';
import { useFormatter, useTranslations } from 'next-intl';
import { useId } from 'react';
import type { ScanLayer } from '../map/scan-tiles';
import type { MapScan, ScanCompare } from './field-detail-types';

/** A scan as the compare form and the swipe name it: its date, and its index when it has one. */
export function useScanLabel() {
  const format = useFormatter();
  const dateOf = (s: MapScan) => format.dateTime(new Date(s.date), { dateStyle: 'medium' });
  return (s: MapScan) => `${dateOf(s)}${s.index ? ` · ${s.index.toUpperCase()}` : ''}`;
}

interface CompareFormProps {
  /** Two or more, the latest first. */
  scans: MapScan[];
  compare: ScanCompare | null;
  onCompare: (compare: ScanCompare | null) => void;
}

/** At the layer panel's end: comparing two scans, at first the latest with the one before it. */
export function CompareForm({ scans, compare, onCompare }: CompareFormProps) {
  const t = useTranslations();
  const formId = useId();
  const latest = scans[0]!;
  return (
    <div className="space-y-1 border-t border-stone-200 pt-2" data-testid="compare-form">
      <label className="flex items-center gap-1.5">
        <input
          type="checkbox"
          checked={!!compare}
          onChange={(e) => onCompare(e.target.checked ? { left: scans[1]!.id, right: latest.id, layer: latest.layers.includes('index') ? 'index' : 'ortho', position: 0.5 } : null)}
        />
        {t('map.compare')}
      </label>
      {compare && (
        <>
          {(['left', 'right'] as const).map((side) => (
            <CompareScanSelect key={side} id={`${formId}-${side}`} side={side} scans={scans} compare={compare} onCompare={onCompare} />
          ))}
          <label className="block text-xs" htmlFor={`${formId}-layer`}>
            {t('map.compare_layer')}
          </label>
          <select id={`${formId}-layer`} value={compare.layer} onChange={(e) => onCompare({ ...compare, layer: e.target.value as ScanLayer })} className="w-full rounded border border-stone-300 bg-white px-1 py-0.5 text-xs">
            <option value="index">{t('field.layer_index')}</option>
            <option value="ortho">{t('field.layer_orthomosaic')}</option>
          </select>
        </>
      )}
    </div>
  );
}

function CompareScanSelect({ id, side, scans, compare, onCompare }: { id: string; side: 'left' | 'right'; scans: MapScan[]; compare: ScanCompare; onCompare: (compare: ScanCompare) => void }) {
  const t = useTranslations();
  const scanLabel = useScanLabel();
  return (
    <div>
      <label className="block text-xs" htmlFor={id}>
        {t(side === 'left' ? 'map.compare_left' : 'map.compare_right')}
      </label>
      <select id={id} value={compare[side]} onChange={(e) => onCompare({ ...compare, [side]: Number(e.target.value) })} className="w-full rounded border border-stone-300 bg-white px-1 py-0.5 text-xs">
        {scans.map((s) => (
          <option key={s.id} value={s.id}>
            {scanLabel(s)}
          </option>
        ))}
      </select>
    </div>
  );
}
