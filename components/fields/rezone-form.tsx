'use client';
import { useRouter } from 'next/navigation';
import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { ZONING_METHODS, type ZoningMethod } from '@/lib/raster/classify';
import { api } from '@/lib/ui/api';
import { ErrorMessage, Select, SuccessMessage, TextInput } from '../ui/form';
import { SubmitButton } from '../ui/submit-button';
import { Form } from '../ui/validation-messages';
import { TaskProgress, useTask } from '../uploads/progress';

interface RezoneSettingsProps {
  zones: number;
  method: ZoningMethod;
  minZoneAreaHa: number;
  maskWater: boolean;
}

/**
 * Makes the scan's zones again (POST /api/scans/{id}/zones) with another number of classes or
 * method, for the field's boundary as it is now. The task is followed here (also one already under
 * way when the page opened) and the page is shown again with the new zones when it ends.
 */
export function RezoneForm({ scanId, underWay, ...settings }: RezoneSettingsProps & { scanId: number; underWay: string | null }) {
  const t = useTranslations();
  const { busy, running, error, task, submit } = useRezone(scanId, underWay);
  return (
    <Form onSubmit={submit} className="mt-3 flex flex-wrap items-end gap-2 border-t border-stone-100 pt-3" aria-label={t('field.rezone_title')}>
      <p className="basis-full text-sm text-stone-600">{t('field.rezone_help')}</p>
      <RezoneSettings {...settings} />
      <SubmitButton variant="secondary" busy={busy || running}>
        {t('field.rezone_submit')}
      </SubmitButton>
      <div className="basis-full space-y-2">
        {running && <TaskProgress task={task} />}
        <ErrorMessage>{error}</ErrorMessage>
        {task?.status === 'completed' && <SuccessMessage>{t('field.rezone_done')}</SuccessMessage>}
      </div>
    </Form>
  );
}

/** Sends the settings, then follows the task (the one under way, else the one started here) until it ends. */
function useRezone(scanId: number, underWay: string | null) {
  const t = useTranslations();
  const router = useRouter();
  const [taskId, setTaskId] = useState(underWay);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const { task, error: pollError, stopped } = useTask(taskId, (end) => {
    if (end.status === 'completed') router.refresh();
  });
  // A poll refused (the session ended, the task gone) follows the task no more: the button is free again.
  const running = taskId !== null && !stopped && task?.status !== 'completed' && task?.status !== 'error';

  async function submit(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const body = rezoneBody(e.currentTarget.elements);
    setBusy(true);
    const res = await api<{ task_id: string }>(`/api/scans/${scanId}/zones`, { method: 'POST', body });
    setBusy(false);
    if (!res.ok) {
      setError(res.error ?? t('common.network_error'));
      return;
    }
    setError(null);
    setTaskId(res.data.task_id);
  }
  return { busy, running, task, submit, error: error ?? pollError ?? (task?.status === 'error' ? task.error : null) };
}

/** POST /api/scans/{id}/zones's body: an empty smallest zone is the server's default. */
function rezoneBody(el: HTMLFormControlsCollection) {
  const minArea = (el.namedItem('min_zone_area_ha') as HTMLInputElement).value.trim();
  return {
    zones: Number((el.namedItem('zones') as HTMLSelectElement).value),
    method: (el.namedItem('method') as HTMLSelectElement).value,
    ...(minArea ? { min_zone_area_ha: Number(minArea) } : {}),
    mask_water: (el.namedItem('mask_water') as HTMLInputElement).checked,
  };
}

/** The number of zones, the method, the smallest zone and leaving water out, starting from the scan's. */
function RezoneSettings({ zones, method, minZoneAreaHa, maskWater }: RezoneSettingsProps) {
  const t = useTranslations();
  return (
    <>
      <div className="w-32">
        <Select label={t('uploads.zones')} name="zones" defaultValue={String(zones)}>
          {[3, 4, 5, 6, 7].map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </Select>
      </div>
      <div className="min-w-48">
        <Select label={t('uploads.method')} name="method" defaultValue={method}>
          {ZONING_METHODS.map((m) => (
            <option key={m} value={m}>
              {t(`uploads.methods.${m}`)}
            </option>
          ))}
        </Select>
      </div>
      <div className="w-40">
        <TextInput label={t('uploads.min_zone_area')} name="min_zone_area_ha" type="number" min={0} max={1000} step="any" inputMode="decimal" defaultValue={String(minZoneAreaHa)} />
      </div>
      <label className="flex items-center gap-2 self-center text-sm">
        <input type="checkbox" name="mask_water" defaultChecked={maskWater} /> {t('uploads.mask_water')}
      </label>
    </>
  );
}
