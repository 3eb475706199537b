'use client';
import { useTranslations } from 'next-intl';
import { NAMED_CROPS } from '@/lib/drone/crops';

/** The crops the pages name, as <option>s sorted by their name in the interface's language. */
export function CropOptions() {
  const t = useTranslations('drone.crops');
  return NAMED_CROPS.map((c) => ({ c, name: t(c) }))
    .sort((a, b) => a.name.localeCompare(b.name))
    .map(({ c, name }) => (
      <option key={c} value={c}>
        {name}
      </option>
    ));
}
