'use client';
// How the map colours its fields (by status, owner, latest index or crop), what each colour stands
// for in the legend, and the text of a field's tooltip.
import type L from './leaflet-global';
import { useFormatter, useTranslations } from 'next-intl';
import { useCallback, useMemo } from 'react';
import { isNamedCrop } from '@/lib/drone/crops';
import { INDEX_CLASSES, indexClass, zoneColor } from '@/lib/raster/ramp';
import { statusKey } from '@/lib/fields/land-status';
import { NO_VALUE_COLOR, UNSURE_CROP_COLOR, cropColor, ownerColor, statusColor } from '@/lib/ui/status';
import type { FieldFeature } from '@/lib/ui/types';

export type ColorBy = 'status' | 'owner' | 'index' | 'crop';

/** Each scanned field's latest scan (lib/scans/scans.ts): its index, mean and crop, by field id. */
export type LatestScans = Record<number, { scanId: number; source: string; index: string | null; mean: number | null; crop: string | null; cropUnsure: boolean }>;

export interface LegendEntry {
  label: string;
  color: string;
  count: number;
  order: number;
}

export function useFieldColors(colorBy: ColorBy, latestScan: LatestScans) {
  const t = useTranslations();
  const format = useFormatter();
  const labels = useFieldLabels(t, format);
  const { colorOf, paint } = useFieldPaint(colorBy, latestScan);
  const tooltip = useFieldTooltip(latestScan, t, format, labels);
  const meaning = useColorMeaning(colorBy, latestScan, t, format, labels);
  return { ha: labels.ha, colorOf, paint, tooltip, meaning, statusLabel: labels.statusLabel };
}

type Translate = ReturnType<typeof useTranslations>;
type Format = ReturnType<typeof useFormatter>;

/** A field's colour as the map is coloured (`colorBy`). */
function fieldColor(f: FieldFeature, colorBy: ColorBy, latestScan: LatestScans): string {
  if (colorBy === 'status') return statusColor(f.properties.status);
  if (colorBy === 'owner') return ownerColor(f.properties.owner);
  const scan = latestScan[f.id];
  // A guess too close to call is not coloured as that crop: the map shows crops as facts.
  if (colorBy === 'crop') return scan?.crop && scan.cropUnsure ? UNSURE_CROP_COLOR : cropColor(scan?.crop);
  return scan?.mean != null ? zoneColor(indexClass(scan.mean), INDEX_CLASSES) : NO_VALUE_COLOR;
}

/** The legend's label of index class `k` (of INDEX_CLASSES): the range of means it holds. */
function indexClassLabel(k: number, format: Format): string {
  const value = (v: number) => format.number(v, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const [lo, hi] = [value((k - 1) / INDEX_CLASSES), value(k / INDEX_CLASSES)];
  return k === 1 ? `< ${hi}` : k === INDEX_CLASSES ? `≥ ${lo}` : `${lo}–${hi}`;
}

/** How areas, crops and statuses read in the user's language. */
function useFieldLabels(t: Translate, format: Format) {
  const ha = useCallback((value: number) => t('common.ha', { value: format.number(value, 'hectares') }), [t, format]);
  const cropName = useCallback((c: string) => (isNamedCrop(c) ? t(`drone.crops.${c}`) : c), [t]);
  const statusLabel = useCallback(
    (status: string | null) => {
      const key = statusKey(status);
      return key ? t(`fields.status_values.${key}`) : status || t('fields.no_status');
    },
    [t],
  );
  return { ha, cropName, statusLabel };
}

/** A field's colour, and its line and fill on the map. */
function useFieldPaint(colorBy: ColorBy, latestScan: LatestScans) {
  const colorOf = useCallback((f: FieldFeature) => fieldColor(f, colorBy, latestScan), [colorBy, latestScan]);

  // The index ramp's middle classes are near white: outlined in their own colour, such fields
  // vanished against the map (1.03:1). Index classes get a dark outline and the colour inside.
  const paint = useCallback(
    (f: FieldFeature): L.PathOptions => {
      const color = colorOf(f);
      return { color: colorBy === 'index' ? '#1c1917' : color, fillColor: color };
    },
    [colorOf, colorBy],
  );
  return { colorOf, paint };
}

/** A field's tooltip: its name and area, and its latest scan's index and crop. */
function useFieldTooltip(latestScan: LatestScans, t: Translate, format: Format, { ha, cropName }: ReturnType<typeof useFieldLabels>) {
  return useCallback(
    (f: FieldFeature) => {
      const scan = latestScan[f.id];
      const index = scan?.mean == null ? '' : ` · ${(scan.index ?? '').toUpperCase()} ${format.number(scan.mean, { minimumFractionDigits: 3, maximumFractionDigits: 3 })}`;
      const crop = scan?.crop ? ` · ${scan.cropUnsure ? t('map.crop_guess', { crop: cropName(scan.crop) }) : cropName(scan.crop)}` : '';
      return `${f.properties.name} · ${ha(f.properties.area)}${index}${crop}`;
    },
    [ha, format, latestScan, cropName, t],
  );
}

/** What a field's colour stands for: its key, label and place (index classes from high to low). */
function useColorMeaning(colorBy: ColorBy, latestScan: LatestScans, t: Translate, format: Format, { statusLabel, cropName }: ReturnType<typeof useFieldLabels>) {
  return useCallback(
    (f: FieldFeature): { key: string; label: string; order: number } => {
      if (colorBy === 'status') return { key: f.properties.status ?? '', label: statusLabel(f.properties.status), order: 0 };
      if (colorBy === 'owner') return { key: f.properties.owner ?? '', label: f.properties.owner || t('fields.no_owner'), order: 0 };
      const scan = latestScan[f.id];
      if (colorBy === 'crop') {
        if (scan?.crop && scan.cropUnsure) return { key: '?', label: t('map.crop_unsure'), order: 0 };
        return scan?.crop ? { key: scan.crop, label: cropName(scan.crop), order: 0 } : { key: '', label: t('map.no_crop'), order: 0 };
      }
      if (scan?.mean == null) return { key: '', label: t('map.no_scan'), order: 0 };
      const k = indexClass(scan.mean);
      return { key: String(k), label: indexClassLabel(k, format), order: k };
    },
    [colorBy, latestScan, statusLabel, cropName, t, format],
  );
}

/** The legend of the fields' colours: statuses and owners by how many fields they have, index classes from high to low. */
export function useLegend(features: FieldFeature[], colorBy: ColorBy, colors: ReturnType<typeof useFieldColors>): LegendEntry[] {
  const { meaning, colorOf } = colors;
  return useMemo(() => {
    const seen = new Map<string, LegendEntry>();
    for (const f of features) {
      const { key, label, order } = meaning(f);
      const entry = seen.get(key) ?? { label, order, color: colorOf(f), count: 0 };
      entry.count++;
      seen.set(key, entry);
    }
    return [...seen.values()].sort((a, b) => (colorBy === 'index' ? b.order - a.order : b.count - a.count));
  }, [features, colorBy, meaning, colorOf]);
}
