// The flight plan the KMZ export writes, drawn before it is downloaded: its path (the waypoints in
// flight order), its photo points and its summary, from the same planner (wpml.ts `planSurvey`).
import type { FeatureCollection, LineString, MultiPoint, MultiPolygon, Polygon } from 'geojson';
import { batteriesFor, DRONES } from './drones';
import { flightSummary, photoPositions, planSurvey, type FlightOptions, type FlightSummary } from './wpml';

/** Photo points sent at most: beyond, the map shows the path alone and the summary counts them. */
export const MAX_PREVIEW_PHOTOS = 20_000;

export interface FlightPreviewSummary extends FlightSummary {
  /** As many as the KMZ's waylines.wpml has placemarks. */
  waypoints: number;
  batteries: number;
  speed_ms: number;
  line_spacing_m: number;
  photo_interval_m: number;
  /** False when the photos are more than MAX_PREVIEW_PHOTOS and the plan carries none. */
  photos_drawn: boolean;
}

export interface FlightPreview {
  /** The field's outline, the path (its waypoints in flight order) and the photo points. */
  plan: FeatureCollection<Polygon | MultiPolygon | LineString | MultiPoint, { kind: 'field' | 'path' | 'photos' }>;
  summary: FlightPreviewSummary;
}

/** About a centimetre: the map needs no more, and the answer is a third the size. */
const round7 = ([lon, lat]: [number, number]): [number, number] => [Math.round(lon * 1e7) / 1e7, Math.round(lat * 1e7) / 1e7];
const round1 = (x: number) => Math.round(x * 10) / 10;

export function flightPreview(geometry: Polygon | MultiPolygon, opts: FlightOptions): FlightPreview {
  const plan = planSurvey(geometry, opts);
  const summary = flightSummary(plan);
  const photosDrawn = summary.photos <= MAX_PREVIEW_PHOTOS;
  return {
    plan: {
      type: 'FeatureCollection',
      features: [
        { type: 'Feature', properties: { kind: 'field' }, geometry },
        { type: 'Feature', properties: { kind: 'path' }, geometry: { type: 'LineString', coordinates: plan.waypoints.map(round7) } },
        { type: 'Feature', properties: { kind: 'photos' }, geometry: { type: 'MultiPoint', coordinates: photosDrawn ? photoPositions(plan).map(round7) : [] } },
      ],
    },
    summary: {
      ...summary,
      waypoints: plan.waypoints.length,
      batteries: batteriesFor(DRONES[opts.drone], plan.duration),
      speed_ms: plan.speed,
      line_spacing_m: round1(plan.lineSpacing),
      photo_interval_m: round1(plan.photoInterval),
      photos_drawn: photosDrawn,
    },
  };
}
