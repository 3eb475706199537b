// The plain data the export builders take; the route loads it from the database.
import type { MultiPolygon, Polygon } from 'geojson';
import type { PreviewLegend } from '../raster/ramp';

export interface ExportField {
  id: number;
  name: string;
  /** Hectares. */
  area: number;
  status: string | null;
  parcel_number: string | null;
  owner: string | null;
  /** Longitude/latitude. */
  geometry: Polygon | MultiPolygon;
  company: { name: string };
}

export interface ExportZone {
  classIndex: number;
  name: string;
  areaHa: number;
  mean: number | null;
  min: number | null;
  max: number | null;
  /** CSS colour, `#rrggbb`. */
  color: string;
  geometry: Polygon | MultiPolygon;
}

export interface ExportScan {
  id: number;
  /** An uploaded index raster, or a drone survey (whose image is its orthomosaic, not the index). */
  source?: 'raster' | 'drone';
  indexName: string;
  /** ISO date-time of the imagery. */
  capturedAt: string | null;
  stats: { min: number; max: number; mean: number; std: number; median: number };
  histogram: { min: number; max: number; counts: number[] };
  /** The index image (PNG) and its bounds [[south, west], [north, east]]. */
  previewPng?: Buffer;
  previewBounds?: [[number, number], [number, number]];
  /** What the image's colours mean (none for a drone survey's orthomosaic, in true colour). */
  legend?: PreviewLegend | null;
  /** The automatic classification. */
  crop?: { crop_type: string; confidence: number; top_candidates: { crop: string; score: number }[] };
  /** The crop a user named, which the scan reports over the classification. */
  userCrop?: string | null;
  /**
   * A drone survey's share of the whole field its photos show (0-1, `details.field_coverage`), when it
   * is of the field's present boundary; without it the coverage is what the zones cover of the field.
   */
  photoCoverage?: number;
}

/** One of the field's processed scans, as the report's history lists them. */
export interface ExportScanEntry {
  id: number;
  /** When its image was taken or, when no one knows (`dated` false), uploaded. */
  date: string;
  dated: boolean;
  source: string;
  indexName: string | null;
  mean: number | null;
  crop: string | null;
}

/** Zone class -> application rate in kg/ha. */
export type Rates = Record<number, number>;

/** The highest application rate taken, in kg/ha (100 t/ha: manure; every rate a spreader gives is below it). */
export const MAX_RATE_KG_HA = 100_000;
