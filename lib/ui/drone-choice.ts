// The drone a browser last chose for flight plans: an operator flies one aircraft, and every KMZ
// button (the field page's export panel, the fields table's) writes its plan for it.
import { DEFAULT_DRONE, DRONE_KEYS, type DroneKey } from '../exports/drones';

const DRONE_STORAGE_KEY = 'fieldmap.kmz.drone';

export function storedDrone(): DroneKey {
  try {
    const v = typeof window === 'undefined' ? null : window.localStorage.getItem(DRONE_STORAGE_KEY);
    return (DRONE_KEYS as readonly string[]).includes(v ?? '') ? (v as DroneKey) : DEFAULT_DRONE;
  } catch {
    return DEFAULT_DRONE; // storage refused (private window, policy)
  }
}

export function rememberDrone(drone: DroneKey): void {
  try {
    window.localStorage.setItem(DRONE_STORAGE_KEY, drone);
  } catch {
    // not remembered: the choice still holds on this page
  }
}

/** A KMZ export's address (one field's, or `all`) for the remembered drone. */
export const kmzExportPath = (target: number | 'all', drone: DroneKey = storedDrone()) => `/api/field/export/kmz/${target}?${new URLSearchParams({ drone })}`;
