// Shapes of the API answers the interface reads.
import type { MultiPolygon, Polygon } from 'geojson';

export type FieldGeometry = Polygon | MultiPolygon;

export interface FieldProps {
  name: string;
  area: number;
  owner: string | null;
  owner_id: number | null;
  status: string | null;
  parcel_number: string | null;
}

export interface FieldFeature {
  type: 'Feature';
  id: number;
  properties: FieldProps;
  geometry: FieldGeometry;
}

export interface FieldCollection {
  type: 'FeatureCollection';
  features: FieldFeature[];
}

/** A base map (MAP_BASE_LAYERS): its tile URL template, attribution (null: OpenStreetMap's) and the deepest zoom its server has tiles for. */
export interface BaseLayer {
  name: string;
  url: string;
  attribution: string | null;
  maxZoom: number;
}

export interface OwnerOption {
  id: number;
  name: string;
}

/** A field an upload can be for: found by its name or parcel number. */
export interface FieldChoice {
  id: number;
  name: string;
  parcel_number: string | null;
}

export interface TaskView {
  task_id: string;
  status: 'pending' | 'running' | 'completed' | 'error' | string;
  progress: string | null;
  percent: number;
  result: Record<string, unknown> | null;
  error: string | null;
}
