// The ISOXML export of a field (its latest scan's zones) or of one scan.
import { parseSettings } from '../auth/company-settings';
import type { TenantDb } from '../db/tenant';
import { unprocessable } from '../errors';
import { runExportWork } from './export-work';
import { assertExportQueryKeys, loadExportTarget, loadScanWithZones, parseUnzonedRate, resolveRates } from './load';

export async function isoxmlExport(db: TenantDb, companyId: number, target: { fieldId?: number; scanId?: number }, url: URL) {
  assertExportQueryKeys(url, ['rates', 'product', 'grid', 'unzoned_rate']);
  const field = await loadExportTarget(db, target);
  const { zones } = await loadScanWithZones(db, { fieldId: field.id, scanId: target.scanId, boundary: field.geometry });
  const company = await db.company.findUniqueOrThrow({ where: { id: companyId } });
  const settings = parseSettings(company.settingsJson);
  const rates = resolveRates(url.searchParams.get('rates'), settings, zones);
  const opts = {
    rates,
    productName: url.searchParams.get('product') || (typeof settings.product === 'string' ? settings.product : 'Fertilizer'),
    grid: gridFlag(url.searchParams.get('grid')),
    unzonedRate: parseUnzonedRate(url.searchParams.get('unzoned_rate')),
    // The customer is whom the work is done for: the farm itself, not the field's landowner (a leased
    // field's landlord is no customer of its tenant's spreading).
    customer: company.name,
    farm: company.name,
  };
  const { file: zip } = await runExportWork({ op: 'isoxml', field: { name: field.name, geometry: field.geometry }, zones, opts });
  return { zip, fileName: `${field.name || 'field'}_TASKDATA.zip` };
}

/** `grid=1` (or true) for a grid of cells, `0` (false) or nothing for zone polygons; anything else is a typo, not polygons. */
function gridFlag(value: string | null): boolean {
  if (value === null || value === '' || value === '0' || value === 'false') return false;
  if (value === '1' || value === 'true') return true;
  throw unprocessable('export_grid_flag');
}
