// The legend of a scan's index preview (lib/raster/ramp.ts previewLegend, lib/scans/scans.ts
// scanLegend) against the pixels previewPng and the zoning actually paint.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { scanLegend } from '@/lib/scans/scans';
import { previewPng } from '@/lib/raster/preview';
import { INDEX_RANGES, LEGEND_TICKS, legendDigits, previewLegend, previewStretch, RAMP_STOPS, rampColor } from '@/lib/raster/ramp';
import { computeZones } from '@/lib/raster/zones';
import { tiffBytes } from '@/tests/helpers/tiff';

const dir = mkdtempSync(join(tmpdir(), 'fieldmap-legend-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const hex = (data: Buffer, pixel: number) => '#' + [...data.subarray(pixel * 4, pixel * 4 + 3)].map((v) => v.toString(16).padStart(2, '0')).join('');

/** The RGBA pixels of a PNG. */
async function pixels(png: Buffer) {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

describe('previewLegend', () => {
  it('runs from the stretch’s low end to its high end in ascending ticks, on the ramp’s stops', () => {
    const legend = previewLegend('ndvi', { min: 0.12, max: 0.87 });
    expect(legend.index).toBe('ndvi');
    expect(legend.ticks).toHaveLength(LEGEND_TICKS);
    const values = legend.ticks.map((t) => t.value);
    expect(values[0]).toBe(0.12);
    expect(values.at(-1)).toBeCloseTo(0.87, 12);
    for (let i = 1; i < values.length; i++) expect(values[i]!).toBeGreaterThan(values[i - 1]!);
    expect(legend.ticks.map((t) => t.color)).toEqual(RAMP_STOPS.map((rgb) => '#' + rgb.map((v) => v.toString(16).padStart(2, '0')).join('')));
  });

  it('names the colours previewPng paints at its tick values (NaN left transparent)', async () => {
    // Values a float32 grid holds exactly, as the index grid is float32.
    const stretch = { min: -0.25, max: 0.75 };
    const legend = previewLegend('ndre', stretch);
    const grid = Float32Array.from([...legend.ticks.map((t) => t.value), NaN]);
    const png = await pixels(await previewPng(grid, grid.length, 1, stretch));
    expect(png.width).toBe(grid.length);
    expect(legend.ticks.map((_, i) => hex(png.data, i))).toEqual(legend.ticks.map((t) => t.color));
    expect(png.data[legend.ticks.length * 4 + 3]).toBe(0);
  });

  it('is the stretch a zoned raster’s preview was painted with: its west edge the low end’s colour, its east edge the high end’s', async () => {
    // An index rising from 0.1 in the west column to 0.9 in the east one, and a field around all of it.
    const [west, north, pixel, width, height] = [21, 50, 0.0001, 120, 80];
    const grid = new Float32Array(width * height).map((_, i) => 0.1 + (0.8 * (i % width)) / (width - 1));
    const path = join(dir, 'gradient.tif');
    writeFileSync(path, tiffBytes({ width, height, pixels: grid, georef: { epsg: 4326, origin: [west, north], pixel } }));
    const [w, e, s, n] = [west - pixel, west + (width + 1) * pixel, north - (height + 1) * pixel, north + pixel];
    const result = await computeZones(path, { type: 'Polygon', coordinates: [[[w, s], [e, s], [e, n], [w, n], [w, s]]] }, { zones: 3, method: 'equal', minZoneAreaHa: 0.01 });
    // Per scan: the lowest and highest value in the field, which its statistics keep, and the legend
    // the scan answers is read from them.
    expect(result.stats.min).toBeCloseTo(0.1, 6);
    expect(result.stats.max).toBeCloseTo(0.9, 6);
    const legend = scanLegend({ source: 'raster', index: result.indexName, stats: result.stats })!;
    const png = await pixels(result.preview.png);
    const row = Math.floor(png.height / 2) * png.width;
    const opaque = Array.from({ length: png.width }, (_, c) => row + c).filter((p) => png.data[p * 4 + 3] === 255);
    expect(hex(png.data, opaque[0]!)).toBe(legend.ticks[0]!.color);
    expect(hex(png.data, opaque.at(-1)!)).toBe(legend.ticks.at(-1)!.color);
    // The middle tick's value lies in the middle column: the ramp's pale yellow.
    expect(hex(png.data, row + Math.floor(png.width / 2))).toMatch(/^#(ff|fe|fd)(ff|fe|fd)/);
  });

  it('paints a known index over its fixed range, whatever the field holds, and the scan records that range for its legend', async () => {
    // The same west-to-east rise, 0.1 to 0.5 this time, zoned as NDVI: painted over NDVI's 0-0.9.
    const [west, north, pixel, width, height] = [21, 50, 0.0001, 120, 80];
    const grid = new Float32Array(width * height).map((_, i) => 0.1 + (0.4 * (i % width)) / (width - 1));
    const path = join(dir, 'ndvi-low.tif');
    writeFileSync(path, tiffBytes({ width, height, pixels: grid, georef: { epsg: 4326, origin: [west, north], pixel } }));
    const [w, e, s, n] = [west - pixel, west + (width + 1) * pixel, north - (height + 1) * pixel, north + pixel];
    const result = await computeZones(path, { type: 'Polygon', coordinates: [[[w, s], [e, s], [e, n], [w, n], [w, s]]] }, { zones: 3, method: 'equal', minZoneAreaHa: 0.01, index: 'ndvi' });
    expect(result.preview.ramp).toEqual({ index: 'ndvi', ...INDEX_RANGES.ndvi, fixed: true });
    const legend = scanLegend({ source: 'raster', index: result.indexName, stats: result.stats, details: { preview_ramp: result.preview.ramp } })!;
    expect(legend).toEqual(previewLegend('ndvi', INDEX_RANGES.ndvi!));
    const png = await pixels(result.preview.png);
    const row = Math.floor(png.height / 2) * png.width;
    const opaque = Array.from({ length: png.width }, (_, c) => row + c).filter((p) => png.data[p * 4 + 3] === 255);
    const colour = (v: number) => '#' + rampColor(v / INDEX_RANGES.ndvi!.max).map((x) => x.toString(16).padStart(2, '0')).join('');
    expect(hex(png.data, opaque[0]!)).toBe(colour(result.stats.min));
    expect(hex(png.data, opaque.at(-1)!)).toBe(colour(result.stats.max));
    // 0.5 is not the ramp's green end: that is 0.9's.
    expect(hex(png.data, opaque.at(-1)!)).not.toBe(legend.ticks.at(-1)!.color);
  });
});

describe('scanLegend', () => {
  const stats = { min: 0.2, max: 0.8, mean: 0.5, std: 0.1, median: 0.5 };
  it('is the statistics’ min and max, which the preview was painted over', () => {
    expect(scanLegend({ source: 'raster', index: 'ndvi', stats })).toEqual(previewLegend('ndvi', { min: 0.2, max: 0.8 }));
    // One value all over: painted red at the low end of a stretch one wide, as previewPng does.
    expect(scanLegend({ source: 'raster', index: 'ndvi', stats: { ...stats, min: 0.4, max: 0.4 } })?.ticks.at(-1)?.value).toBeCloseTo(1.4, 12);
    expect(previewStretch(0.4, 0.4)).toEqual({ min: 0.4, max: 1.4 });
    expect(scanLegend({ source: 'raster', index: 'ndvi', stats: null })).toBeNull();
    // Statistics written without a range (older drone rows): no legend rather than a wrong one.
    expect(scanLegend({ source: 'raster', index: 'ndvi', stats: { mean: 0.5, std: 0.1, median: 0.5 } })).toBeNull();
  });

  it('is the range the scan records its preview was painted over, when it records one', () => {
    expect(scanLegend({ source: 'raster', index: 'vari', stats, details: { preview_ramp: { min: -0.2, max: 0.4 } } })).toEqual(previewLegend('vari', { min: -0.2, max: 0.4 }));
  });

  it('is none for a drone scan, whose preview is the orthomosaic in true colour', () => {
    expect(scanLegend({ source: 'drone', index: 'ndvi', stats })).toBeNull();
  });
});

describe('legendDigits', () => {
  it('gives two decimals, more only where ticks would read alike', () => {
    expect(legendDigits(previewLegend('ndvi', { min: 0.1, max: 0.9 }))).toBe(2);
    expect(legendDigits(previewLegend('ndvi', { min: 0.5, max: 0.52 }))).toBe(3);
    expect(legendDigits(previewLegend('ndvi', { min: 0.5, max: 0.5001 }))).toBe(4);
  });
});
