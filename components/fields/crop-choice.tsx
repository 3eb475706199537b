'use client';
import { useTranslations } from 'next-intl';
import { NAMED_CROPS, isNamedCrop } from '@/lib/drone/crops';
import { Select } from '../ui/form';
import { ScanSettingForm } from './scan-setting-form';

/**
 * Names the crop of a scan (an agronomist who knows the field corrects or confirms the classifier);
 * "As classified" goes back to the classifier's result.
 */
export function CropChoice({ scanId, userCrop }: { scanId: number; userCrop: string | null }) {
  const t = useTranslations();
  return (
    <ScanSettingForm scanId={scanId} name="crop_type" label={t('field.crop_correct')} savedText={t('field.crop_saved')} className="border-t border-stone-100 pt-3">
      <div className="min-w-40 flex-1">
        <Select label={t('field.crop_correct')} name="crop_type" defaultValue={userCrop ?? 'auto'}>
          <option value="auto">{t('field.crop_use_automatic')}</option>
          {NAMED_CROPS.map((c) => ({ c, name: t(`drone.crops.${c}`) }))
            .sort((a, b) => a.name.localeCompare(b.name))
            .map(({ c, name }) => (
              <option key={c} value={c}>
                {name}
              </option>
            ))}
          {userCrop && !isNamedCrop(userCrop) && <option value={userCrop}>{userCrop}</option>}
        </Select>
      </div>
    </ScanSettingForm>
  );
}
