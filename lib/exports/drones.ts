// DJI drones and cameras a flight plan can be written for: the WPML enum values (DJI Cloud API,
// "Product Support" enumerations) and the mapping camera's geometry, which sets line spacing and photo
// interval. For the Mavic 3M the multispectral camera is used, because its narrower view is what the
// index maps are made from.

export interface DroneSpec {
  label: string;
  droneEnumValue: number;
  droneSubEnumValue: number;
  payloadEnumValue: number;
  /** Lenses a photo is taken with (`payloadLensIndex`, `imageFormat`). */
  lenses: string;
  /** Sensor size in mm, the long side (width) flown across the track as DJI's mapping missions do. */
  sensorWidthMm: number;
  sensorHeightMm: number;
  focalLengthMm: number;
  imageWidthPx: number;
  imageHeightPx: number;
  /** Shortest time between two photos, which caps the ground speed. */
  minShootIntervalS: number;
  /**
   * Longest flight on one battery as DJI publishes it (no wind). For the Matrices with a P1 an estimate
   * with it on board (DJI's 55 min is without payload): docs/flight-preview.md.
   */
  flightTimeMin: number;
}

export const DRONES = {
  mavic3m: {
    label: 'DJI Mavic 3M (multispectral)',
    droneEnumValue: 77,
    droneSubEnumValue: 2,
    payloadEnumValue: 68,
    lenses: 'visable,narrow_band',
    sensorWidthMm: 5.22,
    sensorHeightMm: 3.92,
    focalLengthMm: 4.34,
    imageWidthPx: 2592,
    imageHeightPx: 1944,
    minShootIntervalS: 2,
    flightTimeMin: 43,
  },
  mavic3e: {
    label: 'DJI Mavic 3E',
    droneEnumValue: 77,
    droneSubEnumValue: 0,
    payloadEnumValue: 66,
    lenses: 'visable',
    sensorWidthMm: 17.3,
    sensorHeightMm: 13.0,
    focalLengthMm: 12.29,
    imageWidthPx: 5280,
    imageHeightPx: 3956,
    minShootIntervalS: 0.7,
    flightTimeMin: 45,
  },
  matrice3d: {
    label: 'DJI Matrice 3D',
    droneEnumValue: 91,
    droneSubEnumValue: 0,
    payloadEnumValue: 80,
    lenses: 'visable',
    sensorWidthMm: 17.3,
    sensorHeightMm: 13.0,
    focalLengthMm: 12.29,
    imageWidthPx: 5280,
    imageHeightPx: 3956,
    minShootIntervalS: 0.7,
    flightTimeMin: 50,
  },
  matrice4e: {
    label: 'DJI Matrice 4E',
    droneEnumValue: 99,
    droneSubEnumValue: 0,
    payloadEnumValue: 88,
    lenses: 'visable',
    sensorWidthMm: 17.3,
    sensorHeightMm: 13.0,
    focalLengthMm: 12.29,
    imageWidthPx: 5280,
    imageHeightPx: 3956,
    minShootIntervalS: 0.5,
    flightTimeMin: 49,
  },
  m350_p1: {
    label: 'DJI Matrice 350 RTK + Zenmuse P1 (35 mm)',
    droneEnumValue: 89,
    droneSubEnumValue: 0,
    payloadEnumValue: 50,
    lenses: 'visable',
    sensorWidthMm: 35.9,
    sensorHeightMm: 24.0,
    focalLengthMm: 35,
    imageWidthPx: 8192,
    imageHeightPx: 5460,
    minShootIntervalS: 0.7,
    flightTimeMin: 42,
  },
  m300_p1: {
    label: 'DJI Matrice 300 RTK + Zenmuse P1 (35 mm)',
    droneEnumValue: 60,
    droneSubEnumValue: 0,
    payloadEnumValue: 50,
    lenses: 'visable',
    sensorWidthMm: 35.9,
    sensorHeightMm: 24.0,
    focalLengthMm: 35,
    imageWidthPx: 8192,
    imageHeightPx: 5460,
    minShootIntervalS: 0.7,
    flightTimeMin: 41,
  },
} as const satisfies Record<string, DroneSpec>;

export type DroneKey = keyof typeof DRONES;
export const DRONE_KEYS = Object.keys(DRONES) as [DroneKey, ...DroneKey[]];
export const DEFAULT_DRONE: DroneKey = 'mavic3m';

/** Ground footprint of one photo in metres at a height above ground: across and along the track. */
export function footprintM(drone: DroneSpec, heightM: number): { across: number; along: number } {
  return { across: (heightM * drone.sensorWidthMm) / drone.focalLengthMm, along: (heightM * drone.sensorHeightMm) / drone.focalLengthMm };
}

/**
 * Share of a battery's published flight time a mission may plan on: the rest is take-off, climb, the
 * way home, landing and wind, as pilots keep 25-30 % in reserve.
 */
const PLANNED_BATTERY_SHARE = 0.7;

/** Batteries a route of `seconds` in the air takes with this drone (at least one). */
export function batteriesFor(drone: DroneSpec, seconds: number): number {
  return Math.max(1, Math.ceil(seconds / (drone.flightTimeMin * 60 * PLANNED_BATTERY_SHARE)));
}
