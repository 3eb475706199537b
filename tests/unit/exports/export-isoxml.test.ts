import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { booleanPointInPolygon, centroid } from '@turf/turf';
import type { MultiPolygon, Polygon, Position } from 'geojson';
import { ExtendedPolygon, ExtendedTask, ISOXMLManager, type Partfield } from 'isoxml';
import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import { geometryAreaM2 } from '@/lib/geo/area';
import { parseUnzonedRate, resolveRates } from '@/lib/exports/load';
import { exportWork, isQuick } from '@/lib/exports/export-work';
import { buildIsoxml, type IsoxmlOptions } from '@/lib/exports/isoxml';
import type { ExportZone } from '@/lib/exports/types';
import { missingShared, sharedPath } from '../../helpers/shared-data';

const XSD = ['isoxml', 'isoxml-py', 'xsd', 'ISO11783_TaskFile_V4-3.xsd'] as const;
const FARMDOC = ['isoxml', 'isoxml-py', 'samples', 'v4', 'farmdoc', 'fertilizer_map_1', 'TASKDATA.XML'] as const;
const noXsd = missingShared(...XSD);
if (noXsd) console.warn(noXsd);

// A field with a pond, split into three zones (west, middle, east), with coordinates carrying more than 9 decimals.
const W = 18.7200000000123, E = 18.7300000000456, S = 48.2000000000789, N = 48.2050000000321;
const rect = (w: number, s: number, e: number, n: number): Position[] => [[w, s], [e, s], [e, n], [w, n], [w, s]];
const field = {
  name: 'Poľe Čierne — Поле 1',
  geometry: { type: 'Polygon', coordinates: [rect(W, S, E, N), rect(18.7241, 48.2011, 18.7249, 48.2019).reverse()] } as Polygon,
};
const zone = (classIndex: number, name: string, geometry: Polygon | MultiPolygon): ExportZone => ({
  classIndex, name, geometry, areaHa: geometryAreaM2(geometry) / 1e4, mean: 0.2 + classIndex / 10, min: 0.1, max: 0.9, color: '#00aa00',
});
const zones: ExportZone[] = [
  zone(0, 'Low', { type: 'Polygon', coordinates: [rect(W, S, 18.7233, N)] }),
  zone(1, 'Medium', { type: 'MultiPolygon', coordinates: [[rect(18.7233, S, 18.7266, 48.2025)], [rect(18.7233, 48.2025, 18.7266, N)]] }),
  zone(2, 'High', { type: 'Polygon', coordinates: [rect(18.7266, S, E, N)] }),
];
const opts: IsoxmlOptions = { rates: { 0: 180, 1: 150.25, 2: 120 }, productName: 'KAS 27 %', customer: 'Agro Levice s.r.o.', farm: 'Farma Mochovce' };

async function taskdata(buf: Buffer) {
  const zip = await JSZip.loadAsync(buf);
  return { zip, xml: await zip.file('TASKDATA/TASKDATA.XML')!.async('string') };
}

function xmllint(xml: string) {
  const dir = mkdtempSync(join(tmpdir(), 'isoxml-'));
  writeFileSync(join(dir, 'TASKDATA.XML'), xml);
  return spawnSync('xmllint', ['--noout', '--schema', sharedPath(...XSD), join(dir, 'TASKDATA.XML')], { encoding: 'utf8' });
}

async function parse(buf: Buffer) {
  const m = new ISOXMLManager();
  await m.parseISOXMLFile(new Uint8Array(buf), 'application/zip');
  return m;
}

/** Every element path (`TSK/TZN/PDV`) in a document. */
function paths(xml: string): Set<string> {
  const stack: string[] = [];
  const out = new Set<string>();
  for (const m of xml.matchAll(/<(\/?)([A-Za-z_]\w*)[^>]*?(\/?)>/g)) {
    if (m[1]) { stack.pop(); continue; }
    stack.push(m[2]!);
    out.add(stack.slice(1).join('/'));
    if (m[3]) stack.pop();
  }
  out.delete('');
  return out;
}

describe('ISOXML task data', () => {
  it.skipIf(noXsd)('validates against the ISO 11783-10 v4.3 schema (vector and grid), and the validator rejects a broken file', async () => {
    for (const grid of [false, true]) {
      const { xml } = await taskdata(await buildIsoxml(field, zones, { ...opts, grid }));
      const res = xmllint(xml);
      expect(res.status, res.stderr).toBe(0);
    }
    const { xml } = await taskdata(await buildIsoxml(field, [], opts));
    expect(xmllint(xml).status).toBe(0);
    // The same file without the partfield's required area must fail: the check is real.
    expect(xmllint(xml.replace(/ D="\d+"/, '')).status).not.toBe(0);
  });

  it('writes version 4.3, customer, farm, boundary with its hole, 9-decimal coordinates', async () => {
    const { xml, zip } = await taskdata(await buildIsoxml(field, zones, opts));
    expect(Object.keys(zip.files)).toContain('TASKDATA/TASKDATA.XML');
    expect(xml).toMatch(/<ISO11783_TaskData VersionMajor="4" VersionMinor="3"/);
    expect(xml).toContain('<CTR A="CTR1" B="Agro Levice s.r.o."');
    expect(xml).toMatch(/<FRM A="FRM1" B="Farma Mochovce" I="CTR1"/);
    for (const m of xml.matchAll(/ [CD]="(-?\d+\.\d+)"/g)) expect(m[1]!.split('.')[1]!.length).toBeLessThanOrEqual(9);
    const m = await parse((await buildIsoxml(field, zones, opts)));
    expect(m.getWarnings()).toEqual([]);
    const pfd = m.rootElement.attributes.Partfield![0]! as Partfield & { toGeoJSON(): MultiPolygon };
    expect(pfd.attributes.PartfieldDesignator).toBe(field.name.slice(0, 32));
    expect(pfd.attributes.PartfieldArea).toBe(Math.round(geometryAreaM2(field.geometry)));
    const boundary = pfd.toGeoJSON();
    expect(boundary.coordinates).toHaveLength(1);
    expect(boundary.coordinates[0]).toHaveLength(2); // outer ring and the pond
    expect(boundary.coordinates[0]![0]![0]![0]).toBeCloseTo(W, 9);
    expect(String(boundary.coordinates[0]![0]![0]![0])).toBe('18.72');
  });

  it('round-trips one treatment zone per zone with its polygon and rate in mg/m²', async () => {
    const m = await parse(await buildIsoxml(field, zones, opts));
    const task = m.rootElement.attributes.Task![0]! as ExtendedTask;
    expect(task.attributes.TaskStatus).toBe('1');
    const tzns = task.attributes.TreatmentZone!;
    const byCode = new Map(tzns.map((t) => [t.attributes.TreatmentZoneCode, t]));
    const meanRate = zones.reduce((s, z) => s + z.areaHa * opts.rates[z.classIndex]!, 0) / zones.reduce((s, z) => s + z.areaHa, 0);
    expect(byCode.get(task.attributes.DefaultTreatmentZoneCode!)!.attributes.ProcessDataVariable![0]!.attributes.ProcessDataValue).toBe(Math.round(meanRate * 100));
    expect(byCode.get(task.attributes.OutOfFieldTreatmentZoneCode!)!.attributes.ProcessDataVariable![0]!.attributes.ProcessDataValue).toBe(0);
    const withPolygons = tzns.filter((t) => t.attributes.PolygonTreatmentZoneonly?.length);
    expect(withPolygons.map((t) => t.attributes.TreatmentZoneDesignator)).toEqual(['Low', 'Medium', 'High']);
    withPolygons.forEach((t, i) => {
      const pdv = t.attributes.ProcessDataVariable![0]!.attributes;
      expect(pdv.ProcessDataDDI).toBe('0006');
      expect(pdv.ProcessDataValue / 100).toBeCloseTo(opts.rates[zones[i]!.classIndex]!, 2); // mg/m² -> kg/ha
      const geo = ExtendedPolygon.toGeoJSON(t.attributes.PolygonTreatmentZoneonly!);
      const expected = zones[i]!.geometry.type === 'Polygon' ? [zones[i]!.geometry.coordinates as Position[][]] : (zones[i]!.geometry.coordinates as Position[][][]);
      expect(geo.coordinates).toHaveLength(expected.length);
      (geo.coordinates as Position[][][]).forEach((poly, k) => poly[0]!.forEach((p, j) => {
        expect(p[0]).toBeCloseTo(expected[k]![0]![j]![0]!, 8);
        expect(p[1]).toBeCloseTo(expected[k]![0]![j]![1]!, 8);
      }));
    });
    const vpn = m.rootElement.attributes.ValuePresentation![0]!.attributes;
    expect([vpn.Scale, vpn.UnitDesignator]).toEqual([0.01, 'kg/ha']);
    expect(m.rootElement.attributes.Product![0]!.attributes.ProductDesignator).toBe('KAS 27 %');
  });

  it('writes a type-2 grid whose cells carry the rate of the zone they lie in', async () => {
    const m = await parse(await buildIsoxml(field, zones, { ...opts, grid: true }));
    const task = m.rootElement.attributes.Task![0]! as ExtendedTask;
    expect(task.attributes.Grid![0]!.attributes.GridType).toBe('2');
    const cells = task.getGridAsGeoJSON(['rate']).features;
    let checked = 0;
    for (const cell of cells) {
      const c = centroid(cell).geometry.coordinates;
      const z = zones.find((zz) => booleanPointInPolygon(c, zz.geometry));
      if (!z) continue;
      expect(cell.properties!.rate).toBe(Math.round(opts.rates[z.classIndex]! * 100));
      checked++;
    }
    expect(checked).toBeGreaterThan(100);
  });

  it("gives the grid's cells of field no zone covers the mean rate, as the default zone does, and cells outside the field none", async () => {
    // Zones over the west two thirds only: the east third is ground the raster said nothing of.
    const west = zones.slice(0, 2);
    const m = await parse(await buildIsoxml(field, west, { ...opts, grid: true }));
    const task = m.rootElement.attributes.Task![0]! as ExtendedTask;
    const mean = (west[0]!.areaHa * 180 + west[1]!.areaHa * 150.25) / (west[0]!.areaHa + west[1]!.areaHa);
    const defaultZone = task.attributes.TreatmentZone!.find((z) => z.attributes.TreatmentZoneCode === task.attributes.DefaultTreatmentZoneCode)!;
    expect(defaultZone.attributes.ProcessDataVariable![0]!.attributes.ProcessDataValue).toBe(Math.round(mean * 100));
    const rates = new Map<string, number[]>();
    for (const cell of task.getGridAsGeoJSON(['rate']).features) {
      const c = centroid(cell).geometry.coordinates;
      const where = c[0]! > 18.7268 && c[0]! < E && c[1]! > S && c[1]! < N && booleanPointInPolygon(c, field.geometry) ? 'unzoned' : c[0]! > E ? 'outside' : 'other';
      rates.set(where, [...(rates.get(where) ?? []), cell.properties!.rate as number]);
    }
    expect(rates.get('unzoned')!.length).toBeGreaterThan(20);
    expect(new Set(rates.get('unzoned'))).toEqual(new Set([Math.round(mean * 100)]));
    expect(new Set(rates.get('outside') ?? [0])).toEqual(new Set([0]));
  });

  it('gives the ground no zone covers the rate set for it (0 for a pond), in the default zone and the grid, and keeps the mean where the position is lost', async () => {
    const west = zones.slice(0, 2);
    const mean = (west[0]!.areaHa * 180 + west[1]!.areaHa * 150.25) / (west[0]!.areaHa + west[1]!.areaHa);
    for (const grid of [false, true]) {
      const m = await parse(await buildIsoxml(field, west, { ...opts, grid, unzonedRate: 0 }));
      const task = m.rootElement.attributes.Task![0]! as ExtendedTask;
      const rateOf = (code: number | undefined) => task.attributes.TreatmentZone!.find((z) => z.attributes.TreatmentZoneCode === code)!.attributes.ProcessDataVariable![0]!.attributes.ProcessDataValue;
      expect(rateOf(task.attributes.DefaultTreatmentZoneCode)).toBe(0);
      expect(rateOf(task.attributes.PositionLostTreatmentZoneCode)).toBe(Math.round(mean * 100));
      if (!grid) continue;
      const unzonedRates: unknown[] = [];
      for (const cell of task.getGridAsGeoJSON(['rate']).features) {
        const c = centroid(cell).geometry.coordinates;
        if (c[0]! > 18.7268 && c[0]! < E && c[1]! > S && c[1]! < N && booleanPointInPolygon(c, field.geometry)) unzonedRates.push(cell.properties!.rate);
      }
      // Cells of rate 0 are no cells to the reader (as outside the field); with the mean there were over 20.
      expect(unzonedRates.filter((r) => r !== 0)).toEqual([]);
    }
  });

  it('reads unzoned_rate as kg/ha from 0 to 100,000, and refuses anything else', () => {
    expect(parseUnzonedRate(null)).toBeNull();
    expect(parseUnzonedRate('')).toBeNull();
    expect(parseUnzonedRate('0')).toBe(0);
    expect(parseUnzonedRate(' 85.5 ')).toBe(85.5);
    for (const bad of ['-1', 'abc', '1e3', '100000.5', '0x10', 'Infinity']) expect(() => parseUnzonedRate(bad), bad).toThrow(expect.objectContaining({ key: 'export_unzoned_rate' }));
  });

  it('takes rates from the query over the settings, and refuses a class given twice', () => {
    expect(resolveRates('1:120, 2:140.5', { zone_rates: { 1: 100, 3: 90 } }, zones.slice(1))).toEqual({ 1: 120, 2: 140.5, 3: 90 });
    expect(() => resolveRates('1:100,1:200,2:150', {}, zones.slice(1))).toThrow(expect.objectContaining({ key: 'export_rates_repeated', params: { class: 1 } }));
  });

  it('refuses a rate over 100 t/ha, past which the schema\'s 32-bit rate would overflow', () => {
    expect(resolveRates('1:100000,2:0', {}, zones.slice(1))).toEqual({ 1: 100_000, 2: 0 });
    expect(() => resolveRates('1:21474837,2:1', {}, zones.slice(1))).toThrow(expect.objectContaining({ key: 'export_rate_too_high', params: { class: 1, max: 100_000 } }));
  });

  it.skipIf(noXsd)('escapes names once, and cuts them to 32 characters of text, so they reach the terminal as typed', async () => {
    const names = { customer: "O'Brien & Sons", farm: 'Agro <Jih> | "Sever"', productName: 'Карбамид <N46> & "x" очень длинное название' };
    const buf = await buildIsoxml({ ...field, name: 'Поле "Южное" & луг' }, zones, { ...opts, ...names, grid: true });
    const { xml } = await taskdata(buf);
    expect(xml).not.toContain('&amp;amp;');
    expect(xml).toContain('B="O&apos;Brien &amp; Sons"');
    const res = xmllint(xml);
    expect(res.status, res.stderr).toBe(0);
    const m = await parse(buf);
    const root = m.rootElement.attributes;
    expect(root.Customer![0]!.attributes.CustomerLastName).toBe("O'Brien & Sons");
    expect(root.Farm![0]!.attributes.FarmDesignator).toBe('Agro <Jih> | "Sever"');
    expect(root.Partfield![0]!.attributes.PartfieldDesignator).toBe('Поле "Южное" & луг');
    expect(root.Product![0]!.attributes.ProductDesignator).toBe('Карбамид <N46> & "x" очень длинн');
    // The grid's binary file has the standard's upper-case 8.3 name, which the XML names without extension.
    const zip = await JSZip.loadAsync(buf);
    expect(Object.keys(zip.files).filter((n) => !zip.files[n]!.dir).sort()).toEqual(['TASKDATA/GRD00001.BIN', 'TASKDATA/TASKDATA.XML']);
    expect(xml).toMatch(/<GRD [^>]*G="GRD00001"/);
  });

  it('builds a grid of a large field, or any document of many vertices, away from the request (worker thread)', async () => {
    // The test field is 75 x 55 m: its grid is quick; a 2 x 2 km field's 40,000 cells are not.
    expect(isQuick({ op: 'isoxml', field, zones, opts: { ...opts, grid: true } })).toBe(true);
    const large = { name: 'L', geometry: { type: 'Polygon', coordinates: [rect(18.7, 48.2, 18.73, 48.22)] } as Polygon };
    expect(isQuick({ op: 'isoxml', field: large, zones, opts: { ...opts, grid: true } })).toBe(false);
    expect(isQuick({ op: 'isoxml', field: large, zones, opts })).toBe(true);
    const circle = (n: number): Polygon => ({ type: 'Polygon', coordinates: [[...Array.from({ length: n }, (_, i) => [18.7 + 0.01 * Math.cos((2 * Math.PI * i) / n), 48.2 + 0.01 * Math.sin((2 * Math.PI * i) / n)]), [18.71, 48.2]]] });
    const kmzOpts = { height: 100, direction: 90, overlapH: 70, overlapW: 65, drone: 'mavic3m' } as const;
    expect(isQuick({ op: 'kmz', field: { geometry: circle(1000) }, opts: kmzOpts })).toBe(true);
    expect(isQuick({ op: 'kmz', field: { geometry: circle(40_000) }, opts: kmzOpts })).toBe(false);
    // What the thread runs is what the request would have.
    const { xml } = await taskdata((await exportWork({ op: 'isoxml', field, zones, opts })).file);
    expect(xml).toContain('<TSK ');
  });

  it('compresses the archive', async () => {
    const buf = await buildIsoxml(field, zones, opts);
    const { xml } = await taskdata(buf);
    expect(buf.length).toBeLessThan(Buffer.byteLength(xml) / 2);
  });

  it('writes only the partfield when there are no zones', async () => {
    const { xml } = await taskdata(await buildIsoxml(field, [], opts));
    expect(xml).toContain('<PFD ');
    expect(xml).not.toContain('<TSK ');
  });

  it('refuses zones without a rate (422 export_rates_missing)', async () => {
    await expect(buildIsoxml(field, zones, { ...opts, rates: { 1: 100, 2: Number.NaN } })).rejects.toMatchObject({ kind: 'unprocessable', key: 'export_rates_missing', params: { classes: '0, 2' } });
  });

  it('has the structure of FarmDoc\'s real prescription', async (ctx) => {
    const reason = missingShared(...FARMDOC);
    if (reason) { console.warn(reason); ctx.skip(); }
    const farmdoc = readFileSync(sharedPath(...FARMDOC), 'utf8');
    if (!noXsd) {
      // FarmDoc's file breaks the schema only by writing 12 decimals; rounded to 9, as we write them, it passes.
      expect(xmllint(farmdoc).stderr).toMatch(/PNT.*attribute 'C'/);
      expect(xmllint(farmdoc.replace(/ ([CD])="(-?\d+\.\d+)"/g, (_, a: string, v: string) => ` ${a}="${Number(Number(v).toFixed(9))}"`)).status).toBe(0);
    }
    const { xml } = await taskdata(await buildIsoxml(field, zones, opts));
    const ours = paths(xml);
    for (const p of ['FRM', 'PFD/PLN/LSG/PNT', 'TSK/TZN/PLN/LSG/PNT', 'TSK/TZN/PDV', 'VPN']) {
      expect(paths(farmdoc).has(p), p).toBe(true);
      expect(ours.has(p), p).toBe(true);
    }
    // The task's default, position-lost and out-of-field zones, as FarmDoc writes them.
    const tsk = (doc: string) => /<TSK [^>]*>/.exec(doc)![0];
    for (const attr of ['G="1"', 'H="0"', 'I="1"', 'J="2"']) expect(tsk(xml)).toContain(attr);
    expect(execFileSync('grep', ['-c', 'PDV A="0006"'], { input: farmdoc, encoding: 'utf8' }).trim()).not.toBe('0');
    expect(xml).toMatch(/<VPN A="VPN1" B="0" C="0.01" D="\d" E="kg\/ha"/);
  });
});
