// Which boundary a scan's zones were made for: a fingerprint of the field's geometry as processing
// read it, so that an export can tell whether the boundary has been redrawn (or the field split) since.
import { createHash } from 'node:crypto';
import type { FieldGeometry } from '../geo/geometry';

/** The stored geometry's text is `JSON.stringify` of it, so parsed and stored forms agree. */
export const boundaryFingerprint = (geometry: FieldGeometry) => createHash('sha1').update(JSON.stringify(geometry)).digest('hex');
