import type { ScanLayer } from '../map/scan-tiles';

export interface ZoneFeatureCollection {
  type: 'FeatureCollection';
  features: { type: 'Feature'; id: number; properties: { class: number; name: string; color: string; area_ha: number; mean: number }; geometry: object }[];
}

/** A completed scan of the field as the map offers it: its date and the tile layers it has. */
export interface MapScan {
  id: number;
  index: string | null;
  /** When its image was taken, else when it was uploaded. */
  date: string;
  layers: ScanLayer[];
}

/** Two scans compared with a swipe: which is left and right, the layer compared, and where the line is (0-1). */
export interface ScanCompare {
  left: number;
  right: number;
  layer: ScanLayer;
  position: number;
}
