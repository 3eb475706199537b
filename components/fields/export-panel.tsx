'use client';
import { useFormatter, useTranslations } from 'next-intl';
import { useState } from 'react';
import type { BaseLayer } from '@/lib/ui/types';
import { Button, ErrorMessage, LinkButton } from '../ui/form';
import { FlightPlanForm, PrescriptionForm } from './export-forms';
import { type FlightFigures, useExportDownload, useFlightPlanForm, usePrescriptionRates } from './use-export-panel';

type OpenForm = 'kmz' | 'isoxml' | null;

interface ExportPanelProps {
  fieldId: number;
  scanId: number | null;
  droneIndex: string | null;
  defaultRates: string;
  zoneClasses: number[];
  baseLayer: BaseLayer;
}

/** The exports' addresses: a scan's prescription and report when one is chosen, else the field's. */
function exportPaths(fieldId: number, scanId: number | null, kmzQuery: string, rateQuery: string) {
  const isoBase = scanId ? `/api/scan/${scanId}/export/isoxml` : `/api/field/export/isoxml/${fieldId}`;
  // The report shows the rates the prescription is made with: those of the ISOXML panel.
  const pdfBase = scanId ? `/api/scan/${scanId}/export/pdf` : `/api/field/export/pdf/${fieldId}`;
  return {
    kmz: `/api/field/export/kmz/${fieldId}?${kmzQuery}`,
    isoxml: rateQuery ? `${isoBase}?${rateQuery}` : isoBase,
    pdf: rateQuery ? `${pdfBase}?${rateQuery}` : pdfBase,
  };
}

/**
 * KMZ flight plan (with its flight parameters), ISOXML task data (rates per zone) and the PDF report;
 * for a drone scan also its orthomosaic and index GeoTIFFs (`droneIndex` names the index).
 */
export function ExportPanel({ fieldId, scanId, droneIndex, defaultRates, zoneClasses, baseLayer }: ExportPanelProps) {
  const [open, setOpen] = useState<OpenForm>(null);
  const plan = useFlightPlanForm();
  const prescription = usePrescriptionRates(defaultRates, zoneClasses);
  const { busy, error, flight, get } = useExportDownload(() => setOpen(null));
  const paths = exportPaths(fieldId, scanId, plan.query, prescription.query);

  return (
    <div className="space-y-3">
      <ExportChoices open={open} onOpen={setOpen} busy={busy} onPdf={() => void get(paths.pdf)} />
      {scanId && droneIndex && <DroneGeoTiffs scanId={scanId} droneIndex={droneIndex} />}
      {open === 'kmz' && <FlightPlanForm plan={plan} fieldId={fieldId} baseLayer={baseLayer} busy={busy} onSubmit={() => void get(paths.kmz)} />}
      {open === 'isoxml' && <PrescriptionForm prescription={prescription} defaultRates={defaultRates} busy={busy} onSubmit={() => void get(paths.isoxml)} />}
      {flight && <FlightSummary flight={flight} />}
      <ErrorMessage>{error}</ErrorMessage>
    </div>
  );
}

/** The buttons that open the KMZ and ISOXML forms, and the report's, which downloads at once. */
function ExportChoices({ open, onOpen, busy, onPdf }: { open: OpenForm; onOpen: (form: OpenForm) => void; busy: boolean; onPdf: () => void }) {
  const t = useTranslations('exports');
  return (
    <div className="flex flex-wrap gap-2">
      <Button variant={open === 'kmz' ? 'primary' : 'secondary'} onClick={() => onOpen(open === 'kmz' ? null : 'kmz')} aria-expanded={open === 'kmz'}>
        {t('kmz')}
      </Button>
      <Button variant={open === 'isoxml' ? 'primary' : 'secondary'} onClick={() => onOpen(open === 'isoxml' ? null : 'isoxml')} aria-expanded={open === 'isoxml'}>
        {t('isoxml')}
      </Button>
      <Button variant="secondary" onClick={onPdf} busy={busy}>
        {t('pdf')}
      </Button>
    </div>
  );
}

/** Plain links: the browser saves a survey's GeoTIFF (hundreds of megabytes for a large one) as it arrives, where `download` would hold all of it in memory first. */
function DroneGeoTiffs({ scanId, droneIndex }: { scanId: number; droneIndex: string }) {
  const t = useTranslations('exports');
  return (
    <div className="flex flex-wrap gap-2">
      <LinkButton href={`/api/scan/${scanId}/export/orthomosaic`} download>
        {t('orthomosaic')}
      </LinkButton>
      <LinkButton href={`/api/scan/${scanId}/export/index`} download>
        {t('index_geotiff', { index: droneIndex })}
      </LinkButton>
    </div>
  );
}

function FlightSummary({ flight }: { flight: FlightFigures }) {
  const t = useTranslations('exports');
  const format = useFormatter();
  return (
    <p role="status" className="rounded border border-emerald-200 bg-emerald-50 px-3 py-2 text-sm text-emerald-900" data-testid="flight-summary">
      {t('flight_summary', {
        minutes: format.number(Math.ceil(flight.seconds / 60)),
        km: format.number(flight.metres / 1000, { maximumFractionDigits: 1 }),
        photos: flight.photos,
      })}
    </p>
  );
}
