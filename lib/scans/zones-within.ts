// A scan's zones within the field's boundary as it is now. A scan's zones follow the boundary the
// field had when it was processed; once the boundary is redrawn or the field split, a prescription
// must not spread product beyond it (onto the field cut off, say), and the field's page must not
// show zones that now lie in another field.
import type { FieldGeometry } from '../geo/geometry';
import type { ZoneShape } from '../geo/within';
import { boundaryFingerprint } from './boundary';
import { runBoundaryWork } from '../fields/boundary-work';

/** How many scans' clipped zones a process keeps (a large scan's are a megabyte or two). */
const REMEMBERED = 8;
const remembered = new Map<string, Map<number, ZoneShape>>();

/**
 * `zonesWithin` (lib/geo/within.ts) for the zones of scan `scanId` (each named by its row's `id`), in
 * a worker thread when they are large (a 500 ha NAIP scan's 30,000 vertices take 0.7 s) and
 * remembered for those zones and that boundary, so the field's page and its exports clip each once
 * per process. Zones made again are new rows: their ids make a new key.
 */
export async function scanZonesWithin<Z extends ZoneShape & { id: number }>(scanId: number, boundary: FieldGeometry, zones: Z[]): Promise<Z[]> {
  const key = `${scanId}:${zones.map((z) => z.id).join(',')}:${boundaryFingerprint(boundary)}`;
  let clipped = remembered.get(key);
  if (clipped) remembered.delete(key); // used most recently: to be forgotten last
  else {
    const inside = await runBoundaryWork({ op: 'clip', boundary, zones: zones.map((z) => ({ id: z.id, geometry: z.geometry, areaHa: z.areaHa })) });
    clipped = new Map((inside as (ZoneShape & { id: number })[]).map(({ id, geometry, areaHa }) => [id, { geometry, areaHa }]));
  }
  remembered.set(key, clipped);
  if (remembered.size > REMEMBERED) remembered.delete(remembered.keys().next().value!);
  return zones.flatMap((z) => {
    const within = clipped.get(z.id);
    return within ? [{ ...z, ...within }] : [];
  });
}
