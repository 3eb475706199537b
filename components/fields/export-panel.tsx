'use client';
import { useFormatter, useTranslations } from 'next-intl';
import { useId, useState } from 'react';
import { DRONE_KEYS, type DroneKey } from '@/lib/exports/drones';
import { download } from '@/lib/ui/api';
import type { BaseLayer } from '@/lib/ui/types';
import { rememberDrone, storedDrone } from '@/lib/ui/drone-choice';
import { Button, ErrorMessage, LinkButton, Select, TextInput } from '../ui/form';
import { SubmitButton } from '../ui/submit-button';
import { Form } from '../ui/validation-messages';
import { FlightPreview } from './flight-preview';

/** The zone classes `text` (`1:120,2:140`, as the export takes it) gives a rate for; pairs not so written are left to the server to explain. */
function ratedClasses(text: string): number[] {
  return text.split(',').flatMap((pair) => {
    const m = /^\s*(\d+)\s*:\s*(\d+(?:\.\d+)?)\s*$/.exec(pair);
    return m ? [Number(m[1])] : [];
  });
}

interface FlightFigures {
  seconds: number;
  metres: number;
  photos: number;
}

/** The flight plan's summary from its answer's headers (lib/exports/wpml.ts `flightHeaders`); null for other documents. */
function flightFrom(headers: Headers): FlightFigures | null {
  const [seconds, metres, photos] = ['x-flight-duration-s', 'x-flight-distance-m', 'x-flight-photos'].map((h) => Number(headers.get(h) ?? NaN));
  return [seconds, metres, photos].every((v) => Number.isFinite(v)) ? { seconds: seconds!, metres: metres!, photos: photos! } : null;
}

/**
 * KMZ flight plan (with its flight parameters), ISOXML task data (rates per zone) and the PDF report;
 * for a drone scan also its orthomosaic and index GeoTIFFs (`droneIndex` names the index).
 */
export function ExportPanel({ fieldId, scanId, droneIndex, defaultRates, zoneClasses, baseLayer }: { fieldId: number; scanId: number | null; droneIndex: string | null; defaultRates: string; zoneClasses: number[]; baseLayer: BaseLayer }) {
  const t = useTranslations('exports');
  const tc = useTranslations('common');
  const format = useFormatter();
  const [open, setOpen] = useState<'kmz' | 'isoxml' | null>(null);
  const [kmz, setKmz] = useState({ height: '100', direction: '90', overlap_h: '70', overlap_w: '65' });
  // Read once in the browser; the server renders the panel closed, so the form (the only user) never
  // differs between the server's HTML and the first render here.
  const [drone, setDrone] = useState<DroneKey>(storedDrone);
  // Product names stay as DJI writes them; only the words around them are translated.
  const droneLabels: Record<DroneKey, string> = {
    mavic3m: t('drone_mavic3m'),
    mavic3e: t('drone_mavic3e'),
    matrice3d: t('drone_matrice3d'),
    matrice4e: t('drone_matrice4e'),
    m350_p1: t('drone_m350_p1'),
    m300_p1: t('drone_m300_p1'),
  };
  const [rates, setRates] = useState(defaultRates);
  // Empty: the ground no zone covers gets the zones' mean rate; ponds in a field want 0.
  const [unzonedRate, setUnzonedRate] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  /** What the flight plan just downloaded takes: an operator counts batteries by it. */
  const [flight, setFlight] = useState<FlightFigures | null>(null);
  const missingId = useId();
  const droneHintId = useId();

  async function get(path: string) {
    setBusy(true);
    setError(null);
    setFlight(null);
    const res = await download(path);
    setBusy(false);
    if (!res.ok) setError(res.error ?? tc('network_error'));
    else {
      setOpen(null);
      setFlight(flightFrom(res.headers));
    }
  }

  const kmzQuery = new URLSearchParams({ ...kmz, drone }).toString();
  const kmzUrl = `/api/field/export/kmz/${fieldId}?${kmzQuery}`;
  const isoBase = scanId ? `/api/scan/${scanId}/export/isoxml` : `/api/field/export/isoxml/${fieldId}`;
  // The prescription's choices, which the report repeats: the rates of the box and the rate where no zone lies.
  const rateQuery = new URLSearchParams({ ...(rates.trim() && { rates: rates.trim() }), ...(unzonedRate.trim() && { unzoned_rate: unzonedRate.trim() }) }).toString();
  const isoUrl = rateQuery ? `${isoBase}?${rateQuery}` : isoBase;
  // Every zone needs a rate (the box's, else the company's default): a spreader must never get a
  // guessed one, so until each has one the form says which are missing and does not download.
  const classes = [...new Set(zoneClasses)].sort((a, b) => a - b);
  const rated = new Set([...ratedClasses(defaultRates), ...ratedClasses(rates)]);
  const missingRates = classes.filter((c) => !rated.has(c));
  // The report shows the rates the prescription is made with: those of the ISOXML panel.
  const pdfBase = scanId ? `/api/scan/${scanId}/export/pdf` : `/api/field/export/pdf/${fieldId}`;
  const pdfUrl = rateQuery ? `${pdfBase}?${rateQuery}` : pdfBase;

  return (
    <div className="space-y-3">
      <div className="flex flex-wrap gap-2">
        <Button variant={open === 'kmz' ? 'primary' : 'secondary'} onClick={() => setOpen(open === 'kmz' ? null : 'kmz')} aria-expanded={open === 'kmz'}>
          {t('kmz')}
        </Button>
        <Button variant={open === 'isoxml' ? 'primary' : 'secondary'} onClick={() => setOpen(open === 'isoxml' ? null : 'isoxml')} aria-expanded={open === 'isoxml'}>
          {t('isoxml')}
        </Button>
        <Button variant="secondary" onClick={() => void get(pdfUrl)} busy={busy}>
          {t('pdf')}
        </Button>
      </div>
      {scanId && droneIndex && (
        // Plain links: the browser saves a survey's GeoTIFF (hundreds of megabytes for a large one) as
        // it arrives, where `download` would hold all of it in memory first.
        <div className="flex flex-wrap gap-2">
          <LinkButton href={`/api/scan/${scanId}/export/orthomosaic`} download>
            {t('orthomosaic')}
          </LinkButton>
          <LinkButton href={`/api/scan/${scanId}/export/index`} download>
            {t('index_geotiff', { index: droneIndex })}
          </LinkButton>
        </div>
      )}
      {open === 'kmz' && (
        <Form
          className="grid gap-3 rounded border border-stone-200 bg-stone-50 p-3 sm:grid-cols-2"
          aria-label={t('kmz')}
          onSubmit={(e) => {
            e.preventDefault();
            void get(kmzUrl);
          }}
        >
          <div className="sm:col-span-2">
            <Select
              label={t('drone')}
              name="drone"
              value={drone}
              aria-describedby={droneHintId}
              onChange={(e) => {
                const v = e.target.value as DroneKey;
                setDrone(v);
                rememberDrone(v);
              }}
            >
              {DRONE_KEYS.map((k) => (
                <option key={k} value={k}>
                  {droneLabels[k]}
                </option>
              ))}
            </Select>
            <p id={droneHintId} className="mt-1 text-xs text-stone-600">
              {t('drone_hint')}
            </p>
          </div>
          <TextInput label={t('height')} type="number" min={20} max={500} step="any" value={kmz.height} onChange={(e) => setKmz({ ...kmz, height: e.target.value })} required />
          <TextInput label={t('direction')} type="number" min={0} max={359} step={1} value={kmz.direction} onChange={(e) => setKmz({ ...kmz, direction: e.target.value })} required />
          <TextInput label={t('overlap_h')} type="number" min={10} max={95} step="any" value={kmz.overlap_h} onChange={(e) => setKmz({ ...kmz, overlap_h: e.target.value })} required />
          <TextInput label={t('overlap_w')} type="number" min={10} max={95} step="any" value={kmz.overlap_w} onChange={(e) => setKmz({ ...kmz, overlap_w: e.target.value })} required />
          <FlightPreview fieldId={fieldId} query={kmzQuery} baseLayer={baseLayer} />
          <div className="sm:col-span-2">
            <SubmitButton busy={busy}>
              {t('download')}
            </SubmitButton>
          </div>
        </Form>
      )}
      {open === 'isoxml' && (
        <Form
          className="space-y-3 rounded border border-stone-200 bg-stone-50 p-3"
          aria-label={t('isoxml')}
          onSubmit={(e) => {
            e.preventDefault();
            void get(isoUrl);
          }}
        >
          <TextInput
            label={t('rates')}
            value={rates}
            onChange={(e) => setRates(e.target.value)}
            autoComplete="off"
            hint={!classes.length ? t('rates_no_zones') : defaultRates ? t('rates_hint', { classes: classes.join(', ') }) : t('rates_hint_no_defaults', { classes: classes.join(', ') })}
          />
          <TextInput
            label={t('unzoned_rate')}
            name="unzoned_rate"
            type="number"
            min={0}
            max={100000}
            step="any"
            inputMode="decimal"
            value={unzonedRate}
            onChange={(e) => setUnzonedRate(e.target.value)}
            autoComplete="off"
            hint={t('unzoned_rate_hint')}
          />
          {missingRates.length > 0 && (
            <p id={missingId} className="rounded border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900" data-testid="rates-missing">
              {t('rates_missing', { classes: missingRates.join(', ') })}
            </p>
          )}
          <SubmitButton busy={busy} disabled={missingRates.length > 0} aria-describedby={missingRates.length > 0 ? missingId : undefined}>
            {t('download')}
          </SubmitButton>
        </Form>
      )}
      {flight && (
        <p role="status" className="rounded border border-emerald-200 bg-emerald-50 px-3 py-2 text-sm text-emerald-900" data-testid="flight-summary">
          {t('flight_summary', {
            minutes: format.number(Math.ceil(flight.seconds / 60)),
            km: format.number(flight.metres / 1000, { maximumFractionDigits: 1 }),
            photos: flight.photos,
          })}
        </p>
      )}
      <ErrorMessage>{error}</ErrorMessage>
    </div>
  );
}
