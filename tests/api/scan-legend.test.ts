// A raster scan's answer says what its preview's colours mean (preview.legend), on a real NAIP tile:
// the range the preview was painted over (NDVI's fixed one), and the colours it paints the field's values.
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { INDEX_RANGES, previewLegend, rampColor } from '@/lib/raster/ramp';
import { registerCompany } from '../helpers/company';
import { baseUrl } from '../helpers/context';
import { missingShared, sharedPath } from '../helpers/shared-data';
import { waitForTask } from '../helpers/tasks';

const NAIP = ['raster', 'naip', 'm_4709963_se_14_1_20190904.tif'] as const;
const missing = missingShared(...NAIP);
if (missing) console.warn(`skipping scan legend API tests: ${missing}`);

// Inside the tile's footprint (-99.1856..-99.1241 E, 47.0041..47.0366 N).
const FIELD = { type: 'Polygon', coordinates: [[[-99.16, 47.015], [-99.15, 47.015], [-99.15, 47.025], [-99.16, 47.025], [-99.16, 47.015]]] };

describe.skipIf(!!missing)('scan preview legend', () => {
  it('answers the legend beside the preview’s url and bounds: ticks over NDVI’s fixed range, in the colours the PNG paints the field’s values', async () => {
    const { api } = await registerCompany(baseUrl());
    const fieldId = (await api.post('/api/fields', { name: 'Legend field', geometry: FIELD })).body.id;
    const res = await api.upload('/upload', { raster_file: { file: sharedPath(...NAIP), name: 'naip_2019.tif', type: 'image/tiff' }, field_id: String(fieldId), zones: '3' });
    expect(res.status, res.text).toBe(202);
    const task = await waitForTask(api, res.body.task_id);
    expect(task.status, JSON.stringify(task.error)).toBe('completed');
    const scanId = task.result.scan_id as number;
    const scan = (await api.get(`/api/scans/${scanId}`)).body.scan;

    // Only added: the url and bounds clients read are as they were.
    expect(Object.keys(scan.preview)).toEqual(['url', 'bounds', 'legend']);
    expect(scan.preview.url).toBe(`/api/scans/${scanId}/preview.png`);
    // Painted over NDVI's fixed range, the same for every scan, which the scan records.
    expect(scan.preview.legend).toEqual(previewLegend('ndvi', INDEX_RANGES.ndvi!));
    expect(scan.details.preview_ramp).toEqual(INDEX_RANGES.ndvi);
    const ticks = scan.preview.legend.ticks as { value: number; color: string }[];
    expect(ticks).toHaveLength(5);
    expect(ticks[0]!.value).toBe(0);
    expect(ticks.at(-1)!.value).toBeCloseTo(0.9, 12);
    for (let i = 1; i < ticks.length; i++) expect(ticks[i]!.value).toBeGreaterThan(ticks[i - 1]!.value);
    expect(ticks.map((t) => t.color)).toEqual(['#d7191c', '#fdae61', '#ffffbf', '#a6d96a', '#1a9641']);

    // The preview's pixels are the ramp between the legend's ends: the field's lowest and highest cells
    // (both in the image) in the colours of their values along it.
    const png = Buffer.from(await (await fetch(`${baseUrl()}${scan.preview.url}`, { headers: { cookie: `session_token=${api.cookie}` } })).arrayBuffer());
    const { data } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    const colours = new Set<string>();
    for (let p = 0; p < data.length; p += 4) if (data[p + 3] === 255) colours.add('#' + [...data.subarray(p, p + 3)].map((v) => v.toString(16).padStart(2, '0')).join(''));
    const colour = (v: number) => '#' + rampColor(v / 0.9).map((x) => x.toString(16).padStart(2, '0')).join('');
    expect(colours.has(colour(scan.stats.min)), colour(scan.stats.min)).toBe(true);
    expect(colours.has(colour(scan.stats.max)), colour(scan.stats.max)).toBe(true);
  });
});
