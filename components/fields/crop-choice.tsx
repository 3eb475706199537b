'use client';
import { useTranslations } from 'next-intl';
import { isNamedCrop } from '@/lib/drone/crops';
import { CropOptions } from '../ui/crop-options';
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
          <CropOptions />
          {userCrop && !isNamedCrop(userCrop) && <option value={userCrop}>{userCrop}</option>}
        </Select>
      </div>
    </ScanSettingForm>
  );
}
