import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { booleanPointInPolygon, pointToLineDistance } from '@turf/turf';
import type { Polygon, Position } from 'geojson';
import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import { DRONES } from '@/lib/exports/drones';
import { asciiFileName } from '@/lib/file-names';
import { isQuick } from '@/lib/exports/export-work';
import type { ExportField } from '@/lib/exports/types';
import { AppError } from '@/lib/errors';
import { errorBody } from '@/lib/http/respond';
import { ValidationError } from '@/lib/http/validate';
import {
  ALL_PLANS_ERRORS_FILE, MAX_WAYPOINTS, buildAllFlightPlansZip, buildFlightPlanKmz, estimateWaypoints, kmzFileName, planSurvey, uniqueKmzNames, validateFlightParams, type FlightOptions,
} from '@/lib/exports/wpml';
import { missingShared, sharedPath } from '../../helpers/shared-data';

// Fields near Levice (SK), built in metres east/north of a corner and turned into lon/lat here.
const LON0 = 18.72, LAT0 = 48.2;
const M_LAT = 111_195, M_LON = 111_195 * Math.cos((LAT0 * Math.PI) / 180);
const ll = ([x, y]: [number, number]): Position => [LON0 + x / M_LON, LAT0 + y / M_LAT];
const ring = (pts: [number, number][]) => [...pts, pts[0]!].map(ll);

const rectangle: Polygon = { type: 'Polygon', coordinates: [ring([[0, 0], [600, 0], [600, 400], [0, 400]])] };
// A U open to the north: the gap between the arms is outside the field.
const concave: Polygon = { type: 'Polygon', coordinates: [ring([[0, 0], [900, 0], [900, 700], [650, 700], [650, 200], [250, 200], [250, 700], [0, 700]])] };
// A square with a large pond in the middle.
const holed: Polygon = {
  type: 'Polygon',
  coordinates: [ring([[0, 0], [1000, 0], [1000, 1000], [0, 1000]]), ring([[300, 300], [300, 700], [700, 700], [700, 300]])],
};

const DEFAULTS: FlightOptions = { height: 100, direction: 90, overlapH: 70, overlapW: 65, drone: 'mavic3m' };

async function unzip(buf: Buffer) {
  const zip = await JSZip.loadAsync(buf);
  const read = (name: string) => zip.file(name)?.async('string') ?? Promise.reject(new Error(`${name} missing`));
  return { names: Object.keys(zip.files), template: await read('wpmz/template.kml'), waylines: await read('wpmz/waylines.wpml') };
}

const values = (xml: string, tag: string) => [...xml.matchAll(new RegExp(`<wpml:${tag}>([^<]*)</wpml:${tag}>`, 'g'))].map((m) => m[1]!);
const one = (xml: string, tag: string) => {
  const v = values(xml, tag);
  expect(v, tag).toHaveLength(1);
  return v[0]!;
};
const coordList = (block: string): number[][] => block.trim().split(/\s+/).map((t) => t.split(',').map(Number));

interface Wayline { points: number[][]; runs: [number, number][]; interval: number[] }
function parseWaylines(xml: string): Wayline {
  const marks = [...xml.matchAll(/<Placemark>([\s\S]*?)<\/Placemark>/g)].map((m) => m[1]!);
  const points = marks.map((m) => coordList(/<coordinates>([\s\S]*?)<\/coordinates>/.exec(m)![1]!)[0]!);
  const runs = marks.flatMap((m) => {
    const s = values(m, 'actionGroupStartIndex'), e = values(m, 'actionGroupEndIndex');
    return s.map((v, i): [number, number] => [Number(v), Number(e[i])]);
  });
  return { points, runs, interval: values(xml, 'actionTriggerParam').map(Number) };
}

// Metres in a local east/north frame, for the geometric checks (independent of the module's own frame).
const toM = (p: number[]): [number, number] => [(p[0]! - LON0) * M_LON, (p[1]! - LAT0) * M_LAT];
const expectedSpacing = (o: FlightOptions) => ((o.height * DRONES[o.drone].sensorWidthMm) / DRONES[o.drone].focalLengthMm) * (1 - o.overlapW / 100);
const expectedInterval = (o: FlightOptions) => ((o.height * DRONES[o.drone].sensorHeightMm) / DRONES[o.drone].focalLengthMm) * (1 - o.overlapH / 100);

/** Grid points inside the polygon every `step` metres. */
function samplePoints(poly: Polygon, step: number): Position[] {
  const ms = poly.coordinates[0]!.map(toM);
  const [x0, x1] = [Math.min(...ms.map((p) => p[0])), Math.max(...ms.map((p) => p[0]))];
  const [y0, y1] = [Math.min(...ms.map((p) => p[1])), Math.max(...ms.map((p) => p[1]))];
  const out: Position[] = [];
  for (let x = x0 + 0.5; x <= x1; x += step) for (let y = y0 + 0.5; y <= y1; y += step) {
    const p = ll([x, y]);
    if (booleanPointInPolygon(p, poly)) out.push(p);
  }
  return out;
}

async function checkPlan(poly: Polygon, o: FlightOptions) {
  const files = await unzip((await buildFlightPlanKmz({ geometry: poly }, o)).kmz);
  const w = parseWaylines(files.waylines);
  const spacing = expectedSpacing(o);

  // Every photo run is a straight line along the requested direction.
  const th = (o.direction * Math.PI) / 180;
  const across = (p: number[]) => { const [x, y] = toM(p); return x * Math.cos(th) - y * Math.sin(th); };
  for (const [s, e] of w.runs) {
    const [a, b] = [toM(w.points[s]!), toM(w.points[e]!)];
    const course = ((Math.atan2(b[0] - a[0], b[1] - a[1]) * 180) / Math.PI + 360) % 180;
    expect(Math.abs(course - (o.direction % 180))).toBeLessThan(0.1);
  }
  // Distinct lines are one spacing apart.
  // Runs of one line share an offset (to within the two frames' difference, centimetres).
  const offsets = w.runs.map(([s]) => across(w.points[s]!)).sort((x, y) => x - y);
  const lines = offsets.filter((v, i) => i === 0 || v - offsets[i - 1]! > spacing / 4);
  expect(lines.length).toBeGreaterThan(1);
  for (let i = 1; i < lines.length; i++) expect(lines[i]! - lines[i - 1]!).toBeCloseTo(spacing, 0);

  // Every point of the field lies within half a spacing of a photo run.
  const segs = w.runs.map(([s, e]) => ({ type: 'LineString' as const, coordinates: [w.points[s]!, w.points[e]!] }));
  for (const p of samplePoints(poly, 25)) {
    const dist = Math.min(...segs.map((g) => pointToLineDistance(p, g, { units: 'meters' })));
    expect(dist, `point ${p.join(',')}`).toBeLessThanOrEqual(spacing / 2 + 0.5);
  }
  for (const v of w.interval) expect(v).toBeCloseTo(expectedInterval(o), 2);
  return { files, w, spacing };
}

describe('DJI WPML flight plan', () => {
  it('writes template.kml with the requested height, overlaps, direction, drone and polygon', async () => {
    const o: FlightOptions = { height: 120, direction: 30, overlapH: 80, overlapW: 70, drone: 'mavic3m' };
    const { names, template, waylines } = await unzip((await buildFlightPlanKmz({ geometry: rectangle }, o)).kmz);
    expect(names.sort()).toEqual(['wpmz/template.kml', 'wpmz/waylines.wpml']);
    expect(template).toContain('xmlns:wpml="http://www.dji.com/wpmz/1.0.6"');
    expect(one(template, 'templateType')).toBe('mapping2d');
    expect(one(template, 'heightMode')).toBe('relativeToStartPoint');
    expect(Number(one(template, 'globalShootHeight'))).toBe(120);
    expect(Number(one(template, 'height'))).toBe(120);
    expect(Number(one(template, 'ellipsoidHeight'))).toBe(120);
    expect(Number(one(template, 'orthoCameraOverlapH'))).toBe(80);
    expect(Number(one(template, 'orthoCameraOverlapW'))).toBe(70);
    expect(Number(one(template, 'direction'))).toBe(30);
    for (const xml of [template, waylines]) {
      expect(Number(one(xml, 'droneEnumValue'))).toBe(77);
      expect(Number(one(xml, 'droneSubEnumValue'))).toBe(2);
      expect(Number(one(xml, 'payloadEnumValue'))).toBe(68);
    }
    expect(one(template, 'imageFormat')).toBe('visable,narrow_band');
    // The polygon: lon,lat,0 per point, the ring written open as DJI does.
    const coords = coordList(/<outerBoundaryIs>[\s\S]*?<coordinates>([\s\S]*?)<\/coordinates>/.exec(template)![1]!);
    const expected = rectangle.coordinates[0]!.slice(0, -1);
    expect(coords).toHaveLength(expected.length);
    coords.forEach((c, i) => {
      expect(c[0]).toBeCloseTo(expected[i]![0]!, 9);
      expect(c[1]).toBeCloseTo(expected[i]![1]!, 9);
      expect(c[2]).toBe(0);
    });
  });

  it('sums the flight up as the waylines give it: distance, time and the photos along the runs', async () => {
    const { kmz, summary } = await buildFlightPlanKmz({ geometry: rectangle }, DEFAULTS);
    const { waylines } = await unzip(kmz);
    const w = parseWaylines(waylines);
    expect(summary.distance_m).toBe(Math.round(Number(one(waylines, 'distance'))));
    expect(summary.duration_s).toBe(Math.round(Number(one(waylines, 'duration'))));
    // A photo at each run's start and then every interval along it, measured here in our own frame.
    const photos = w.runs.reduce((n, [s, e]) => {
      const [a, b] = [toM(w.points[s]!), toM(w.points[e]!)];
      return n + Math.floor(Math.hypot(b[0] - a[0], b[1] - a[1]) / expectedInterval(DEFAULTS)) + 1;
    }, 0);
    expect(Math.abs(summary.photos - photos)).toBeLessThanOrEqual(w.runs.length);
    expect(summary.photos).toBeGreaterThan(w.runs.length);
  });

  it('writes waylines: lon,lat order, the height at every point, distance and duration of the path', async () => {
    const o = DEFAULTS;
    const { waylines } = await unzip((await buildFlightPlanKmz({ geometry: rectangle }, o)).kmz);
    const w = parseWaylines(waylines);
    expect(w.points.length).toBeGreaterThanOrEqual(4);
    for (const p of w.points) {
      expect(p).toHaveLength(2);
      expect(p[0]).toBeGreaterThan(18.6); // longitude first
      expect(p[0]).toBeLessThan(18.8);
      expect(p[1]).toBeGreaterThan(48.1);
      expect(p[1]).toBeLessThan(48.3);
    }
    expect(values(waylines, 'executeHeight').map(Number)).toEqual(w.points.map(() => 100));
    expect(values(waylines, 'index').map(Number)).toEqual(w.points.map((_, i) => i));
    const path = w.points.slice(1).reduce((s, p, i) => s + Math.hypot(...(toM(p).map((v, k) => v - toM(w.points[i]!)[k]!) as [number, number])), 0);
    const distance = Number(one(waylines, 'distance'));
    expect(Math.abs(distance - path) / path).toBeLessThan(0.005);
    const speed = Number(one(waylines, 'autoFlightSpeed'));
    expect(speed).toBeGreaterThan(0);
    expect(speed).toBeLessThanOrEqual(15);
    // The camera's shortest interval between photos caps the speed.
    expect(expectedInterval(o) / speed).toBeGreaterThanOrEqual(DRONES.mavic3m.minShootIntervalS - 1e-9);
    expect(Number(one(waylines, 'duration'))).toBeGreaterThan(distance / speed);
    expect(one(waylines, 'gimbalPitchRotateAngle')).toBe('-90');
    // Lawn-mower: consecutive lines are flown in opposite directions, turns join them.
    const headings = w.runs.map(([s, e]) => Math.sign(toM(w.points[e]!)[0] - toM(w.points[s]!)[0]));
    for (let i = 1; i < headings.length; i++) expect(headings[i]).toBe(-headings[i - 1]!);
  });

  it('covers a rectangle with lines one footprint-and-overlap spacing apart', async () => {
    const { w } = await checkPlan(rectangle, DEFAULTS);
    expect(w.runs.length).toBe(Math.ceil(400 / expectedSpacing(DEFAULTS)));
  });

  it('covers a concave field and does not photograph the gap between its arms', async () => {
    const o: FlightOptions = { ...DEFAULTS, height: 60, direction: 90 };
    const { w } = await checkPlan(concave, o);
    // Somewhere a line is split into two runs whose joining leg crosses the gap (outside the field).
    const gaps = w.runs.slice(1).filter(([s], i) => s === w.runs[i]![1] + 1 && Math.abs(toM(w.points[s]!)[1] - toM(w.points[w.runs[i]![1]]!)[1]) < 1);
    expect(gaps.length).toBeGreaterThan(0);
    for (const [s] of gaps) {
      const [a, b] = [w.points[s - 1]!, w.points[s]!];
      expect(booleanPointInPolygon([(a[0]! + b[0]!) / 2, (a[1]! + b[1]!) / 2], concave)).toBe(false);
    }
  });

  it('covers a field with a hole and skips the hole', async () => {
    const o: FlightOptions = { ...DEFAULTS, height: 50, direction: 0, drone: 'mavic3e', overlapW: 60 };
    const { files, w } = await checkPlan(holed, o);
    expect(files.template.match(/<innerBoundaryIs>/g)).toHaveLength(1);
    const split = w.runs.slice(1).filter(([s], i) => s === w.runs[i]![1] + 1 && Math.abs(toM(w.points[s]!)[0] - toM(w.points[w.runs[i]![1]]!)[0]) < 1);
    expect(split.length).toBeGreaterThan(0);
    for (const [s] of split) {
      const mid = [(w.points[s - 1]![0]! + w.points[s]![0]!) / 2, (w.points[s - 1]![1]! + w.points[s]![1]!) / 2];
      expect(booleanPointInPolygon(mid, holed)).toBe(false);
    }
  });

  it('handles an oblique direction and another camera', async () => {
    await checkPlan(concave, { height: 150, direction: 37, overlapH: 75, overlapW: 70, drone: 'm350_p1' });
  });

  it('covers every part of a multipolygon field; the template holds the largest part', async () => {
    const big = ring([[0, 0], [500, 0], [500, 400], [0, 400]]);
    const small = ring([[800, 0], [1000, 0], [1000, 200], [800, 200]]);
    const { template, waylines } = await unzip((await buildFlightPlanKmz({ geometry: { type: 'MultiPolygon', coordinates: [[small], [big]] } }, DEFAULTS)).kmz);
    expect(template.match(/<outerBoundaryIs>/g)).toHaveLength(1);
    expect(coordList(/<outerBoundaryIs>[\s\S]*?<coordinates>([\s\S]*?)<\/coordinates>/.exec(template)![1]!)[0]![0]).toBeCloseTo(big[0]![0]!, 9);
    const w = parseWaylines(waylines);
    const segs = w.runs.map(([s, e]) => ({ type: 'LineString' as const, coordinates: [w.points[s]!, w.points[e]!] }));
    const spacing = expectedSpacing(DEFAULTS);
    for (const part of [big, small]) for (const p of samplePoints({ type: 'Polygon', coordinates: [part] }, 25)) {
      expect(Math.min(...segs.map((g) => pointToLineDistance(p, g, { units: 'meters' })))).toBeLessThanOrEqual(spacing / 2 + 0.5);
    }
  });

  describe('a field of parts kilometres apart', () => {
    // Lon/lat rectangles from metres east/north; the parts of a MultiPolygon field as a register gives them.
    const rect = (x0: number, y0: number, x1: number, y1: number) => [ring([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])];
    /** The part each photo run flies over (nearest centre: the parts are kilometres apart). */
    const partOf = (parts: Position[][][], w: Wayline) => {
      const centres = parts.map((p) => { const ms = p[0]!.map(toM); return [ms.reduce((s, q) => s + q[0], 0) / ms.length, ms.reduce((s, q) => s + q[1], 0) / ms.length]; });
      return w.runs.map(([s, e]) => {
        const [a, b] = [toM(w.points[s]!), toM(w.points[e]!)];
        const mid = [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
        const dist = centres.map((c) => Math.hypot(c[0]! - mid[0]!, c[1]! - mid[1]!));
        return dist.indexOf(Math.min(...dist));
      });
    };
    /** Length of the legs from one part's last run to the next part's first. */
    const transit = (w: Wayline, owner: number[]) =>
      w.runs.slice(1).reduce((sum, [s], i) => (owner[i + 1] === owner[i] ? sum : sum + Math.hypot(...(toM(w.points[s]!).map((v, k) => v - toM(w.points[w.runs[i]![1]]!)[k]!) as [number, number]))), 0);

    it('flies each part completely before the next, nearest next, and covers every part', async () => {
      // Listed west, far east, middle, north-west: flown in an order that does not zigzag between them.
      const parts = [rect(0, 0, 800, 600), rect(6000, 0, 6600, 500), rect(3000, 100, 3500, 600), rect(0, 2500, 600, 3000)];
      const o: FlightOptions = { ...DEFAULTS, direction: 0 };
      const { waylines } = await unzip((await buildFlightPlanKmz({ geometry: { type: 'MultiPolygon', coordinates: parts } }, o)).kmz);
      const w = parseWaylines(waylines);
      const owner = partOf(parts, w);
      // Each part is one block of runs: three changes of part for four parts.
      expect(owner.filter((p, i) => i > 0 && p !== owner[i - 1]).length).toBe(3);
      expect(new Set(owner).size).toBe(4);
      // Flying between parts: the gaps between them (2,500 m north, 2,200 m and 2,500 m east) and the
      // parts' own widths at most, far below crossing the gaps on every line (about 40 km here).
      expect(transit(w, owner)).toBeLessThan(2500 + 2200 + 2500 + 3 * 1000);
      const segs = w.runs.map(([s, e]) => ({ type: 'LineString' as const, coordinates: [w.points[s]!, w.points[e]!] }));
      const spacing = expectedSpacing(o);
      for (const part of parts) for (const p of samplePoints({ type: 'Polygon', coordinates: part }, 25)) {
        expect(Math.min(...segs.map((g) => pointToLineDistance(p, g, { units: 'meters' })))).toBeLessThanOrEqual(spacing / 2 + 0.5);
      }
      // The recorded distance includes the flights between parts.
      const path = w.points.slice(1).reduce((s, p, i) => s + Math.hypot(...(toM(p).map((v, k) => v - toM(w.points[i]!)[k]!) as [number, number])), 0);
      expect(Math.abs(Number(one(waylines, 'distance')) - path) / path).toBeLessThan(0.005);
    });

    it('keeps the waylines of a part with a hole around the hole', async () => {
      const o: FlightOptions = { ...DEFAULTS, height: 50, direction: 0, drone: 'mavic3e', overlapW: 60 };
      const far = rect(5000, 0, 5400, 300);
      const w = parseWaylines((await unzip((await buildFlightPlanKmz({ geometry: { type: 'MultiPolygon', coordinates: [holed.coordinates, far] } }, o)).kmz)).waylines);
      const owner = partOf([holed.coordinates, far], w);
      expect(owner.filter((p, i) => i > 0 && p !== owner[i - 1]).length).toBe(1);
      for (let i = 1; i < w.runs.length; i++) {
        if (owner[i] !== owner[i - 1] || owner[i] !== 0) continue;
        const [a, b] = [w.points[w.runs[i - 1]![1]]!, w.points[w.runs[i]![0]]!];
        // Legs within the holed part that join two runs of one line cross the pond, not photographed.
        if (Math.abs(toM(a)[0] - toM(b)[0]) < 1) expect(booleanPointInPolygon([(a[0]! + b[0]!) / 2, (a[1]! + b[1]!) / 2], holed)).toBe(false);
      }
    });

    it('puts the part of the largest area in the template, not the one of the largest extent', async () => {
      // A long thin diagonal strip (about 3 ha, spanning 2 x 2 km) and a compact block of 40 ha.
      const strip = ring([[0, 0], [2000, 1985], [2000, 2000], [1985, 2000], [0, 15]]);
      const block = rect(4000, 0, 4800, 500)[0]!;
      const { template } = await unzip((await buildFlightPlanKmz({ geometry: { type: 'MultiPolygon', coordinates: [[strip], [block]] } }, DEFAULTS)).kmz);
      expect(template.match(/<Polygon>/g)).toHaveLength(1);
      const coords = coordList(/<outerBoundaryIs>[\s\S]*?<coordinates>([\s\S]*?)<\/coordinates>/.exec(template)![1]!);
      expect(coords).toHaveLength(4);
      expect(coords[0]![0]).toBeCloseTo(block[0]![0]!, 9);
      expect(coords[0]![1]).toBeCloseTo(block[0]![1]!, 9);
    });
  });

  it('writes well-formed XML using only elements found in real DJI exports', async (ctx) => {
    const reason = missingShared('wpml', 'peer_dji_pilot2_export', 'CankovskaHora.kmz');
    if (reason) { console.warn(reason); ctx.skip(); }
    const ours = await unzip((await buildFlightPlanKmz({ geometry: holed }, DEFAULTS)).kmz);
    const real = await unzip(readFileSync(sharedPath('wpml', 'peer_dji_pilot2_export', 'CankovskaHora.kmz')));
    const flight = readFileSync(sharedPath('wpml', 'liblinc-debug_dji_way_line', 'wpmz', 'template.kml'), 'utf8');
    const tags = (xml: string) => new Set([...xml.matchAll(/<(wpml:\w+)[ >]/g)].map((m) => m[1]!));
    const known = new Set([...tags(real.template), ...tags(real.waylines), ...tags(flight)]);
    for (const xml of [ours.template, ours.waylines]) for (const t of tags(xml)) expect(known.has(t), t).toBe(true);
    // The same top-level order as Pilot 2's export.
    const order = (xml: string) => [...xml.matchAll(/^ {4}<(wpml:\w+|Folder)>/gm)].map((m) => m[1]);
    expect(order(ours.template)).toEqual(order(real.template));
    expect(order(ours.waylines)).toEqual(order(real.waylines));
    // Inside the area Placemark and each waypoint Placemark, our elements come in Pilot 2's order.
    const children = (xml: string, indent: number) => {
      const block = /<Placemark>([\s\S]*?)<\/Placemark>/.exec(xml)![1]!;
      return [...block.matchAll(new RegExp(`^ {${indent}}<((?:wpml:)?\\w+)>`, 'gm'))].map((m) => m[1]!);
    };
    for (const [mine, theirs] of [[children(ours.template, 8), children(real.template, 8)], [children(ours.waylines, 8), children(real.waylines, 8)]]) {
      expect(mine!.length).toBeGreaterThan(8);
      const positions = mine!.map((tag) => theirs!.indexOf(tag));
      expect(positions.every((p) => p >= 0), mine!.join(' ')).toBe(true);
      expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    }
    const dir = mkdtempSync(join(tmpdir(), 'wpml-'));
    for (const [name, xml] of [['template.kml', ours.template], ['waylines.wpml', ours.waylines]] as const) {
      writeFileSync(join(dir, name), xml);
      execFileSync('xmllint', ['--noout', join(dir, name)]);
    }
  });
});

describe('flight parameters', () => {
  it('fills the spec defaults', () => {
    expect(validateFlightParams({})).toEqual({ height: 100, direction: 90, overlapH: 70, overlapW: 65, drone: 'mavic3m' });
    expect(validateFlightParams({ height: '250', direction: '0', overlap_h: '95', overlap_w: '10', drone: 'm300_p1' })).toEqual({
      height: 250, direction: 0, overlapH: 95, overlapW: 10, drone: 'm300_p1',
    });
    // A box left empty takes the default (it became 0: north-south lines instead of the default 90).
    expect(validateFlightParams({ height: '', direction: ' ' })).toMatchObject({ height: 100, direction: 90 });
  });
  it.each([
    { height: '19' }, { height: '501' }, { height: 'abc' }, { direction: '360' }, { direction: '-1' }, { direction: '45.5' },
    { overlap_h: '9' }, { overlap_h: '96' }, { overlap_w: '100' }, { overlap_w: 'x' }, { drone: 'phantom' }, { height: '0x64' }, { height: '1e2' },
  ])('rejects %o with 422', (q) => {
    expect(() => validateFlightParams(q)).toThrow(expect.objectContaining({ kind: "unprocessable", key: "validation" }));
  });
});

/** The all-fields ZIP's plans built here, as the route's runExportWork does for small ones. */
const inProcess = (o: FlightOptions) => ({
  plan: async (f: Pick<ExportField, 'geometry'>) => (await buildFlightPlanKmz(f, o)).kmz,
  describe: (err: unknown) => errorBody(err as AppError, 'en').error,
  heading: 'Left out:',
});

describe('file names and the all-fields ZIP', () => {
  it('gives every download a transliterated ASCII name beside the UTF-8 one', () => {
    expect(asciiFileName('Поле у реки_TASKDATA.zip')).toBe('Pole_u_reki_TASKDATA.zip');
    expect(asciiFileName('Čierna Voda_2026-06-23_orthomosaic.tif')).toBe('Cierna_Voda_2026-06-23_orthomosaic.tif');
    expect(asciiFileName('北.pdf')).toBe('download.pdf');
  });

  it('transliterates and sanitises names', () => {
    expect(kmzFileName('Поле №1')).toMatch(/^Pole_1\.kmz$/);
    expect(kmzFileName('Čierna Voda / sever')).toBe('Cierna_Voda_sever.kmz');
    expect(kmzFileName('../../etc')).toMatch(/^[A-Za-z0-9_-]+\.kmz$/);
    expect(kmzFileName('???')).toBe('field.kmz');
    expect(kmzFileName('North-2 (jar)')).toBe('North-2_jar.kmz');
    // Characters a file name cannot hold separate words; they are not spelled out (`less`, `or`).
    expect(kmzFileName('a<b>c|d*e?f"g')).toBe('a_b_c_d_e_f_g.kmz');
    // A register code's separators become hyphens, not nothing: 1401/31 is not 14013/1.
    expect(kmzFileName('1401/31')).toBe('1401-31.kmz');
    expect(kmzFileName('14013/1')).toBe('14013-1.kmz');
    expect(asciiFileName('498131809/1.pdf')).toBe('498131809-1.pdf');
    // A shared name carries each field's id; a name of its own stays as it is.
    expect(uniqueKmzNames([{ id: 129, name: '1401/31' }, { id: 7, name: 'B' }, { id: 130, name: '1401/31' }])).toEqual(['1401-31_129.kmz', 'B.kmz', '1401-31_130.kmz']);
    expect(uniqueKmzNames([{ id: 1, name: 'A' }, { id: 2, name: 'a' }, { id: 3, name: 'A_2' }])).toEqual(['A_1.kmz', 'a_2.kmz', 'A_2-2.kmz']);
  });

  it('streams one KMZ per field with unique names', async () => {
    const fields = [{ id: 4, name: 'Поле', geometry: rectangle }, { id: 9, name: 'Поле', geometry: concave }, { id: 12, name: 'Dolné', geometry: holed }];
    const chunks: Buffer[] = [];
    for await (const c of buildAllFlightPlansZip(fields, inProcess(DEFAULTS))) chunks.push(c as Buffer);
    const zip = await JSZip.loadAsync(Buffer.concat(chunks));
    expect(Object.keys(zip.files)).toEqual(['Pole_4.kmz', 'Pole_9.kmz', 'Dolne.kmz']);
    for (const name of Object.keys(zip.files)) {
      const inner = await unzip(await zip.file(name)!.async('nodebuffer'));
      expect(one(inner.template, 'templateType')).toBe('mapping2d');
    }
  });
});

describe('what the camera and the aircraft can fly', () => {
  const refusal = (q: Record<string, string>) => {
    try {
      validateFlightParams(q);
    } catch (err) {
      return err as AppError;
    }
    return null;
  };

  it('refuses photos closer than the camera takes them at the slowest DJI speed, saying what height or overlap would do', () => {
    // Mavic 3M at 20 m and 95 %: a photo every 0.9 m, which at 1 m/s (WPML's slowest) is 0.9 s, and the camera needs 2 s.
    const err = refusal({ height: '20', overlap_h: '95' });
    expect(err).toBeInstanceOf(ValidationError);
    expect(err).toMatchObject({ kind: 'unprocessable', key: 'validation' });
    const body = errorBody(err!, 'en');
    expect(body.details).toEqual([
      'overlap_h: at 20 m and 95 % forward overlap the photos would be 0.9 m apart, closer than this drone\'s camera can take them (one photo every 2 s at the slowest flight speed DJI allows, 1 m/s): raise height to at least 45 m or lower overlap_h to at most 88 %',
    ]);
    expect(errorBody(err!, 'ru').error).toContain('поднимите высоту хотя бы до 45 м или уменьшите overlap_h не более чем до 88 %');
    expect(errorBody(err!, 'sk').error).toContain('zvýšte výšku aspoň na 45 m alebo znížte overlap_h najviac na 88 %');
    // The suggestions are themselves flyable, and the plan then keeps the camera's pace.
    for (const q of [{ height: '45', overlap_h: '95' }, { height: '20', overlap_h: '88' }]) {
      const o = validateFlightParams(q);
      const plan = planSurvey(rectangle, o);
      expect(plan.speed).toBeGreaterThanOrEqual(1);
      expect(plan.photoInterval / plan.speed, JSON.stringify(q)).toBeGreaterThanOrEqual(DRONES.mavic3m.minShootIntervalS - 1e-9);
    }
    // A faster camera flies the same at 20 m and 95 %.
    expect(refusal({ height: '20', overlap_h: '95', drone: 'mavic3e' })).toBeNull();
    // Called from code, the planner refuses it the same way rather than fly too fast for the camera.
    expect(() => planSurvey(rectangle, { ...DEFAULTS, height: 20, overlapH: 95 })).toThrow(ValidationError);
  });

  it('names query keys it does not take, rather than run the defaults', () => {
    const err = refusal({ heigth: '50', drone: 'mavic3e' });
    expect(err).toBeInstanceOf(ValidationError);
    expect(errorBody(err!, 'en').details).toEqual(['unknown fields: heigth']);
    expect(refusal({ height: '50', direction: '0', overlap_h: '80', overlap_w: '70', drone: 'mavic3e' })).toBeNull();
  });

  // A square 30 km on a side: at 20 m and 95 % side overlap the lines are 1.2 m apart, some 25,000 of them.
  const side = 30_000;
  const huge: Polygon = { type: 'Polygon', coordinates: [ring([[0, 0], [side, 0], [side, side], [0, side]])] };

  it('estimates the waypoints from the vertices, and refuses a plan over what DJI aircraft take in one mission', async () => {
    const o: FlightOptions = { ...DEFAULTS, height: 20, overlapW: 95 };
    const estimate = estimateWaypoints(huge, o);
    expect(estimate).toBe(2 * Math.ceil(side / expectedSpacing(o)));
    expect(estimate).toBeLessThanOrEqual(MAX_WAYPOINTS);
    // The estimate is what the planner makes of a convex field, and a plan that big is built in a worker thread.
    expect(estimateWaypoints(rectangle, DEFAULTS)).toBe(planSurvey(rectangle, DEFAULTS).waypoints.length);
    expect(isQuick({ op: 'kmz', field: { geometry: huge }, opts: o })).toBe(false);
    expect(isQuick({ op: 'kmz', field: { geometry: rectangle }, opts: DEFAULTS })).toBe(true);
    // Twice as wide: some 100,000 waypoints, refused before any is planned.
    const wider: Polygon = { type: 'Polygon', coordinates: [ring([[0, 0], [side, 0], [side, 2 * side], [0, 2 * side]])] };
    const err = await buildFlightPlanKmz({ geometry: wider }, o).then(() => null, (e: unknown) => e as AppError);
    expect(err).toMatchObject({ kind: 'unprocessable', key: 'kmz_too_many_waypoints', params: { max: MAX_WAYPOINTS } });
    expect(errorBody(err!, 'en').error).toMatch(/^The flight plan would have about \d\d,\d{3} waypoints, more than the 65,535 a DJI aircraft takes in one mission/);
  });

  it('leaves a field whose plan fails out of the all-fields ZIP and names it in errors.txt, rather than cut the archive', async () => {
    const wider: Polygon = { type: 'Polygon', coordinates: [ring([[0, 0], [side, 0], [side, 2 * side], [0, 2 * side]])] };
    const o: FlightOptions = { ...DEFAULTS, height: 20, overlapW: 95 };
    const fields = [{ id: 1, name: 'Small', geometry: rectangle }, { id: 2, name: 'Huge', geometry: wider }, { id: 3, name: 'Holed', geometry: holed }];
    const chunks: Buffer[] = [];
    for await (const c of buildAllFlightPlansZip(fields, { ...inProcess(o), heading: 'These fields have no flight plan in this archive:' })) chunks.push(c as Buffer);
    const zip = await JSZip.loadAsync(Buffer.concat(chunks));
    expect(Object.keys(zip.files)).toEqual(['Small.kmz', 'Holed.kmz', ALL_PLANS_ERRORS_FILE]);
    const errors = await zip.file(ALL_PLANS_ERRORS_FILE)!.async('string');
    expect(errors).toMatch(/^These fields have no flight plan in this archive:\n\nHuge\.kmz \(Huge, id 2\): The flight plan would have about [\d,]+ waypoints, more than the 65,535/);
  });
});
