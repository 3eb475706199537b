// The one error a survey that does not stitch ends with (spec: the reasons it names).
import { AppError } from '@/lib/errors';

export type StitchReason = 'no_matches' | 'too_little_overlap' | 'mixed_flights' | 'disconnected';

/** Stitching failure: message key `errors.drone_stitch_failed`, `params.reason` one of StitchReason. */
export class StitchError extends AppError {
  constructor(readonly reason: StitchReason, detail = '') {
    super('unprocessable', 'drone_stitch_failed', { reason, ...(detail ? { detail } : {}) });
  }
}
