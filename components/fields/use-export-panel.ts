'use client';
import { useTranslations } from 'next-intl';
import { useState } from 'react';
import type { DroneKey } from '@/lib/exports/drones';
import { download } from '@/lib/ui/api';
import { rememberDrone, storedDrone } from '@/lib/ui/drone-choice';

/** The zone classes `text` (`1:120,2:140`, as the export takes it) gives a rate for; pairs not so written are left to the server to explain. */
function ratedClasses(text: string): number[] {
  return text.split(',').flatMap((pair) => {
    const m = /^\s*(\d+)\s*:\s*(\d+(?:\.\d+)?)\s*$/.exec(pair);
    return m ? [Number(m[1])] : [];
  });
}

export interface FlightFigures {
  seconds: number;
  metres: number;
  photos: number;
}

/** The flight plan's summary from its answer's headers (lib/exports/wpml.ts `flightHeaders`); null for other documents. */
function flightFrom(headers: Headers): FlightFigures | null {
  const [seconds, metres, photos] = ['x-flight-duration-s', 'x-flight-distance-m', 'x-flight-photos'].map((h) => Number(headers.get(h) ?? NaN));
  return [seconds, metres, photos].every((v) => Number.isFinite(v)) ? { seconds: seconds!, metres: metres!, photos: photos! } : null;
}

export type FlightPlan = ReturnType<typeof useFlightPlanForm>;

/** The KMZ form's flight parameters and drone, kept while the form is closed; `query` as the export takes them. */
export function useFlightPlanForm() {
  const [kmz, setKmz] = useState({ height: '100', direction: '90', overlap_h: '70', overlap_w: '65' });
  // Read once in the browser; the server renders the panel closed, so the form (the only user) never
  // differs between the server's HTML and the first render here.
  const [drone, setDrone] = useState<DroneKey>(storedDrone);
  function chooseDrone(v: DroneKey) {
    setDrone(v);
    rememberDrone(v);
  }
  const query = new URLSearchParams({ ...kmz, drone }).toString();
  return { kmz, setKmz, drone, chooseDrone, query };
}

export type PrescriptionRates = ReturnType<typeof usePrescriptionRates>;

/** The ISOXML form's rates per zone class, and the classes still without one. */
export function usePrescriptionRates(defaultRates: string, zoneClasses: number[]) {
  const [rates, setRates] = useState(defaultRates);
  // Empty: the ground no zone covers gets the zones' mean rate; ponds in a field want 0.
  const [unzonedRate, setUnzonedRate] = useState('');
  // The prescription's choices, which the report repeats: the rates of the box and the rate where no zone lies.
  const query = new URLSearchParams({ ...(rates.trim() && { rates: rates.trim() }), ...(unzonedRate.trim() && { unzoned_rate: unzonedRate.trim() }) }).toString();
  // Every zone needs a rate (the box's, else the company's default): a spreader must never get a
  // guessed one, so until each has one the form says which are missing and does not download.
  const classes = [...new Set(zoneClasses)].sort((a, b) => a - b);
  const rated = new Set([...ratedClasses(defaultRates), ...ratedClasses(rates)]);
  const missing = classes.filter((c) => !rated.has(c));
  return { rates, setRates, unzonedRate, setUnzonedRate, query, classes, missing };
}

/** An export's download, and what the flight plan just downloaded takes: an operator counts batteries by it. */
export function useExportDownload(onDownloaded: () => void) {
  const tc = useTranslations('common');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [flight, setFlight] = useState<FlightFigures | null>(null);

  async function get(path: string) {
    setBusy(true);
    setError(null);
    setFlight(null);
    const res = await download(path);
    setBusy(false);
    if (!res.ok) setError(res.error ?? tc('network_error'));
    else {
      onDownloaded();
      setFlight(flightFrom(res.headers));
    }
  }

  return { busy, error, flight, get };
}
