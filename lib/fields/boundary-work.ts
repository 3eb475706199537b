// The geometry of a merge, a cut, a parcel taken back out or zones clipped to a boundary, in the
// request's thread when it is quick and in a worker thread when it is not: the largest field's cut
// takes seconds of CPU, which would stall every other request the web process is serving.
import type { Position } from 'geojson';
import { type FieldGeometry, validateFieldGeometry, vertexCount } from '../geo/geometry';
import { separateGeometry } from '../geo/separate';
import { splitGeometry } from '../geo/split';
import { geometryUnion } from '../geo/union';
import { type ZoneShape, zonesWithin } from '../geo/within';
import { unprocessable } from '../errors';
import { IN_REQUEST_UP_TO_VERTICES, runRequestWork } from '../tasks/run-in-thread';

export type BoundaryWork =
  | { op: 'union'; fields: FieldGeometry[] }
  | { op: 'split'; field: FieldGeometry; line: Position[] }
  /** `name` is the part's, for the refusals. */
  | { op: 'separate'; field: FieldGeometry; part: FieldGeometry; name: string }
  | { op: 'clip'; boundary: FieldGeometry; zones: ZoneShape[] };

/**
 * The union (one geometry), the parts of the cut (largest first), or the part taken out and the rest
 * of the field, each a valid field geometry; or the zones within the boundary (zonesWithin).
 */
export function boundaryWork(work: BoundaryWork): FieldGeometry[] | ZoneShape[] {
  if (work.op === 'union') return [validateFieldGeometry(geometryUnion(work.fields))];
  if (work.op === 'clip') return zonesWithin(work.boundary, work.zones);
  if (work.op === 'separate') {
    const { part, rest } = separateGeometry(work.field, work.part);
    if (!part) throw unprocessable('unmerge_outside', { name: work.name });
    if (!rest) throw unprocessable('unmerge_whole_field', { name: work.name });
    return [validateFieldGeometry(part), validateFieldGeometry(rest)];
  }
  return splitGeometry(work.field, work.line).map(validateFieldGeometry);
}

const verticesOf = (work: BoundaryWork): number => {
  if (work.op === 'union') return work.fields.reduce((n, g) => n + vertexCount(g), 0);
  if (work.op === 'clip') return work.zones.reduce((n, z) => n + vertexCount(z.geometry), vertexCount(work.boundary));
  if (work.op === 'separate') return vertexCount(work.field) + vertexCount(work.part);
  return vertexCount(work.field);
};

export async function runBoundaryWork(work: BoundaryWork & { op: 'clip' }): Promise<ZoneShape[]>;
export async function runBoundaryWork(work: BoundaryWork & { op: 'union' | 'split' | 'separate' }): Promise<FieldGeometry[]>;
export async function runBoundaryWork(work: BoundaryWork): Promise<FieldGeometry[] | ZoneShape[]> {
  if (verticesOf(work) <= IN_REQUEST_UP_TO_VERTICES) return boundaryWork(work);
  // Refusals (a line that misses the field, a union over the vertex limit) come back as 422s.
  return (await runRequestWork('boundaries', work)) as FieldGeometry[] | ZoneShape[];
}
