'use client';
import { useTranslations } from 'next-intl';
import { statusKey } from '@/lib/fields/land-status';
import type { OwnerOption } from '@/lib/ui/types';

/** The options of an owner select: no owner, then the company's owners. */
export function OwnerOptions({ owners }: { owners: OwnerOption[] }) {
  const t = useTranslations('fields');
  return (
    <>
      <option value="">{t('no_owner')}</option>
      {owners.map((o) => (
        <option key={o.id} value={o.id}>
          {o.name}
        </option>
      ))}
    </>
  );
}

/** The options of a status select: none, then the statuses, the known ones in the page's language. */
export function StatusOptions({ statuses, none }: { statuses: readonly string[]; none: string }) {
  const t = useTranslations('fields');
  return (
    <>
      <option value="">{none}</option>
      {statuses.map((s) => {
        const key = statusKey(s);
        return (
          <option key={s} value={s}>
            {key ? t(`status_values.${key}`) : s}
          </option>
        );
      })}
    </>
  );
}
