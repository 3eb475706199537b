'use client';
import { useTranslations } from 'next-intl';
import { useId } from 'react';
import { DRONE_KEYS, type DroneKey } from '@/lib/exports/drones';
import type { BaseLayer } from '@/lib/ui/types';
import { Select, TextInput } from '../ui/form';
import { SubmitButton } from '../ui/submit-button';
import { Form } from '../ui/validation-messages';
import { FlightPreview } from './flight-preview';
import type { FlightPlan, PrescriptionRates } from './use-export-panel';

interface FlightPlanFormProps {
  plan: FlightPlan;
  fieldId: number;
  baseLayer: BaseLayer;
  busy: boolean;
  onSubmit: () => void;
}

/** The KMZ flight plan's drone and flight parameters, with the flight's preview. */
export function FlightPlanForm({ plan, fieldId, baseLayer, busy, onSubmit }: FlightPlanFormProps) {
  const t = useTranslations('exports');
  const droneHintId = useId();
  const { kmz, setKmz } = plan;
  return (
    <Form
      className="grid gap-3 rounded border border-stone-200 bg-stone-50 p-3 sm:grid-cols-2"
      aria-label={t('kmz')}
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
    >
      <div className="sm:col-span-2">
        <Select label={t('drone')} name="drone" value={plan.drone} aria-describedby={droneHintId} onChange={(e) => plan.chooseDrone(e.target.value as DroneKey)}>
          <DroneOptions />
        </Select>
        <p id={droneHintId} className="mt-1 text-xs text-stone-600">
          {t('drone_hint')}
        </p>
      </div>
      <TextInput label={t('height')} type="number" min={20} max={500} step="any" value={kmz.height} onChange={(e) => setKmz({ ...kmz, height: e.target.value })} required />
      <TextInput label={t('direction')} type="number" min={0} max={359} step={1} value={kmz.direction} onChange={(e) => setKmz({ ...kmz, direction: e.target.value })} required />
      <TextInput label={t('overlap_h')} type="number" min={10} max={95} step="any" value={kmz.overlap_h} onChange={(e) => setKmz({ ...kmz, overlap_h: e.target.value })} required />
      <TextInput label={t('overlap_w')} type="number" min={10} max={95} step="any" value={kmz.overlap_w} onChange={(e) => setKmz({ ...kmz, overlap_w: e.target.value })} required />
      <FlightPreview fieldId={fieldId} query={plan.query} baseLayer={baseLayer} />
      <div className="sm:col-span-2">
        <SubmitButton busy={busy}>{t('download')}</SubmitButton>
      </div>
    </Form>
  );
}

function DroneOptions() {
  const t = useTranslations('exports');
  // Product names stay as DJI writes them; only the words around them are translated.
  const droneLabels: Record<DroneKey, string> = {
    mavic3m: t('drone_mavic3m'),
    mavic3e: t('drone_mavic3e'),
    matrice3d: t('drone_matrice3d'),
    matrice4e: t('drone_matrice4e'),
    m350_p1: t('drone_m350_p1'),
    m300_p1: t('drone_m300_p1'),
  };
  return DRONE_KEYS.map((k) => (
    <option key={k} value={k}>
      {droneLabels[k]}
    </option>
  ));
}

interface PrescriptionFormProps {
  prescription: PrescriptionRates;
  /** The company's default rates, which the box's add to or replace. */
  defaultRates: string;
  busy: boolean;
  onSubmit: () => void;
}

/** The ISOXML task data's rate per zone class and where no zone lies; refused while a zone has none. */
export function PrescriptionForm({ prescription, defaultRates, busy, onSubmit }: PrescriptionFormProps) {
  const t = useTranslations('exports');
  const missingId = useId();
  const { classes, missing } = prescription;
  const ratesHint = !classes.length ? t('rates_no_zones') : defaultRates ? t('rates_hint', { classes: classes.join(', ') }) : t('rates_hint_no_defaults', { classes: classes.join(', ') });
  return (
    <Form
      className="space-y-3 rounded border border-stone-200 bg-stone-50 p-3"
      aria-label={t('isoxml')}
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
    >
      <TextInput label={t('rates')} value={prescription.rates} onChange={(e) => prescription.setRates(e.target.value)} autoComplete="off" hint={ratesHint} />
      <TextInput
        label={t('unzoned_rate')}
        name="unzoned_rate"
        type="number"
        min={0}
        max={100000}
        step="any"
        inputMode="decimal"
        value={prescription.unzonedRate}
        onChange={(e) => prescription.setUnzonedRate(e.target.value)}
        autoComplete="off"
        hint={t('unzoned_rate_hint')}
      />
      {missing.length > 0 && (
        <p id={missingId} className="rounded border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900" data-testid="rates-missing">
          {t('rates_missing', { classes: missing.join(', ') })}
        </p>
      )}
      <SubmitButton busy={busy} disabled={missing.length > 0} aria-describedby={missing.length > 0 ? missingId : undefined}>
        {t('download')}
      </SubmitButton>
    </Form>
  );
}
