// The PDF report of a field (with its latest scan) or of one scan, and the field's other scans, in
// the user's language or `lang`, with the rates of `rates` (as the ISOXML export reads them) over the
// company's.
import { parseSettings } from '../auth/company-settings';
import type { TenantDb } from '../db/tenant';
import { type Locale, isLocale } from '../i18n/locales';
import { companyTimeZone } from '../i18n/time-zone';
import { assertExportQueryKeys, loadExportTarget, loadScanHistory, loadScanWithZones, parseRates, parseUnzonedRate } from './load';
import { buildFieldReportPdf } from './pdf';

export async function pdfReport(db: TenantDb, companyId: number, target: { fieldId?: number; scanId?: number }, url: URL, locale: Locale) {
  assertExportQueryKeys(url, ['rates', 'unzoned_rate', 'lang']);
  const field = await loadExportTarget(db, target);
  const company = await db.company.findUniqueOrThrow({ where: { id: companyId } });
  const settings = parseSettings(company.settingsJson);
  // The ISOXML export's parsing, 422s and cap; a class without a rate is shown without one, not refused.
  const rates = parseRates(url.searchParams.get('rates'), settings);
  const unzonedRate = parseUnzonedRate(url.searchParams.get('unzoned_rate'));
  // The history's first is the scan taken last, the report's when none is named.
  const lang = url.searchParams.get('lang');
  const reportLocale = isLocale(lang) ? lang : locale;
  const history = await loadScanHistory(db, field.id, reportLocale);
  const { scan, zones } = await loadScanWithZones(db, { fieldId: field.id, scanId: target.scanId ?? history[0]?.id, boundary: field.geometry });
  const pdf = await buildFieldReportPdf(field, scan, zones, {
    locale: reportLocale,
    rates,
    unzonedRate,
    history,
    timeZone: companyTimeZone(settings),
  });
  return { pdf, fileName: `${field.name || 'field'}.pdf` };
}
