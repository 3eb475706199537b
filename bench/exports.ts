// Export builders on a large field: a 500 ha, 2000-vertex irregular polygon with a pond, 5 zones.
// Usage: npx tsx bench/exports.ts   (writes bench/results/exports.json)
import type { Polygon, Position } from 'geojson';
import { buildIsoxml } from '@/lib/exports/isoxml';
import { buildFieldReportPdf } from '@/lib/exports/pdf';
import type { ExportField, ExportScan, ExportZone } from '@/lib/exports/types';
import { buildAllFlightPlansZip, buildFlightPlanKmz, planSurvey } from '@/lib/exports/wpml';
import { geometryAreaHa } from '@/lib/geo/area';
import { median, printTable, round, timeIt, writeResults, type Row } from './lib';

const LON0 = 18.72, LAT0 = 48.2;
const M_LAT = 111_195, M_LON = M_LAT * Math.cos((LAT0 * Math.PI) / 180);
const ll = (x: number, y: number): Position => [LON0 + x / M_LON, LAT0 + y / M_LAT];

/** A wobbly disc of radius ~1260 m (about 500 ha) with `n` vertices and a round pond. */
function bigField(n: number): Polygon {
  const outer = Array.from({ length: n }, (_, i) => {
    const a = (i / n) * 2 * Math.PI;
    const r = 1262 * (1 + 0.08 * Math.sin(7 * a) + 0.03 * Math.sin(31 * a));
    return ll(r * Math.cos(a), r * Math.sin(a));
  });
  const pond = Array.from({ length: 60 }, (_, i) => {
    const a = -(i / 60) * 2 * Math.PI;
    return ll(300 + 120 * Math.cos(a), 200 + 120 * Math.sin(a));
  });
  return { type: 'Polygon', coordinates: [[...outer, outer[0]!], [...pond, pond[0]!]] };
}

const geometry = bigField(2000);
const field: ExportField = { id: 1, name: 'Benchmark', area: geometryAreaHa(geometry), status: null, parcel_number: null, owner: null, geometry, company: { name: 'Bench' } };
// Five vertical stripes as zones.
const zones: ExportZone[] = Array.from({ length: 5 }, (_, i) => {
  const x0 = -1400 + i * 560, x1 = x0 + 560;
  const g: Polygon = { type: 'Polygon', coordinates: [[ll(x0, -1400), ll(x1, -1400), ll(x1, 1400), ll(x0, 1400), ll(x0, -1400)]] };
  return { classIndex: i, name: `Zone ${i + 1}`, areaHa: geometryAreaHa(g), mean: 0.2 + i * 0.15, min: 0, max: 1, color: ['#d73027', '#fc8d59', '#fee08b', '#91cf60', '#1a9850'][i]!, geometry: g };
});
const scan: ExportScan = {
  id: 1, indexName: 'ndvi', capturedAt: '2026-06-01T10:00:00Z', stats: { min: 0, max: 0.9, mean: 0.6, std: 0.1, median: 0.62 },
  histogram: { min: 0, max: 0.9, counts: Array.from({ length: 64 }, (_, i) => i * (64 - i)) },
};

async function repeat(n: number, fn: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) times.push((await timeIt(fn)).ms);
  return round(median(times));
}

const rows: Row[] = [];
rows.push({ metric: 'field area', value: round(field.area), unit: 'ha' });
for (const height of [100, 40]) {
  const opts = { height, direction: 37, overlapH: 80, overlapW: 70, drone: 'mavic3m' as const };
  const plan = planSurvey(geometry, opts);
  rows.push({ metric: `KMZ ${height} m: waypoints`, value: plan.waypoints.length, unit: '' });
  rows.push({ metric: `KMZ ${height} m: path`, value: round(plan.distance / 1000, 2), unit: 'km' });
  const { kmz } = await buildFlightPlanKmz(field, opts);
  rows.push({ metric: `KMZ ${height} m: size`, value: round(kmz.length / 1024), unit: 'KiB' });
  rows.push({ metric: `KMZ ${height} m: build`, value: await repeat(5, () => buildFlightPlanKmz(field, opts)), unit: 'ms' });
}
const rates = { 0: 200, 1: 180, 2: 160, 3: 140, 4: 120 };
rows.push({ metric: 'ISOXML zones: build', value: await repeat(5, () => buildIsoxml(field, zones, { rates, productName: 'KAS', customer: 'C', farm: 'F' })), unit: 'ms' });
rows.push({ metric: 'ISOXML grid: build', value: await repeat(3, () => buildIsoxml(field, zones, { rates, productName: 'KAS', customer: 'C', farm: 'F', grid: true })), unit: 'ms' });
rows.push({ metric: 'PDF report: build', value: await repeat(5, () => buildFieldReportPdf(field, scan, zones, { locale: 'ru', rates })), unit: 'ms' });

// The all-fields ZIP: 200 fields of 50 ha, consumed as a stream; peak RSS growth is reported.
const small = Array.from({ length: 200 }, (_, i) => ({ id: i + 1, name: `Поле ${i % 50}`, geometry: bigField(200) }));
const rss0 = process.memoryUsage().rss;
let bytes = 0, peak = rss0;
const all = await timeIt(async () => {
  const allOpts = { height: 100, direction: 90, overlapH: 70, overlapW: 65, drone: 'mavic3m' } as const;
  const build = { plan: async (f: Pick<ExportField, 'geometry'>) => (await buildFlightPlanKmz(f, allOpts)).kmz, describe: String, heading: 'Left out:' };
  for await (const chunk of buildAllFlightPlansZip(small, build)) {
    bytes += (chunk as Buffer).length;
    peak = Math.max(peak, process.memoryUsage().rss);
  }
});
rows.push({ metric: 'ZIP of 200 KMZ: time', value: round(all.ms), unit: 'ms' });
rows.push({ metric: 'ZIP of 200 KMZ: size', value: round(bytes / 1024 / 1024, 2), unit: 'MiB' });
rows.push({ metric: 'ZIP of 200 KMZ: RSS growth', value: round((peak - rss0) / 1024 / 1024), unit: 'MiB' });

printTable('exports', rows);
writeResults('exports', rows, { node: process.version });
