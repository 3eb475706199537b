// DJI WPML flight plans (KMZ) for mapping a field: `wpmz/template.kml` holds the area route as DJI
// Pilot 2 edits it (mapping2d), `wpmz/waylines.wpml` the lawn-mower waylines the drone flies. The element
// order and namespace follow real Pilot 2 / FlightHub 2 exports (WPML 1.0.6).
import type { MultiPolygon, Polygon, Position } from 'geojson';
import { PassThrough, type Readable } from 'node:stream';
import yazl from 'yazl';
import { z } from 'zod';
import { asciiStem } from '@/lib/file-names';
import { type AppError, unprocessable } from '@/lib/errors';
import { ValidationError, validate } from '@/lib/http/validate';
import { geometryAreaM2 } from '../geo/area';
import { DEFAULT_DRONE, DRONE_KEYS, DRONES, footprintM, type DroneKey, type DroneSpec } from './drones';
import type { ExportField } from './types';

export interface FlightOptions {
  /** Metres above the take-off point. */
  height: number;
  /** Course of the flight lines, degrees clockwise from north. */
  direction: number;
  /** Forward (along-track) overlap, %. */
  overlapH: number;
  /** Side (across-track) overlap, %. */
  overlapW: number;
  drone: DroneKey;
  /** Metres the lines run on beyond the field's edge; one photo interval when absent. */
  margin?: number;
}

/**
 * A decimal number from the query; left empty (`?direction=`, as a form sends an empty box) it
 * takes the default, not 0, and hex or exponent forms are not numbers here.
 */
const num = (min: number, max: number, dflt: number, int = false) => {
  const n = z.number().min(min).max(max);
  const decimal = (v: unknown) => (typeof v !== 'string' ? v : v.trim() === '' ? undefined : /^[+-]?\d+(?:\.\d+)?$/.test(v.trim()) ? Number(v) : v);
  return z.preprocess(decimal, (int ? n.int() : n).default(dflt));
};

/**
 * Query parameters of the KMZ export (spec 4.2); strings are coerced, out-of-range values fail (422).
 * Strict: a key not taken (`heigth=50`) is named in the 422, not ignored for the default.
 */
export const flightParamsSchema = z
  .object({
    height: num(20, 500, 100),
    direction: num(0, 359, 90, true),
    overlap_h: num(10, 95, 70),
    overlap_w: num(10, 95, 65),
    drone: z.enum(DRONE_KEYS).default(DEFAULT_DRONE),
  })
  .strict()
  .superRefine((q, ctx) => {
    const issue = photosTooCloseIssue(q.drone, q.height, q.overlap_h);
    if (issue) ctx.addIssue(issue);
  })
  .transform((q): FlightOptions => ({ height: q.height, direction: q.direction, overlapH: q.overlap_h, overlapW: q.overlap_w, drone: q.drone }));

/** Validates a query object such as `Object.fromEntries(url.searchParams)`; throws ValidationError (422). */
export function validateFlightParams(query: Record<string, string | undefined>): FlightOptions {
  return validate(flightParamsSchema, query);
}

/** A safe, transliterated `.kmz` file name for a field ("Поле №1" -> "Pole_1.kmz"). */
export function kmzFileName(fieldName: string): string {
  // Letters, digits, hyphens and underscores: hyphens stay ("North-2"), anything a path could use goes.
  const base = asciiStem(fieldName).replace(/^[-_]+/, '').slice(0, 80);
  return `${base || 'field'}.kmz`;
}

// --- Planning -------------------------------------------------------------------------------------

const EARTH_RADIUS_M = 6_371_008.8;
const MAX_SPEED_MS = 15;
/**
 * The slowest a DJI route flies: WPML's autoFlightSpeed and waypointSpeed are 1-15 m/s (DJI Cloud
 * API, WPML elements). Photos closer together than the camera takes them at this speed cannot be had.
 */
const MIN_SPEED_MS = 1;
/**
 * Waypoints DJI aircraft take in one route: their firmware refuses a mission outside 2-65,535 ("Waypoint
 * number should be within 2 to 65535", dji-sdk/Mobile-SDK-Android-V5#435; MSDK Waypoint V2's
 * MISSION_COUNT_OVER_RANGE). About 2 kB of XML each: the cap also bounds a plan at about 130 MB of XML.
 */
export const MAX_WAYPOINTS = 65_535;

/** Metres between photos along a line: the footprint less the forward overlap. */
const photoIntervalM = (drone: DroneSpec, height: number, overlapH: number) => footprintM(drone, height).along * (1 - overlapH / 100);

/**
 * When the camera cannot take photos as close together as `height` and `overlapH` ask (even at
 * MIN_SPEED_MS a photo every minShootIntervalS is farther apart), what it can do: the photos' spacing
 * asked, the camera's interval, the lowest height at this overlap and the highest overlap at this
 * height that it can fly (over 80 % for every drone at the lowest height taken, 20 m), as the 422's
 * issue, the query's check and the planner's alike. Null when the camera keeps up.
 */
function photosTooCloseIssue(droneKey: DroneKey, height: number, overlapH: number) {
  const drone = DRONES[droneKey];
  const spacing = photoIntervalM(drone, height, overlapH);
  const needed = drone.minShootIntervalS * MIN_SPEED_MS;
  if (spacing >= needed) return null;
  const alongPerMetre = footprintM(drone, 1).along;
  const minHeight = Math.ceil(needed / (alongPerMetre * (1 - overlapH / 100)));
  const maxOverlap = Math.floor(100 * (1 - needed / (alongPerMetre * height)));
  const params = { key: 'kmz_photos_too_close', height, overlap_h: overlapH, spacing: Math.round(spacing * 10) / 10, seconds: drone.minShootIntervalS, min_height: minHeight, max_overlap: maxOverlap };
  return { code: 'custom' as const, path: ['overlap_h'], message: 'photos closer than the camera can take them', params, input: overlapH };
}

/** Acceleration assumed when the drone stops at a waypoint; each stop costs speed/accel seconds. */
const ACCEL_MS2 = 2;

/** Equirectangular metres around the field's centre: exact enough over a few kilometres. */
function localFrame(geometry: Polygon | MultiPolygon) {
  const all = (geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.coordinates).flat(2);
  const lon0 = (Math.min(...all.map((p) => p[0]!)) + Math.max(...all.map((p) => p[0]!))) / 2;
  const lat0 = (Math.min(...all.map((p) => p[1]!)) + Math.max(...all.map((p) => p[1]!))) / 2;
  const kx = (EARTH_RADIUS_M * Math.cos((lat0 * Math.PI) / 180) * Math.PI) / 180;
  const ky = (EARTH_RADIUS_M * Math.PI) / 180;
  return {
    toXY: (p: Position): [number, number] => [(p[0]! - lon0) * kx, (p[1]! - lat0) * ky],
    toLonLat: ([x, y]: [number, number]): [number, number] => [lon0 + x / kx, lat0 + y / ky],
  };
}

export interface SurveyPlan {
  /** Distance between flight lines, m. */
  lineSpacing: number;
  /** Distance between photos along a line, m. */
  photoInterval: number;
  speed: number;
  margin: number;
  /** Waypoints in flight order, lon/lat. */
  waypoints: [number, number][];
  /** Photo runs as [first, last] waypoint index; the legs between runs are turns. */
  runs: [number, number][];
  /** Metres along the whole path. */
  distance: number;
  /** Seconds. */
  duration: number;
}

type Interval = [number, number];

function mergeIntervals(intervals: Interval[]): Interval[] {
  const sorted = [...intervals].sort((x, y) => x[0] - y[0]);
  const out: Interval[] = [];
  for (const iv of sorted) {
    const last = out.at(-1);
    if (last && iv[0] <= last[1]) last[1] = Math.max(last[1], iv[1]);
    else out.push([iv[0], iv[1]]);
  }
  return out;
}

/** The flight lines over one part of a field: each line's across-track offset and its photo runs (with margins), in along-track order. */
interface SweepLine { c: number; ivs: Interval[] }

/**
 * Lines across one part (a polygon and its holes, in along/across metres) every `lineSpacing` metres,
 * centred on the part; each runs over the part of the polygon within half a spacing of it (so every
 * point is photographed, concave edges and holes included), extended by the margin.
 */
function partLines(rings: (readonly [number, number])[][], lineSpacing: number, margin: number): SweepLine[] {
  const edges = rings.flatMap((r) => r.slice(0, -1).map((p, i) => [p, r[i + 1]!] as const));

  /** Inside parts of the polygon on the line `across = t` (even-odd, so holes are outside); `near`: the edges that may cross it. */
  const slice = (t: number, near: typeof edges): Interval[] => {
    const xs: number[] = [];
    for (const [[a1, c1], [a2, c2]] of near) if ((c1 <= t && t < c2) || (c2 <= t && t < c1)) xs.push(a1 + ((t - c1) * (a2 - a1)) / (c2 - c1));
    xs.sort((x, y) => x - y);
    const out: Interval[] = [];
    for (let i = 0; i + 1 < xs.length; i += 2) out.push([xs[i]!, xs[i + 1]!]);
    return out;
  };
  /** Along-track extent of the polygon inside the band t0..t1: between vertices the slices change linearly. */
  const band = (t0: number, t1: number): Interval[] => {
    const near = edges.filter(([p, q]) => Math.max(p[1], q[1]) >= t0 && Math.min(p[1], q[1]) <= t1);
    const cuts = [...new Set([t0, t1, ...near.map(([p]) => p[1]).filter((c) => c > t0 && c < t1)])].sort((x, y) => x - y);
    const parts: Interval[] = [];
    for (let i = 0; i + 1 < cuts.length; i++) {
      const eps = (cuts[i + 1]! - cuts[i]!) * 1e-7;
      const lo = slice(cuts[i]! + eps, near);
      const hi = slice(cuts[i + 1]! - eps, near);
      if (lo.length === hi.length) lo.forEach((iv, k) => parts.push([Math.min(iv[0], hi[k]![0]), Math.max(iv[1], hi[k]![1])]));
      else parts.push(...lo, ...hi);
    }
    return mergeIntervals(parts);
  };

  const across = rings.flat().map((p) => p[1]);
  const minC = Math.min(...across);
  const width = Math.max(...across) - minC;
  const count = Math.max(1, Math.ceil(width / lineSpacing - 1e-9));
  const first = minC + (width - (count - 1) * lineSpacing) / 2;
  const lines: SweepLine[] = [];
  for (let k = 0; k < count; k++) {
    const c = first + k * lineSpacing;
    const ivs = mergeIntervals(band(c - lineSpacing / 2, c + lineSpacing / 2).map(([a, b]): Interval => [a - margin, b + margin]));
    if (ivs.length) lines.push({ c, ivs });
  }
  return lines;
}

/** One way to fly a part's lines: from its first or its last line, the first line forwards or backwards. Points in along/across metres. */
interface Sweep { points: [number, number][]; runs: [number, number][] }

function sweep(lines: SweepLine[], fromLast: boolean, firstBackward: boolean): Sweep {
  const points: [number, number][] = [];
  const runs: [number, number][] = [];
  (fromLast ? [...lines].reverse() : lines).forEach(({ c, ivs }, j) => {
    // Lawn-mower: consecutive lines are flown in opposite directions.
    const backward = (j % 2 === 1) !== firstBackward;
    for (const [a, b] of backward ? [...ivs].reverse().map(([x, y]) => [y, x]) : ivs) {
      runs.push([points.length, points.length + 1]);
      points.push([a!, c], [b!, c]);
    }
  });
  return { points, runs };
}

const gap = (p: [number, number], q: [number, number]) => Math.hypot(p[0] - q[0], p[1] - q[1]);

/** Parts beyond which the first part is no longer chosen by trying each (the order is still nearest next). */
const MAX_PARTS_TRIED_FIRST = 40;

/**
 * The order to fly a field's parts in, each in one of its four ways: nearest next, from the end of the
 * previous part to the nearest start of a part not yet flown; of the orders starting at each part and
 * each way, the one with the least flying between parts. A single part keeps its first way.
 */
function orderSweeps(ways: Sweep[][]): Sweep[] {
  if (ways.length <= 1) return ways.map((w) => w[0]!);
  const starts = ways.length <= MAX_PARTS_TRIED_FIRST ? ways.flatMap((w, i) => w.map((_, v) => [i, v] as const)) : [[0, 0] as const];
  let best: { order: Sweep[]; transit: number } | null = null;
  for (const [i0, v0] of starts) {
    const order = [ways[i0]![v0]!];
    const left = new Set(ways.keys());
    left.delete(i0);
    let transit = 0;
    while (left.size && (!best || transit < best.transit)) {
      const at = order.at(-1)!.points.at(-1)!;
      let next: { i: number; s: Sweep; d: number } | null = null;
      for (const i of left) for (const s of ways[i]!) {
        const d = gap(at, s.points[0]!);
        if (!next || d < next.d) next = { i, s, d };
      }
      order.push(next!.s);
      left.delete(next!.i);
      transit += next!.d;
    }
    if (!left.size && (!best || transit < best.transit)) best = { order, transit };
  }
  return best!.order;
}

/**
 * Lawn-mower plan over a field: lines across each part of the field every `lineSpacing` metres (see
 * `partLines`), consecutive lines flown in opposite directions. A field of several parts is flown part by
 * part, each covered completely before the drone goes on to the nearest start of the next, so that it
 * crosses the ground between parts once per part, not on every line.
 */
/** Along/across axes of a flight: `along` points in the flight direction, `across` to its right. */
function flightAxes(geometry: Polygon | MultiPolygon, direction: number) {
  const th = (direction * Math.PI) / 180;
  const d: [number, number] = [Math.sin(th), Math.cos(th)];
  const n: [number, number] = [Math.cos(th), -Math.sin(th)];
  const frame = localFrame(geometry);
  const toAC = (p: Position) => { const [x, y] = frame.toXY(p); return [x * d[0] + y * d[1], x * n[0] + y * n[1]] as const; };
  return { d, n, frame, toAC };
}

const lineSpacingM = (opts: FlightOptions) => footprintM(DRONES[opts.drone], opts.height).across * (1 - opts.overlapW / 100);

/**
 * The plan's waypoints as counted from the field's vertices alone, before planning it (which costs
 * lines x edges): two for each line across each part's width, and two more where a line crosses a
 * hole. A concave edge may split a line more, so a plan may have a few more than this.
 */
export function estimateWaypoints(geometry: Polygon | MultiPolygon, opts: FlightOptions): number {
  const spacing = lineSpacingM(opts);
  const { toAC } = flightAxes(geometry, opts.direction);
  const lines = (ring: Position[]) => {
    let lo = Infinity, hi = -Infinity;
    for (const p of ring) { const c = toAC(p)[1]; lo = Math.min(lo, c); hi = Math.max(hi, c); }
    return Math.max(1, Math.ceil((hi - lo) / spacing - 1e-9));
  };
  const parts = geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.coordinates;
  return parts.reduce((n, rings) => n + rings.reduce((m, ring) => m + 2 * lines(ring), 0), 0);
}

/** A plan of more waypoints than DJI aircraft take (MAX_WAYPOINTS), refused (422) rather than written. */
export function planSizeError(waypoints: number): AppError | null {
  return waypoints > MAX_WAYPOINTS ? unprocessable('kmz_too_many_waypoints', { count: waypoints, max: MAX_WAYPOINTS }) : null;
}

/** Refuses, before planning, a field whose plan would be over MAX_WAYPOINTS at these parameters. */
export function checkPlanSize(geometry: Polygon | MultiPolygon, opts: FlightOptions): void {
  const err = planSizeError(estimateWaypoints(geometry, opts));
  if (err) throw err;
}

export function planSurvey(geometry: Polygon | MultiPolygon, opts: FlightOptions): SurveyPlan {
  const drone: DroneSpec = DRONES[opts.drone];
  const lineSpacing = lineSpacingM(opts);
  const photoInterval = photoIntervalM(drone, opts.height, opts.overlapH);
  // The query's check (flightParamsSchema) already refused these; a caller in code gets the same 422.
  const tooClose = photosTooCloseIssue(opts.drone, opts.height, opts.overlapH);
  if (tooClose) throw new ValidationError([tooClose]);
  checkPlanSize(geometry, opts);
  // At least MIN_SPEED_MS, which the check above makes slow enough for the camera.
  const speed = Math.max(MIN_SPEED_MS, Math.min(MAX_SPEED_MS, Math.floor((photoInterval / drone.minShootIntervalS) * 10) / 10));
  const margin = opts.margin ?? Math.round(photoInterval);

  const { d, n, frame, toAC } = flightAxes(geometry, opts.direction);
  const parts = geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.coordinates;
  const ways = parts
    .map((rings) => partLines(rings.map((ring) => ring.map(toAC)), lineSpacing, margin))
    .filter((lines) => lines.length)
    .map((lines) => [sweep(lines, false, false), sweep(lines, false, true), sweep(lines, true, false), sweep(lines, true, true)]);

  const pathAC: [number, number][] = [];
  const runs: [number, number][] = [];
  for (const s of orderSweeps(ways)) {
    runs.push(...s.runs.map(([a, b]): [number, number] => [a + pathAC.length, b + pathAC.length]));
    pathAC.push(...s.points);
  }

  // Concave edges split lines beyond the estimate: the plan as made is held to the cap too.
  const oversized = planSizeError(pathAC.length);
  if (oversized) throw oversized;
  const xy = pathAC.map(([a, c]): [number, number] => [a * d[0] + c * n[0], a * d[1] + c * n[1]]);
  const distance = xy.slice(1).reduce((s, p, i) => s + Math.hypot(p[0] - xy[i]![0], p[1] - xy[i]![1]), 0);
  const duration = distance / speed + (xy.length * speed) / ACCEL_MS2;
  return { lineSpacing, photoInterval, speed, margin, waypoints: xy.map(frame.toLonLat), runs, distance, duration };
}

// --- Writing ---------------------------------------------------------------------------------------

const WPML_NS = 'http://www.dji.com/wpmz/1.0.6';
const fmt = (x: number, digits = 12) => String(Number(x.toFixed(digits)));
const lonLat = (p: Position) => `${fmt(p[0]!)},${fmt(p[1]!)}`;

function missionConfig(drone: DroneSpec, indent: string): string {
  return [
    '<wpml:missionConfig>',
    '  <wpml:flyToWaylineMode>safely</wpml:flyToWaylineMode>',
    '  <wpml:finishAction>goHome</wpml:finishAction>',
    '  <wpml:exitOnRCLost>executeLostAction</wpml:exitOnRCLost>',
    '  <wpml:executeRCLostAction>goBack</wpml:executeRCLostAction>',
    '  <wpml:takeOffSecurityHeight>20</wpml:takeOffSecurityHeight>',
    `  <wpml:globalTransitionalSpeed>${MAX_SPEED_MS}</wpml:globalTransitionalSpeed>`,
    '  <wpml:droneInfo>',
    `    <wpml:droneEnumValue>${drone.droneEnumValue}</wpml:droneEnumValue>`,
    `    <wpml:droneSubEnumValue>${drone.droneSubEnumValue}</wpml:droneSubEnumValue>`,
    '  </wpml:droneInfo>',
    '  <wpml:waylineAvoidLimitAreaMode>0</wpml:waylineAvoidLimitAreaMode>',
    '  <wpml:payloadInfo>',
    `    <wpml:payloadEnumValue>${drone.payloadEnumValue}</wpml:payloadEnumValue>`,
    '    <wpml:payloadSubEnumValue>0</wpml:payloadSubEnumValue>',
    '    <wpml:payloadPositionIndex>0</wpml:payloadPositionIndex>',
    '  </wpml:payloadInfo>',
    '</wpml:missionConfig>',
  ].map((l) => indent + l).join('\n');
}

/**
 * The polygon a mapping2d template holds: DJI's template has one area (one Folder, one Polygon) per
 * route, so for a field of several parts it is the part of the largest area (holes subtracted). The
 * waylines fly all parts; docs/exports.md says what editing the route in Pilot 2 does.
 */
function templatePart(geometry: Polygon | MultiPolygon): Position[][] {
  if (geometry.type === 'Polygon') return geometry.coordinates;
  const area = (part: Position[][]) => geometryAreaM2({ type: 'Polygon', coordinates: part });
  return geometry.coordinates.reduce((best, part) => (area(part) > area(best) ? part : best));
}

function ringKml(tag: 'outerBoundaryIs' | 'innerBoundaryIs', ring: Position[]): string {
  // KML rings are written open in DJI's exports (the first point is not repeated).
  const open = ring.length > 1 && ring[0]![0] === ring.at(-1)![0] && ring[0]![1] === ring.at(-1)![1] ? ring.slice(0, -1) : ring;
  const pad = '                ';
  return [
    `          <${tag}>`,
    '            <LinearRing>',
    '              <coordinates>',
    ...open.map((p) => `${pad}${lonLat(p)},0`),
    '              </coordinates>',
    '            </LinearRing>',
    `          </${tag}>`,
  ].join('\n');
}

export function templateKml(geometry: Polygon | MultiPolygon, opts: FlightOptions, plan: SurveyPlan, now = Date.now()): string {
  const drone = DRONES[opts.drone];
  const [outer, ...holes] = templatePart(geometry);
  return `<?xml version="1.0" encoding="UTF-8"?>
<kml xmlns="http://www.opengis.net/kml/2.2" xmlns:wpml="${WPML_NS}">
  <Document>
    <wpml:createTime>${now}</wpml:createTime>
    <wpml:updateTime>${now}</wpml:updateTime>
${missionConfig(drone, '    ')}
    <Folder>
      <wpml:templateType>mapping2d</wpml:templateType>
      <wpml:templateId>0</wpml:templateId>
      <wpml:waylineCoordinateSysParam>
        <wpml:coordinateMode>WGS84</wpml:coordinateMode>
        <wpml:heightMode>relativeToStartPoint</wpml:heightMode>
        <wpml:globalShootHeight>${fmt(opts.height)}</wpml:globalShootHeight>
      </wpml:waylineCoordinateSysParam>
      <wpml:autoFlightSpeed>${fmt(plan.speed)}</wpml:autoFlightSpeed>
${areaPlacemarkKml(opts, plan, outer!, holes)}
      <wpml:payloadParam>
        <wpml:payloadPositionIndex>0</wpml:payloadPositionIndex>
        <wpml:focusMode>firstPoint</wpml:focusMode>
        <wpml:meteringMode>average</wpml:meteringMode>
        <wpml:dewarpingEnable>0</wpml:dewarpingEnable>
        <wpml:imageFormat>${drone.lenses}</wpml:imageFormat>
      </wpml:payloadParam>
    </Folder>
  </Document>
</kml>
`;
}

/** The template's area as Pilot 2 keeps it: its mapping settings, then its polygon (outer ring, holes). */
function areaPlacemarkKml(opts: FlightOptions, plan: SurveyPlan, outer: Position[], holes: Position[][]): string {
  return `      <Placemark>
        <wpml:caliFlightEnable>0</wpml:caliFlightEnable>
        <wpml:elevationOptimizeEnable>0</wpml:elevationOptimizeEnable>
        <wpml:smartObliqueEnable>0</wpml:smartObliqueEnable>
        <wpml:quickOrthoMappingEnable>0</wpml:quickOrthoMappingEnable>
        <wpml:facadeWaylineEnable>0</wpml:facadeWaylineEnable>
        <wpml:isLookAtSceneSet>0</wpml:isLookAtSceneSet>
        <wpml:shootType>distance</wpml:shootType>
        <wpml:direction>${opts.direction}</wpml:direction>
        <wpml:margin>${fmt(plan.margin, 2)}</wpml:margin>
        <wpml:efficiencyFlightModeEnable>0</wpml:efficiencyFlightModeEnable>
        <wpml:overlap>
          <wpml:orthoCameraOverlapH>${fmt(opts.overlapH)}</wpml:orthoCameraOverlapH>
          <wpml:orthoCameraOverlapW>${fmt(opts.overlapW)}</wpml:orthoCameraOverlapW>
        </wpml:overlap>
        <Polygon>
${[ringKml('outerBoundaryIs', outer), ...holes.map((h) => ringKml('innerBoundaryIs', h))].join('\n')}
        </Polygon>
        <wpml:ellipsoidHeight>${fmt(opts.height)}</wpml:ellipsoidHeight>
        <wpml:height>${fmt(opts.height)}</wpml:height>
      </Placemark>`;
}

const GIMBAL_DOWN = `            <wpml:gimbalHeadingYawBase>aircraft</wpml:gimbalHeadingYawBase>
            <wpml:gimbalRotateMode>absoluteAngle</wpml:gimbalRotateMode>
            <wpml:gimbalPitchRotateEnable>1</wpml:gimbalPitchRotateEnable>
            <wpml:gimbalPitchRotateAngle>-90</wpml:gimbalPitchRotateAngle>
            <wpml:gimbalRollRotateEnable>0</wpml:gimbalRollRotateEnable>
            <wpml:gimbalRollRotateAngle>0</wpml:gimbalRollRotateAngle>
            <wpml:gimbalYawRotateEnable>0</wpml:gimbalYawRotateEnable>
            <wpml:gimbalYawRotateAngle>0</wpml:gimbalYawRotateAngle>
            <wpml:gimbalRotateTimeEnable>0</wpml:gimbalRotateTimeEnable>
            <wpml:gimbalRotateTime>0</wpml:gimbalRotateTime>
            <wpml:payloadPositionIndex>0</wpml:payloadPositionIndex>`;

/** How every waypoint is flown: along the wayline, stopping at the point, straight to the next. */
const WAYPOINT_FLIGHT = `        <wpml:waypointHeadingParam>
          <wpml:waypointHeadingMode>followWayline</wpml:waypointHeadingMode>
          <wpml:waypointHeadingAngle>0</wpml:waypointHeadingAngle>
          <wpml:waypointPoiPoint>0.000000,0.000000,0.000000</wpml:waypointPoiPoint>
          <wpml:waypointHeadingAngleEnable>0</wpml:waypointHeadingAngleEnable>
          <wpml:waypointHeadingPathMode>followBadArc</wpml:waypointHeadingPathMode>
          <wpml:waypointHeadingPoiIndex>0</wpml:waypointHeadingPoiIndex>
        </wpml:waypointHeadingParam>
        <wpml:waypointTurnParam>
          <wpml:waypointTurnMode>toPointAndStopWithDiscontinuityCurvature</wpml:waypointTurnMode>
          <wpml:waypointTurnDampingDist>0</wpml:waypointTurnDampingDist>
        </wpml:waypointTurnParam>
        <wpml:useStraightLine>1</wpml:useStraightLine>`;

function waypointKml(p: [number, number], index: number, opts: FlightOptions, plan: SurveyPlan, drone: DroneSpec, group: { id: number; end: number } | null): string {
  const photos = group ? photoActionGroupKml(index, group, plan, drone) : '';
  return `      <Placemark>
        <Point>
          <coordinates>
            ${lonLat(p)}
          </coordinates>
        </Point>
        <wpml:index>${index}</wpml:index>
        <wpml:executeHeight>${fmt(opts.height)}</wpml:executeHeight>
        <wpml:waypointSpeed>${fmt(plan.speed)}</wpml:waypointSpeed>
${WAYPOINT_FLIGHT}${photos}
        <wpml:waypointGimbalHeadingParam>
          <wpml:waypointGimbalPitchAngle>-90</wpml:waypointGimbalPitchAngle>
          <wpml:waypointGimbalYawAngle>0</wpml:waypointGimbalYawAngle>
        </wpml:waypointGimbalHeadingParam>
        <wpml:isRisky>0</wpml:isRisky>
        <wpml:waypointWorkType>0</wpml:waypointWorkType>
      </Placemark>`;
}

/** A photo run's action group, on its first waypoint: a photo every photoInterval metres up to its last. */
function photoActionGroupKml(index: number, group: { id: number; end: number }, plan: SurveyPlan, drone: DroneSpec): string {
  return `
        <wpml:actionGroup>
          <wpml:actionGroupId>${group.id}</wpml:actionGroupId>
          <wpml:actionGroupStartIndex>${index}</wpml:actionGroupStartIndex>
          <wpml:actionGroupEndIndex>${group.end}</wpml:actionGroupEndIndex>
          <wpml:actionGroupMode>sequence</wpml:actionGroupMode>
          <wpml:actionTrigger>
            <wpml:actionTriggerType>multipleDistance</wpml:actionTriggerType>
            <wpml:actionTriggerParam>${fmt(plan.photoInterval, 3)}</wpml:actionTriggerParam>
          </wpml:actionTrigger>
          <wpml:action>
            <wpml:actionId>0</wpml:actionId>
            <wpml:actionActuatorFunc>takePhoto</wpml:actionActuatorFunc>
            <wpml:actionActuatorFuncParam>
              <wpml:payloadPositionIndex>0</wpml:payloadPositionIndex>
              <wpml:useGlobalPayloadLensIndex>0</wpml:useGlobalPayloadLensIndex>
              <wpml:payloadLensIndex>${drone.lenses}</wpml:payloadLensIndex>
            </wpml:actionActuatorFuncParam>
          </wpml:action>
        </wpml:actionGroup>`;
}

export function waylinesWpml(opts: FlightOptions, plan: SurveyPlan): string {
  const drone = DRONES[opts.drone];
  const runAt = new Map(plan.runs.map(([s, e], id) => [s, { id, end: e }]));
  return `<?xml version="1.0" encoding="UTF-8"?>
<kml xmlns="http://www.opengis.net/kml/2.2" xmlns:wpml="${WPML_NS}">
  <Document>
${missionConfig(drone, '    ')}
    <Folder>
      <wpml:templateId>0</wpml:templateId>
      <wpml:executeHeightMode>relativeToStartPoint</wpml:executeHeightMode>
      <wpml:waylineId>0</wpml:waylineId>
      <wpml:distance>${fmt(plan.distance, 3)}</wpml:distance>
      <wpml:duration>${fmt(plan.duration, 3)}</wpml:duration>
      <wpml:autoFlightSpeed>${fmt(plan.speed)}</wpml:autoFlightSpeed>
      <wpml:startActionGroup>
        <wpml:action>
          <wpml:actionId>0</wpml:actionId>
          <wpml:actionActuatorFunc>gimbalRotate</wpml:actionActuatorFunc>
          <wpml:actionActuatorFuncParam>
${GIMBAL_DOWN}
          </wpml:actionActuatorFuncParam>
        </wpml:action>
      </wpml:startActionGroup>
${plan.waypoints.map((p, i) => waypointKml(p, i, opts, plan, drone, runAt.get(i) ?? null)).join('\n')}
    </Folder>
  </Document>
</kml>
`;
}

function zipToBuffer(zip: yazl.ZipFile): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('error', reject);
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
  });
}

/** What an operator plans a day's flying by: the mission's length, time in the air and photo count. */
export interface FlightSummary {
  distance_m: number;
  /** Seconds along the route at its speed with its stops, as waylines.wpml gives them; take-off and landing not included. */
  duration_s: number;
  /** Photos along the runs at the photo interval. */
  photos: number;
}

/** Each photo run's points in local metres and the photos along it: one at its start and one every photoInterval after. */
function photoRuns(plan: SurveyPlan) {
  const frame = localFrame({ type: 'Polygon', coordinates: [plan.waypoints] });
  const xy = plan.waypoints.map(frame.toXY);
  return {
    frame,
    runs: plan.runs.map(([a, b]) => {
      const points = xy.slice(a, b + 1);
      const length = points.slice(1).reduce((s, p, i) => s + gap(points[i]!, p), 0);
      return { points, photos: Math.floor(length / plan.photoInterval) + 1 };
    }),
  };
}

export function flightSummary(plan: SurveyPlan): FlightSummary {
  const photos = photoRuns(plan).runs.reduce((n, run) => n + run.photos, 0);
  return { distance_m: Math.round(plan.distance), duration_s: Math.round(plan.duration), photos };
}

/** Where the photos `flightSummary` counts are taken, lon/lat, run by run. */
export function photoPositions(plan: SurveyPlan): [number, number][] {
  const { frame, runs } = photoRuns(plan);
  const out: [number, number][] = [];
  for (const { points, photos } of runs) {
    let seg = 0;
    let walked = 0;
    for (let k = 0; k < photos; k++) {
      const at = k * plan.photoInterval;
      while (seg + 2 < points.length && walked + gap(points[seg]!, points[seg + 1]!) < at) walked += gap(points[seg]!, points[++seg]!);
      const [p, q] = [points[seg]!, points[Math.min(seg + 1, points.length - 1)]!];
      const len = gap(p, q);
      const t = len ? Math.min(1, (at - walked) / len) : 0;
      out.push(frame.toLonLat([p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])]));
    }
  }
  return out;
}

/** The summary as the flight plan's answer carries it, for clients and the export panel. */
export const flightHeaders = (f: FlightSummary): Record<string, string> => ({
  'X-Flight-Distance-M': String(f.distance_m),
  'X-Flight-Duration-S': String(f.duration_s),
  'X-Flight-Photos': String(f.photos),
});

/** The field's mapping mission as a DJI WPML KMZ (wpmz/template.kml + wpmz/waylines.wpml), and its summary. */
export async function buildFlightPlanKmz(field: Pick<ExportField, 'geometry'>, opts: FlightOptions): Promise<{ kmz: Buffer; summary: FlightSummary }> {
  const plan = planSurvey(field.geometry, opts);
  const zip = new yazl.ZipFile();
  const mtime = new Date();
  zip.addBuffer(Buffer.from(templateKml(field.geometry, opts, plan, mtime.getTime())), 'wpmz/template.kml', { mtime });
  zip.addBuffer(Buffer.from(waylinesWpml(opts, plan)), 'wpmz/waylines.wpml', { mtime });
  const done = zipToBuffer(zip);
  zip.end();
  return { kmz: await done, summary: flightSummary(plan) };
}

/**
 * The KMZ names of the all-fields ZIP. A name several fields share (registers repeat parcel codes)
 * carries each field's id, so that a flight plan can be told apart and traced back to its field:
 * "1401-31_129.kmz", "1401-31_130.kmz".
 */
export function uniqueKmzNames(fields: readonly { id: number; name: string }[]): string[] {
  const bases = fields.map((f) => kmzFileName(f.name).slice(0, -4));
  const uses = new Map<string, number>();
  for (const b of bases) uses.set(b.toLowerCase(), (uses.get(b.toLowerCase()) ?? 0) + 1);
  const used = new Set<string>();
  return bases.map((b, i) => {
    const base = uses.get(b.toLowerCase())! > 1 ? `${b}_${fields[i]!.id}` : b;
    // A field may be named as another's name and id would be: then a number follows.
    let candidate = `${base}.kmz`;
    for (let n = 2; used.has(candidate.toLowerCase()); n++) candidate = `${base}-${n}.kmz`;
    used.add(candidate.toLowerCase());
    return candidate;
  });
}

/** Unread bytes the all-fields ZIP lets pile up before it waits for the reader. */
const MAX_BUFFERED = 4 * 1024 * 1024;

/** The archive's list of the fields whose plan could not be made, and why. */
export const ALL_PLANS_ERRORS_FILE = 'errors.txt';

export interface AllPlansBuild {
  /** One field's KMZ (lib/exports/export-work.ts builds a large one in a worker thread). */
  plan: (field: Pick<ExportField, 'id' | 'name' | 'geometry'>) => Promise<Buffer>;
  /** Why a plan failed, in the caller's language, for errors.txt. */
  describe: (err: unknown) => string;
  /** The first line of errors.txt, in the caller's language. */
  heading: string;
}

/**
 * A ZIP with one KMZ per field, streamed as the plans are made: it waits while the reader lags and stops
 * when the stream is destroyed (client gone). A plan that fails (too many waypoints, a worker that
 * died) is left out and named, with its reason, in errors.txt at the archive's end: the answer has
 * long been 200 by then, and cutting the stream would leave a broken ZIP with no word of why.
 */
export function buildAllFlightPlansZip(fields: Iterable<Pick<ExportField, 'id' | 'name' | 'geometry'>>, build: AllPlansBuild): Readable {
  const list = [...fields];
  const names = uniqueKmzNames(list);
  const zip = new yazl.ZipFile();
  const out = new PassThrough();
  zip.outputStream.pipe(out);
  void (async () => {
    try {
      const failed: string[] = [];
      for (let i = 0; i < list.length; i++) {
        while (!out.destroyed && (zip.outputStream as Readable).readableLength + out.readableLength > MAX_BUFFERED) await new Promise((r) => setTimeout(r, 5));
        if (out.destroyed) return;
        const field = list[i]!;
        let kmz: Buffer;
        try {
          kmz = await build.plan(field);
        } catch (err) {
          failed.push(`${names[i]} (${field.name}, id ${field.id}): ${build.describe(err)}`);
          continue;
        }
        if (out.destroyed) return;
        // KMZ files are already deflated: store them as they are.
        zip.addBuffer(kmz, names[i]!, { compress: false });
        await new Promise((r) => setImmediate(r));
      }
      if (failed.length) zip.addBuffer(Buffer.from(`${build.heading}\n\n${failed.join('\n')}\n`), ALL_PLANS_ERRORS_FILE);
      zip.end();
    } catch (err) {
      out.destroy(err as Error);
    }
  })();
  return out;
}
