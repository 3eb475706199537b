// A document built in the request's thread when it is quick and in a worker thread when it is not:
// a 600 ha prescription's grid took 7-8 s of CPU (the isoxml library tests every 10 m cell against
// the zones) and a 100,000-vertex field's flight plan 4 s, which stalled every other request of the
// web process meanwhile (GET /api/health waited 6 s).
import { geometryAreaM2 } from '../geo/area';
import { vertexCount } from '../geo/geometry';
import { IN_REQUEST_UP_TO_VERTICES, runRequestWork } from '../tasks/run-in-thread';
import { flightPreview, type FlightPreview } from './flight-preview';
import { buildIsoxml, type IsoxmlOptions } from './isoxml';
import type { ExportField, ExportZone } from './types';
import { buildFlightPlanKmz, estimateWaypoints, type FlightOptions, type FlightSummary } from './wpml';

type FileWork =
  | { op: 'isoxml'; field: Pick<ExportField, 'name' | 'geometry'>; zones: ExportZone[]; opts: IsoxmlOptions }
  | { op: 'kmz'; field: Pick<ExportField, 'geometry'>; opts: FlightOptions };
/** The flight plan drawn before its KMZ is downloaded: planned as the KMZ is, not written. */
type PreviewWork = { op: 'kmz_preview'; field: Pick<ExportField, 'geometry'>; opts: FlightOptions };
export type ExportWork = FileWork | PreviewWork;

/** Grid cells (10 m) of a prescription built in the request (about 0.4 s; a worker thread takes as long to start). */
const IN_REQUEST_UP_TO_GRID_CELLS = 5_000;

/**
 * Waypoints of a flight plan built in the request: about 2 kB of XML each, 10,000 take about 0.2 s
 * (50,000, a 30 km field at 20 m and 95 % side overlap, 0.8 s and 100 MB of XML) whatever the vertices.
 */
const IN_REQUEST_UP_TO_WAYPOINTS = 10_000;

/** The document, and for a flight plan what the flight takes. */
export interface ExportFile {
  file: Buffer;
  flight?: FlightSummary;
}

export function exportWork(work: PreviewWork): FlightPreview;
export function exportWork(work: FileWork): Promise<ExportFile>;
export function exportWork(work: ExportWork): Promise<ExportFile> | FlightPreview;
export function exportWork(work: ExportWork): Promise<ExportFile> | FlightPreview {
  if (work.op === 'kmz_preview') return flightPreview(work.field.geometry, work.opts);
  return fileWork(work);
}

async function fileWork(work: FileWork): Promise<ExportFile> {
  if (work.op === 'isoxml') return { file: await buildIsoxml(work.field, work.zones, work.opts) };
  const { kmz, summary } = await buildFlightPlanKmz(work.field, work.opts);
  return { file: kmz, flight: summary };
}

export function isQuick(work: ExportWork): boolean {
  const vertices = vertexCount(work.field.geometry) + (work.op === 'isoxml' ? work.zones.reduce((n, z) => n + vertexCount(z.geometry), 0) : 0);
  if (vertices > IN_REQUEST_UP_TO_VERTICES) return false;
  if (work.op !== 'isoxml') return estimateWaypoints(work.field.geometry, work.opts) <= IN_REQUEST_UP_TO_WAYPOINTS;
  return !(work.op === 'isoxml' && work.opts.grid && work.zones.length > 0 && geometryAreaM2(work.field.geometry) / 100 > IN_REQUEST_UP_TO_GRID_CELLS);
}

export async function runExportWork(work: FileWork): Promise<ExportFile> {
  if (isQuick(work)) return exportWork(work);
  // A Buffer crosses from the thread as a plain Uint8Array.
  const done = (await runRequestWork('exports', work)) as { file: Uint8Array; flight?: FlightSummary };
  return { ...done, file: Buffer.from(done.file) };
}

/** The flight plan's preview, in a worker thread when its KMZ would be built in one. */
export async function runFlightPreview(work: Omit<PreviewWork, 'op'>): Promise<FlightPreview> {
  const preview: PreviewWork = { op: 'kmz_preview', ...work };
  if (isQuick(preview)) return exportWork(preview);
  return (await runRequestWork('exports', preview)) as FlightPreview;
}
