// The KMZ flight plan exports: one field's plan, and the ZIP of all the company's fields' plans.
import type { Readable } from 'node:stream';
import type { TenantDb } from '../db/tenant';
import { AppError, notFound } from '../errors';
import { errorBody } from '../http/respond';
import { translate } from '../i18n/messages';
import type { Locale } from '../i18n/locales';
import type { Logger } from '../log';
import { runExportWork, runFlightPreview } from './export-work';
import { loadExportField, loadExportFields } from './load';
import { buildAllFlightPlansZip, checkPlanSize, estimateWaypoints, flightHeaders, kmzFileName, planSizeError, validateFlightParams } from './wpml';

export async function kmzExport(db: TenantDb, fieldId: number, url: URL) {
  const opts = validateFlightParams(Object.fromEntries(url.searchParams));
  const field = await loadExportField(db, fieldId);
  // Refused from the vertices, before a plan of millions of waypoints is started.
  checkPlanSize(field.geometry, opts);
  const { file, flight } = await runExportWork({ op: 'kmz', field: { geometry: field.geometry }, opts });
  return { kmz: file, fileName: kmzFileName(field.name), headers: flightHeaders(flight!) };
}

/** The plan `kmzExport` would write for the same query, as GeoJSON and its summary, for the map before the download. */
export async function kmzPreview(db: TenantDb, fieldId: number, url: URL) {
  const opts = validateFlightParams(Object.fromEntries(url.searchParams));
  const field = await loadExportField(db, fieldId);
  checkPlanSize(field.geometry, opts);
  return runFlightPreview({ field: { geometry: field.geometry }, opts });
}

/**
 * The ZIP of every field's plan, streamed. The parameters are checked before the answer starts; a
 * field whose plan fails is named in the archive's errors.txt (wpml.ts `buildAllFlightPlansZip`),
 * except when no field's plan can be made at all: then its refusal is the answer (422).
 */
export async function allKmzExport(db: TenantDb, url: URL, locale: Locale, log: Logger): Promise<Readable> {
  const opts = validateFlightParams(Object.fromEntries(url.searchParams));
  const fields = await loadExportFields(db);
  if (!fields.length) throw notFound('export_no_fields');
  const refusals = new Map(fields.map((f) => [f.id, planSizeError(estimateWaypoints(f.geometry, opts))]));
  if ([...refusals.values()].every(Boolean)) throw refusals.get(fields[0]!.id)!;
  return buildAllFlightPlansZip(fields, {
    plan: async (field) => {
      // Known too big already: no worker thread is started to find it out again.
      const refused = refusals.get(field.id);
      if (refused) throw refused;
      return (await runExportWork({ op: 'kmz', field: { geometry: field.geometry }, opts })).file;
    },
    describe: (err) => {
      if (err instanceof AppError) return errorBody(err, locale).error;
      log.error({ err }, 'flight plan of the all-fields ZIP failed');
      return translate(locale, 'errors.kmz_plan_failed');
    },
    heading: translate(locale, 'errors.kmz_all_left_out'),
  });
}
