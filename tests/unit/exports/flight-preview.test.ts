// The flight plan's preview: the same plan as the KMZ (waypoint for placemark), its photo points and batteries.
import { pointToLineDistance } from '@turf/turf';
import type { LineString, MultiPoint, Polygon, Position } from 'geojson';
import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import { batteriesFor, DRONES } from '@/lib/exports/drones';
import { flightPreview, MAX_PREVIEW_PHOTOS } from '@/lib/exports/flight-preview';
import { buildFlightPlanKmz, type FlightOptions } from '@/lib/exports/wpml';

const LON0 = 18.72, LAT0 = 48.2;
const M_LAT = 111_195, M_LON = 111_195 * Math.cos((LAT0 * Math.PI) / 180);
const ll = ([x, y]: [number, number]): Position => [LON0 + x / M_LON, LAT0 + y / M_LAT];
const field = (w: number, h: number): Polygon => ({ type: 'Polygon', coordinates: [[[0, 0], [w, 0], [w, h], [0, h], [0, 0]].map((p) => ll(p as [number, number]))] });
const opts = (o: Partial<FlightOptions> = {}): FlightOptions => ({ height: 100, direction: 90, overlapH: 70, overlapW: 65, drone: 'mavic3m', ...o });

const part = <T>(p: ReturnType<typeof flightPreview>, kind: string) => p.plan.features.find((f) => f.properties.kind === kind)!.geometry as T;

describe('flightPreview', () => {
  it('draws the KMZ’s own waypoints, in its order, and its summary', async () => {
    const geometry = field(600, 400);
    const preview = flightPreview(geometry, opts({ direction: 30 }));
    const { kmz, summary } = await buildFlightPlanKmz({ geometry }, opts({ direction: 30 }));
    const waylines = await (await JSZip.loadAsync(kmz)).file('wpmz/waylines.wpml')!.async('string');
    const placemarks = [...waylines.matchAll(/<coordinates>\s*([\d.]+),([\d.]+)\s*<\/coordinates>/g)].map((m) => [Number(m[1]), Number(m[2])]);
    const path = part<LineString>(preview, 'path').coordinates;
    expect(preview.summary.waypoints).toBe(placemarks.length);
    expect(path).toHaveLength(placemarks.length);
    path.forEach((p, i) => {
      expect(p[0]).toBeCloseTo(placemarks[i]![0]!, 6);
      expect(p[1]).toBeCloseTo(placemarks[i]![1]!, 6);
    });
    expect(preview.summary).toMatchObject(summary);
    expect(preview.plan.features[0]!.geometry).toEqual(geometry);
  });

  it('puts one photo point per photo counted, each on a flight line, a photo interval apart', () => {
    const preview = flightPreview(field(500, 300), opts());
    const photos = part<MultiPoint>(preview, 'photos').coordinates;
    const path = part<LineString>(preview, 'path');
    expect(preview.summary.photos_drawn).toBe(true);
    expect(photos).toHaveLength(preview.summary.photos);
    for (const p of photos) expect(pointToLineDistance(p, path, { units: 'meters' })).toBeLessThan(0.05);
    const [a, b] = [photos[0]!, photos[1]!];
    const metres = Math.hypot((b[0]! - a[0]!) * M_LON, (b[1]! - a[1]!) * M_LAT);
    expect(metres).toBeCloseTo(preview.summary.photo_interval_m, 0);
  });

  it('changes with height and overlap: lower or more overlap, more waypoints and photos', () => {
    const base = flightPreview(field(600, 400), opts()).summary;
    const low = flightPreview(field(600, 400), opts({ height: 60 })).summary;
    const overlapped = flightPreview(field(600, 400), opts({ overlapW: 80, overlapH: 80 })).summary;
    expect(low.waypoints).toBeGreaterThan(base.waypoints);
    expect(low.photos).toBeGreaterThan(base.photos);
    expect(overlapped.waypoints).toBeGreaterThan(base.waypoints);
    expect(overlapped.photos).toBeGreaterThan(base.photos);
  });

  it('counts batteries by 70 % of the drone’s published flight time, and leaves the photo points out of a huge plan', () => {
    expect(batteriesFor(DRONES.mavic3m, 60)).toBe(1);
    expect(batteriesFor(DRONES.mavic3m, 43 * 60 * 0.7)).toBe(1);
    expect(batteriesFor(DRONES.mavic3m, 43 * 60 * 0.7 + 1)).toBe(2);
    const big = flightPreview(field(4000, 3000), opts({ height: 40, overlapH: 80, overlapW: 80 }));
    expect(big.summary.photos).toBeGreaterThan(MAX_PREVIEW_PHOTOS);
    expect(big.summary.photos_drawn).toBe(false);
    expect(part<MultiPoint>(big, 'photos').coordinates).toEqual([]);
    expect(big.summary.batteries).toBe(batteriesFor(DRONES.mavic3m, big.summary.duration_s));
  });
});
