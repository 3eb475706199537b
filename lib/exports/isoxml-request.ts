// The ISOXML export of a field (its latest scan's zones) or of one scan.
import type { TenantDb } from '../db/tenant';
import { notFound } from '../http/errors';
import { buildIsoxml } from './isoxml';
import { loadExportField, loadScanWithZones, resolveRates } from './load';

export async function isoxmlExport(db: TenantDb, companyId: number, target: { fieldId?: number; scanId?: number }, url: URL) {
  let fieldId = target.fieldId;
  if (target.scanId) {
    const scan = await db.scan.findUnique({ where: { id: target.scanId }, select: { fieldId: true } });
    if (!scan) throw notFound();
    fieldId = scan.fieldId;
  }
  const field = await loadExportField(db, fieldId!);
  const { zones } = await loadScanWithZones(db, { fieldId: field.id, scanId: target.scanId, boundary: field.geometry });
  const company = await db.company.findUniqueOrThrow({ where: { id: companyId } });
  const settings = JSON.parse(company.settingsJson) as Record<string, unknown>;
  const rates = resolveRates(url.searchParams.get('rates'), settings, zones);
  const zip = await buildIsoxml(field, zones, {
    rates,
    productName: url.searchParams.get('product') ?? (typeof settings.product === 'string' ? settings.product : 'Fertilizer'),
    grid: url.searchParams.get('grid') === '1',
    customer: field.owner ?? company.name,
    farm: company.name,
  });
  return { zip, fileName: `${field.name || 'field'}_TASKDATA.zip` };
}
