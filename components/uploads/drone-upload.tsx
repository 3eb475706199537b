'use client';
import Link from 'next/link';
import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { CropOptions } from '../ui/crop-options';
import type { FieldChoice } from '@/lib/ui/types';
import { FilePicker } from '../ui/file-picker';
import { ErrorMessage, Select } from '../ui/form';
import { SubmitButton } from '../ui/submit-button';
import { Form } from '../ui/validation-messages';
import { FieldChooser } from './field-chooser';
import { TaskProgress, UploadBar, useTask, useUpload } from './progress';

interface DroneAccepted {
  message?: string;
  task_id: string;
  field_id: number | null;
  scan_id: number | null;
  estimated_time?: string;
  /** Files of the archive the survey does not use (not photos, copies, photos without GPS). */
  ignored_files?: string[];
}

export function DroneUpload({ fields, defaultField }: { fields: FieldChoice[]; defaultField?: number }) {
  const t = useTranslations();
  const { progress, error, busy, accepted, task, pollError, stopped, submit } = useDroneUpload();
  return (
    <Form onSubmit={submit} className="space-y-3" aria-label={t('uploads.drone_title')}>
      <p className="text-sm text-stone-600">{t('uploads.drone_help')}</p>
      <FilePicker label={t('uploads.drone_file')} name="drone_images" accept=".zip,application/zip" />
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
        <FieldChooser fields={fields} defaultField={defaultField} whenEmpty={t('uploads.field_auto_gps')} />
        <Select label={t('uploads.crop')} name="crop_type" defaultValue="auto">
          <option value="auto">{t('uploads.crop_auto')}</option>
          <CropOptions />
        </Select>
      </div>
      {/* Busy until the task ends, or until a refusal stops following it. */}
      <SubmitButton busy={busy && !stopped}>
        {t('uploads.start_drone')}
      </SubmitButton>
      <UploadBar progress={progress} />
      {accepted && <DroneAcceptedNotes accepted={accepted} completed={task?.status === 'completed'} />}
      {!stopped && <TaskProgress task={task} />}
      <ErrorMessage>{error ?? pollError}</ErrorMessage>
      {task?.status === 'error' && <ErrorMessage>{task.error ?? t('uploads.task_failed')}</ErrorMessage>}
      {task?.status === 'completed' && <DroneResult fieldId={accepted?.field_id ?? (task.result as { field_id?: number } | null)?.field_id} scanId={accepted?.scan_id} />}
    </Form>
  );
}

/** The archive sent, then the survey's task, followed until it ends. */
function useDroneUpload() {
  const { progress, error, busy, send, done } = useUpload<DroneAccepted>();
  const [accepted, setAccepted] = useState<DroneAccepted | null>(null);
  const { task, error: pollError, stopped } = useTask(accepted?.task_id ?? null, done);

  async function submit(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const el = e.currentTarget.elements;
    const file = (el.namedItem('drone_images') as HTMLInputElement).files?.[0];
    if (!file) return;
    const fieldId = (el.namedItem('field_id') as HTMLInputElement).value;
    const crop = (el.namedItem('crop_type') as HTMLSelectElement).value;
    const form = new FormData();
    // Spec 4.7: the JSON part first, then the archive (the server may stream the archive to disk).
    form.append('data', JSON.stringify({ field_id: fieldId ? Number(fieldId) : 'auto', crop_type: crop }));
    form.append('drone_images', file, file.name);
    setAccepted(null);
    setAccepted(await send('/api/drone/upload', form, file.size, { staysBusy: true }));
  }
  return { progress, error, busy, accepted, task, pollError, stopped, submit };
}

/** Said once the archive is accepted: how long the survey may take (until it is done), and the files it leaves out. */
function DroneAcceptedNotes({ accepted, completed }: { accepted: DroneAccepted; completed: boolean }) {
  const t = useTranslations();
  return (
    <>
      {accepted.estimated_time && !completed && <p className="text-sm text-stone-600">{t('uploads.estimated', { time: accepted.estimated_time })}</p>}
      {/* Only the person uploading can tell a frame is missing (one without GPS, say): named, not dropped silently. */}
      {!!accepted.ignored_files?.length && (
        <p className="text-sm text-amber-800" data-testid="drone-ignored">
          {t('uploads.drone_ignored', { count: accepted.ignored_files.length, files: accepted.ignored_files.join(', ') })}
        </p>
      )}
    </>
  );
}

/** `fieldId`: the survey's field, named when it was sent or found by the task from the photos' positions. */
function DroneResult({ fieldId, scanId }: { fieldId: number | undefined; scanId: number | null | undefined }) {
  const t = useTranslations();
  return (
    <div role="status" className="space-y-1 rounded border border-emerald-200 bg-emerald-50 p-3 text-sm" data-testid="drone-result">
      <p className="font-medium">{t('uploads.drone_done')}</p>
      {fieldId && (
        <Link href={`/fields/${fieldId}${scanId ? `?scan=${scanId}` : ''}`} className="text-emerald-800 underline">
          {t('uploads.open_field')}
        </Link>
      )}
    </div>
  );
}
