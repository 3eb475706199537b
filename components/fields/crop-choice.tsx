'use client';
import { useRouter } from 'next/navigation';
import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { CROPS, isCrop } from '@/lib/drone/crops';
import { api } from '@/lib/ui/api';
import { Button, ErrorMessage, Select, SuccessMessage } from '../ui/form';

/**
 * Names the crop of a scan (an agronomist who knows the field corrects or confirms the classifier);
 * "As classified" goes back to the classifier's result.
 */
export function CropChoice({ scanId, userCrop }: { scanId: number; userCrop: string | null }) {
  const t = useTranslations();
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);

  async function save(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const crop = (e.currentTarget.elements.namedItem('crop_type') as HTMLSelectElement).value;
    setBusy(true);
    setSaved(false);
    const res = await api(`/api/scans/${scanId}`, { method: 'PUT', body: { crop_type: crop } });
    setBusy(false);
    if (!res.ok) {
      setError(res.error ?? t('common.network_error'));
      return;
    }
    setError(null);
    setSaved(true);
    router.refresh();
  }

  return (
    <form onSubmit={save} className="flex flex-wrap items-end gap-2 border-t border-stone-100 pt-3" aria-label={t('field.crop_correct')}>
      <div className="min-w-40 flex-1">
        <Select label={t('field.crop_correct')} name="crop_type" defaultValue={userCrop ?? 'auto'}>
          <option value="auto">{t('field.crop_use_automatic')}</option>
          {CROPS.map((c) => (
            <option key={c} value={c}>
              {t(`drone.crops.${c}`)}
            </option>
          ))}
          {userCrop && !isCrop(userCrop) && <option value={userCrop}>{userCrop}</option>}
        </Select>
      </div>
      <Button type="submit" variant="secondary" disabled={busy}>
        {t('common.save')}
      </Button>
      <div className="basis-full">
        <ErrorMessage>{error}</ErrorMessage>
        {saved && <SuccessMessage>{t('field.crop_saved')}</SuccessMessage>}
      </div>
    </form>
  );
}
