'use client';
import { useTranslations } from 'next-intl';
import { TextInput } from '../ui/form';
import { ScanSettingForm } from './scan-setting-form';

/**
 * Sets the day a scan's image was taken: an uploaded raster often carries none, and a drone's clock
 * can be wrong. The field's scans are ordered by it.
 */
export function CaptureDateForm({ scanId, capturedAt }: { scanId: number; capturedAt: string | null }) {
  const t = useTranslations();
  return (
    <ScanSettingForm scanId={scanId} name="captured_at" label={t('field.capture_date')} savedText={t('field.date_saved')}>
      <div className="w-44">
        <TextInput label={t('field.capture_date')} name="captured_at" type="date" min="1900-01-01" required defaultValue={capturedAt?.slice(0, 10) ?? ''} />
      </div>
    </ScanSettingForm>
  );
}
