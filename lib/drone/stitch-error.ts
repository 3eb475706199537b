// The one error a survey that does not stitch ends with (spec: the reasons it names).
import { AppError } from '@/lib/errors';

/**
 * The spec's reasons, and `no_scale`: the photos tie together but not to the ground's scale (photos
 * of nearly one spot, metres apart, with no camera data: the block shrank to a point).
 */
export type StitchReason = 'no_matches' | 'too_little_overlap' | 'mixed_flights' | 'disconnected' | 'no_scale';

/** Stitching failure: message key `errors.drone_stitch_failed`, `params.reason` one of StitchReason. */
export class StitchError extends AppError {
  constructor(readonly reason: StitchReason, detail = '') {
    super('unprocessable', 'drone_stitch_failed', { reason, ...(detail ? { detail } : {}) });
  }
}
