// The field page's view model (lib/fields/field-page.ts): its pure pieces, and the loader on a real
// SQLite file with a scan made for an earlier boundary.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, createDb } from '@/lib/db/client';
import { migrate } from '@/lib/db/migrate';
import { type ScratchDb, scratchSqlite } from '@/lib/db/scratch';
import { tenantDb } from '@/lib/db/tenant';
import { zoneRatesText } from '@/lib/exports/load';
import { boundaryFingerprint } from '@/lib/scans/boundary';
import { type ScanSummary, chosenScan, fieldPageId, indexTrend, loadFieldPage, meanChange, zoneTable } from '@/lib/fields/field-page';
import { boundingBox } from '@/lib/geo/geometry';
import { AppError } from '@/lib/errors';
import { INDEX_RANGES, previewLegend } from '@/lib/raster/ramp';
import { scanTiles } from '@/lib/scans/scans';

const summary = (id: number, over: Partial<ScanSummary> = {}): ScanSummary => ({
  id,
  field_id: 1,
  source: 'raster',
  status: 'completed',
  file_name: null,
  index: 'ndvi',
  captured_at: null,
  created_at: '2026-11-01T10:00:00.000Z',
  stats: { mean: 0.5, std: 0.1, median: 0.5 },
  crop_type: null,
  ...over,
});

describe('fieldPageId', () => {
  it('takes a positive integer, as the page always has', () => {
    expect(fieldPageId('12')).toBe(12);
    expect(fieldPageId('1.0')).toBe(1);
    for (const raw of ['0', '-3', '1.5', 'abc', '']) expect(fieldPageId(raw)).toBeNull();
  });
});

describe('chosenScan', () => {
  const scans = [summary(5, { status: 'processing' }), summary(4), summary(3, { status: 'error' }), summary(2)];
  it('is the completed scan the query names', () => expect(chosenScan(scans, '2')?.id).toBe(2));
  it('is the latest completed one when the query names none, or one not completed', () => {
    expect(chosenScan(scans, undefined)?.id).toBe(4);
    expect(chosenScan(scans, '5')?.id).toBe(4);
    expect(chosenScan(scans, '3')?.id).toBe(4);
    expect(chosenScan(scans, '99')?.id).toBe(4);
  });
  it('is none without a completed scan', () => expect(chosenScan([summary(1, { status: 'processing' })], '1')).toBeUndefined());
});

describe('indexTrend', () => {
  const scans = [
    summary(6, { captured_at: '2025-07-01T00:00:00.000Z', stats: { mean: 0.7, std: 0, median: 0.7 } }),
    summary(5, { captured_at: '2024-07-01T00:00:00.000Z', index: 'vari' }),
    summary(4, { captured_at: null }),
    summary(3, { captured_at: '2023-07-01T00:00:00.000Z', status: 'processing' }),
    summary(2, { captured_at: '2022-07-01T00:00:00.000Z', stats: null }),
    summary(1, { captured_at: '2021-07-01T00:00:00.000Z', stats: { mean: 0.4, std: 0, median: 0.4 } }),
  ];
  it('takes the completed scans of the chosen index with a known date and a mean, in their order', () => {
    expect(indexTrend(scans, { index: 'ndvi' })).toEqual([
      { scanId: 6, time: Date.parse('2025-07-01T00:00:00Z'), mean: 0.7, captured_at: '2025-07-01T00:00:00.000Z', created_at: '2026-11-01T10:00:00.000Z' },
      { scanId: 1, time: Date.parse('2021-07-01T00:00:00Z'), mean: 0.4, captured_at: '2021-07-01T00:00:00.000Z', created_at: '2026-11-01T10:00:00.000Z' },
    ]);
    expect(indexTrend(scans, { index: 'vari' }).map((p) => p.scanId)).toEqual([5]);
  });
});

describe('meanChange', () => {
  const at = (mean: number) => ({ mean, std: 0, median: mean });
  const scans = [summary(4, { stats: at(0.6) }), summary(3, { index: 'vari', stats: at(0.1) }), summary(2, { status: 'processing' }), summary(1, { stats: at(0.45), captured_at: '2024-06-01T00:00:00.000Z' })];
  it('is the change since the completed scan of the same index taken before', () => {
    const change = meanChange(scans, { id: 4, index: 'ndvi', stats: at(0.6), captured_at: '2025-06-01T00:00:00.000Z' });
    expect(change?.since).toEqual({ captured_at: '2024-06-01T00:00:00.000Z', created_at: '2026-11-01T10:00:00.000Z' });
    expect(change?.change).toBeCloseTo(0.15, 12);
  });
  it('is none for the first scan of its index, or without statistics', () => {
    expect(meanChange(scans, { id: 1, index: 'ndvi', stats: at(0.45), captured_at: '2024-06-01T00:00:00.000Z' })).toBeNull();
    expect(meanChange(scans, { id: 3, index: 'vari', stats: at(0.1), captured_at: '2025-06-01T00:00:00.000Z' })).toBeNull();
    expect(meanChange(scans, { id: 4, index: 'ndvi', stats: null, captured_at: '2025-06-01T00:00:00.000Z' })).toBeNull();
  });
  it('is none when either scan has no known date: an old image uploaded today is not this season', () => {
    expect(meanChange(scans, { id: 4, index: 'ndvi', stats: at(0.6), captured_at: null })).toBeNull();
    const undatedBefore = [summary(4, { stats: at(0.6) }), summary(1, { stats: at(0.45), captured_at: null })];
    expect(meanChange(undatedBefore, { id: 4, index: 'ndvi', stats: at(0.6), captured_at: '2025-06-01T00:00:00.000Z' })).toBeNull();
  });
});

describe('the field map legend', () => {
  it('is the fixed ramp of the scan’s index, for a drone survey as for an uploaded raster, whatever the scan’s own range', () => {
    const stats = { min: 0.05, max: 0.31, mean: 0.2, std: 0.05 } as Parameters<typeof scanTiles>[1]['stats'];
    expect(scanTiles({ id: 1, source: 'drone', status: 'completed', dataPath: 'd' }, { index: 'vari', stats })?.legend).toEqual(previewLegend('vari', INDEX_RANGES.vari!));
    expect(scanTiles({ id: 2, source: 'raster', status: 'completed', dataPath: 'r' }, { index: 'ndvi', stats })?.legend).toEqual(previewLegend('ndvi', INDEX_RANGES.ndvi!));
    expect(scanTiles({ id: 3, source: 'raster', status: 'processing', dataPath: null }, { index: 'ndvi', stats })).toBeNull();
  });
});

describe('zoneTable', () => {
  const zone = (id: number, areaHa: number) => ({ type: 'Feature' as const, id, properties: { class: id, name: `${id}: 0.18–0.34`, min: 0.18, max: 0.34, mean: 0.25, area_ha: areaHa, color: '#123456' }, geometry: {} });
  it('gives each zone its share of the field and lists the ground no zone covers', () => {
    const table = zoneTable([zone(1, 3), zone(2, 5)], 10, 'ru');
    expect(table.rows).toEqual([
      { id: 1, class: 1, color: '#123456', name: '1: 0,18–0,34', areaHa: 3, share: 0.3, mean: 0.25 },
      { id: 2, class: 2, color: '#123456', name: '2: 0,18–0,34', areaHa: 5, share: 0.5, mean: 0.25 },
    ]);
    expect(table.unzoned).toEqual({ areaHa: 2, share: 0.2 });
  });
  it('lists no rest that is only the edge of the pixels, and shares of the zones when they reach past the field', () => {
    expect(zoneTable([zone(1, 9.995)], 10, 'en').unzoned).toBeNull();
    const past = zoneTable([zone(1, 6), zone(2, 6)], 10, 'en');
    expect(past.rows.map((r) => r.share)).toEqual([0.5, 0.5]);
    expect(past.unzoned).toBeNull();
    expect(zoneTable([], 10, 'en')).toEqual({ rows: [], unzoned: null });
  });
});

describe('zoneRatesText', () => {
  it('writes the company’s rates as the export takes them', () => {
    expect(zoneRatesText({ zone_rates: { 1: 120, 2: 140.5 } })).toBe('1:120,2:140.5');
    expect(zoneRatesText({})).toBe('');
  });
});

describe('loadFieldPage', () => {
  let scratch: ScratchDb;
  let db: Db;
  let companyId: number;
  let otherCompanyId: number;
  let fieldId: number;
  let scanId: number;
  const square = (lon: number, lat: number, d: number) => ({ type: 'Polygon' as const, coordinates: [[[lon, lat], [lon + d, lat], [lon + d, lat + d], [lon, lat + d], [lon, lat]]] });
  const owner = { companyId: 0, role: 'owner' };

  beforeAll(async () => {
    scratch = scratchSqlite();
    await migrate(scratch.target);
    db = createDb(scratch.target);
    companyId = (await db.company.create({ data: { name: 'A', slug: 'a', settingsJson: JSON.stringify({ zone_rates: { 1: 100, 2: 150 } }) } })).id;
    otherCompanyId = (await db.company.create({ data: { name: 'B', slug: 'b' } })).id;
    owner.companyId = companyId;
    // The field as it is now: the western half of the square its scan was made for.
    const before = square(30, 50, 0.01);
    const now = { type: 'Polygon' as const, coordinates: [[[30, 50], [30.005, 50], [30.005, 50.01], [30, 50.01], [30, 50]]] };
    const field = await db.field.create({
      data: { companyId, name: 'West', area: 35.7, geometry: JSON.stringify(now), attributesJson: JSON.stringify({ split_from: { id: 999, name: 'Whole' }, LPIS: 'X-1' }), ...boundingBox(now) },
    });
    fieldId = field.id;
    const scan = await db.scan.create({
      data: {
        companyId,
        fieldId,
        source: 'raster',
        status: 'completed',
        indexName: 'ndvi',
        capturedAt: new Date('2025-06-01T00:00:00Z'),
        statsJson: JSON.stringify({ mean: 0.5, std: 0.1, median: 0.5 }),
        histogramJson: JSON.stringify({ min: 0, max: 1, counts: [1, 2] }),
        detailsJson: JSON.stringify({ boundary: boundaryFingerprint(before), zoning: { zones: 4, method: 'quantile', min_zone_area_ha: 0.1, zones_made: 1, zones_short: 'small_patches' } }),
      },
    });
    scanId = scan.id;
    // One zone over the whole square it was made for: within the present boundary, half of it.
    await db.zone.create({ data: { companyId, fieldId, scanId, classIndex: 1, name: '1: 0.40–0.60', minValue: 0.4, maxValue: 0.6, meanValue: 0.5, areaHa: 71.4, color: '#00ff00', geometry: JSON.stringify(before) } });
  });

  afterAll(async () => {
    await db?.$disconnect();
    await scratch?.drop();
  });

  it('shows the chosen scan’s zones within the present boundary, measured again', async () => {
    const view = await loadFieldPage(tenantDb(db, companyId), owner, String(fieldId), {}, 'en');
    expect(view.field).toMatchObject({ id: fieldId, name: 'West' });
    expect(view.can).toMatchObject({ edit: true, deleteFields: true, exportMaps: true, uploadScans: true });
    expect(view.splitFrom).toEqual({ id: 999, name: 'Whole' });
    expect(view.attributes).toEqual([['LPIS', 'X-1']]);
    expect(view.mergedFrom).toEqual([]);
    // A zoning recorded before water had its own test: water is left out when made again, and no hectares are said.
    expect(view.scan).toMatchObject({ id: scanId, madeForEarlierBoundary: true, rezone: { zones: 4, method: 'quantile', minZoneAreaHa: 0.1, maskWater: true, underWay: null }, trend: [{ scanId }], meanChange: null });
    // How the zones were made, and why one of four: the page says so beside them.
    expect(view.scan!.zoning).toEqual({ method: 'quantile', asked: 4, made: 1, minZoneAreaHa: 0.1, short: 'small_patches', waterHa: null, noDataHa: null });
    const [row] = view.scan!.zones.rows;
    expect(row!.areaHa).toBeGreaterThan(30);
    expect(row!.areaHa).toBeLessThan(40);
    expect(view.map.zones!.features[0]!.properties.area_ha).toBe(row!.areaHa);
    // Made for an earlier boundary, a raster's coverage is what its zones cover of the field.
    expect(view.scan!.coverage).toMatchObject({ kind: 'zoned', fieldHa: 35.7 });
    expect(view.exports).toEqual({ scanId, droneIndex: null, defaultRates: '1:100,2:150', zoneClasses: [1] });
  });

  it('gives a viewer nothing to change', async () => {
    const view = await loadFieldPage(tenantDb(db, companyId), { companyId, role: 'viewer' }, String(fieldId), {}, 'en');
    expect(view.can).toMatchObject({ edit: false, deleteFields: false, exportMaps: false, uploadScans: false });
  });

  it('names the parcel just taken out', async () => {
    const other = await db.field.create({ data: { companyId, name: 'East', area: 1, geometry: JSON.stringify(square(31, 50, 0.001)), ...boundingBox(square(31, 50, 0.001)) } });
    const view = await loadFieldPage(tenantDb(db, companyId), owner, String(fieldId), { restored: String(other.id) }, 'en');
    expect(view.restored).toEqual({ id: other.id, name: 'East' });
  });

  it('finds no field of another company, nor one an id cannot name', async () => {
    for (const [company, raw] of [
      [otherCompanyId, String(fieldId)],
      [companyId, 'abc'],
      [companyId, '0'],
    ] as const) {
      const err = await loadFieldPage(tenantDb(db, company), { companyId: company, role: 'owner' }, raw, {}, 'en').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).kind).toBe('not_found');
    }
  });
});
