'use client';
import Link from 'next/link';
import { useFormatter, useTranslations } from 'next-intl';
import { useState } from 'react';
import { INDEX_NAMES } from '@/lib/raster/bands';
import { ZONING_METHODS } from '@/lib/raster/classify';
import type { FieldChoice } from '@/lib/ui/types';
import { FilePicker } from '../ui/file-picker';
import { ErrorMessage, Select, TextInput } from '../ui/form';
import { SubmitButton } from '../ui/submit-button';
import { Form } from '../ui/validation-messages';
import { FieldChooser } from './field-chooser';
import { TaskProgress, UploadBar, useTask, useUpload } from './progress';

/** POST /upload's answer for a raster (lib/scans/zoning.ts, submitRasterZoning). */
interface RasterAccepted {
  task_id: string;
  field_id: number;
  captured_at: string | null;
  also_covers?: { id: number; name: string }[];
}

/** What a completed zoning task reports. */
interface ZoningResult {
  zones_created?: number;
  area_processed?: number;
  scan_id?: number;
}

export function RasterUpload({ fields, defaultField }: { fields: FieldChoice[]; defaultField?: number }) {
  const t = useTranslations('uploads');
  const { progress, error, busy, accepted, task, pollError, stopped, submit } = useRasterUpload();
  const result = task?.status === 'completed' ? (task.result as ZoningResult | null) : null;

  return (
    <Form onSubmit={submit} className="space-y-3" aria-label={t('raster_title')}>
      <p className="text-sm text-stone-600">{t('raster_help')}</p>
      <FilePicker label={t('raster_file')} name="raster_file" accept=".tif,.tiff,image/tiff" />
      <RasterSettings fields={fields} defaultField={defaultField} />
      {/* Busy until the task ends, or until a refusal stops following it. */}
      <SubmitButton busy={busy && !stopped}>
        {t('start_zoning')}
      </SubmitButton>
      <UploadBar progress={progress} />
      {!stopped && <TaskProgress task={task} />}
      {accepted && <RasterAcceptedNotes accepted={accepted} />}
      <ErrorMessage>{error ?? pollError}</ErrorMessage>
      {task?.status === 'error' && <ErrorMessage>{task.error ?? t('task_failed')}</ErrorMessage>}
      {result && accepted && <RasterResult result={result} fieldId={accepted.field_id} />}
    </Form>
  );
}

/** The raster sent, then the zoning task it started, followed until it ends. */
function useRasterUpload() {
  const { progress, error, busy, send, done } = useUpload<RasterAccepted>();
  const [accepted, setAccepted] = useState<RasterAccepted | null>(null);
  const { task, error: pollError, stopped } = useTask(accepted?.task_id ?? null, done);

  async function submit(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const el = e.currentTarget.elements;
    const file = (el.namedItem('raster_file') as HTMLInputElement).files?.[0];
    if (!file) return;
    const form = rasterForm(el, file);
    setAccepted(null);
    setAccepted(await send('/upload', form, file.size, { staysBusy: true }));
  }
  return { progress, error, busy, accepted, task, pollError, stopped, submit };
}

/** The upload's body: the settings given (those left empty are the server's to choose), the file last. */
function rasterForm(el: HTMLFormControlsCollection, file: File): FormData {
  const form = new FormData();
  const fieldId = (el.namedItem('field_id') as HTMLInputElement).value;
  if (fieldId) form.append('field_id', fieldId);
  form.append('zones', (el.namedItem('zones') as HTMLSelectElement).value);
  form.append('method', (el.namedItem('method') as HTMLSelectElement).value);
  form.append('index', (el.namedItem('index') as HTMLSelectElement).value);
  const minArea = (el.namedItem('min_zone_area_ha') as HTMLInputElement).value.trim();
  if (minArea) form.append('min_zone_area_ha', minArea);
  const capturedAt = (el.namedItem('captured_at') as HTMLInputElement).value;
  if (capturedAt) form.append('captured_at', capturedAt);
  const bands = (el.namedItem('bands') as HTMLInputElement).value.trim();
  if (bands) form.append('bands', bands);
  form.append('mask_water', String((el.namedItem('mask_water') as HTMLInputElement).checked));
  form.append('raster_file', file, file.name);
  return form;
}

function RasterSettings({ fields, defaultField }: { fields: FieldChoice[]; defaultField?: number }) {
  const t = useTranslations('uploads');
  return (
    <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
      <div className="sm:col-span-2">
        <FieldChooser fields={fields} defaultField={defaultField} whenEmpty={t('field_auto')} />
      </div>
      <ZoningSettings />
      <div className="sm:col-span-2">
        <Select label={t('index')} name="index" defaultValue="auto">
          {INDEX_NAMES.map((i) => (
            <option key={i} value={i}>
              {t(`indexes.${i}`)}
            </option>
          ))}
        </Select>
      </div>
      <div className="sm:col-span-2">
        <TextInput label={t('bands')} hint={t('bands_hint')} name="bands" placeholder="swir1, nir, red, green" autoComplete="off" />
      </div>
      <div className="sm:col-span-2">
        <TextInput label={t('captured_at')} hint={t('captured_at_hint')} name="captured_at" type="date" min="1900-01-01" />
      </div>
    </div>
  );
}

/** The number of zones, the method, the smallest zone and leaving water out: cells of the settings' grid. */
function ZoningSettings() {
  const t = useTranslations('uploads');
  return (
    <>
      <Select label={t('zones')} name="zones" defaultValue="5">
        {[3, 4, 5, 6, 7].map((n) => (
          <option key={n} value={n}>
            {n}
          </option>
        ))}
      </Select>
      <Select label={t('method')} name="method" defaultValue="jenks">
        {ZONING_METHODS.map((m) => (
          <option key={m} value={m}>
            {t(`methods.${m}`)}
          </option>
        ))}
      </Select>
      <div className="sm:col-span-2">
        {/* A research plot of a few ares is one patch under the default: it can be zoned only with a smaller one. */}
        <TextInput label={t('min_zone_area')} hint={t('min_zone_area_hint')} name="min_zone_area_ha" type="number" min={0} max={1000} step="any" inputMode="decimal" defaultValue="0.1" />
      </div>
      <div className="sm:col-span-2">
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" name="mask_water" defaultChecked /> {t('mask_water')}
        </label>
        <p className="text-xs text-stone-500">{t('mask_water_hint')}</p>
      </div>
    </>
  );
}

/** Said while the zones are made: the scan's date, and the other fields the raster could zone. */
function RasterAcceptedNotes({ accepted }: { accepted: RasterAccepted }) {
  const t = useTranslations('uploads');
  return (
    <>
      {accepted.captured_at === null && (
        <p className="rounded border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900" data-testid="raster-undated">
          {t('raster_undated')}
        </p>
      )}
      {!!accepted.also_covers?.length && (
        <p className="rounded border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900" data-testid="raster-also-covers">
          {t('raster_also_covers', { count: accepted.also_covers.length, fields: accepted.also_covers.map((f) => f.name).join(', ') })}
        </p>
      )}
    </>
  );
}

function RasterResult({ result, fieldId }: { result: ZoningResult; fieldId: number }) {
  const t = useTranslations('uploads');
  const format = useFormatter();
  return (
    <div role="status" className="space-y-1 rounded border border-emerald-200 bg-emerald-50 p-3 text-sm" data-testid="raster-result">
      <p className="font-medium">{t('zones_created', { count: result.zones_created ?? 0 })}</p>
      {result.area_processed != null && <p>{t('area_processed', { area: format.number(result.area_processed, 'hectares') })}</p>}
      <Link href={`/fields/${fieldId}`} className="text-emerald-800 underline">
        {t('open_field')}
      </Link>
    </div>
  );
}
