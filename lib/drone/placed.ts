// Placement priors: each capture on the ground as GPS, height and heading put it before any matching.
// Photos that record no heading or height above take-off (no DJI XMP) take them from the flight track
// and the matches along it (track.ts).
import type { DronePhoto } from './exif';
import type { Features, MotionFinder } from './features';
import { median } from './features';
import type { Placement, UtmFrame } from './frame';
import { gpsPlacement, groundSampleM, headingDeg, heightM, recordsHeading, recordsHeight, TYPICAL_FOV_H } from './frame';
import type { Capture } from './survey';
import { trackPriors } from './track';

export interface Placed {
  capture: Capture;
  width: number;
  height: number;
  centre: [number, number];
  gsd: number;
  /** Height above ground the prior's scale `gsd` was derived from (m). */
  heightM: number;
  /** Camera heading of the prior (degrees clockwise from north). */
  headingDeg: number;
  prior: Placement;
}

/** Whether every photo records its heading and its height above take-off. */
export interface Recorded {
  heading: boolean;
  height: boolean;
}

/** Each capture's prior; headings and heights a photo does not record come from the track, its pairs' motion found by `motion`. */
export async function placementPriors(
  captures: Capture[], features: Features[], frame: UtmFrame, motion?: MotionFinder,
): Promise<{ placed: Placed[]; recorded: Recorded }> {
  const mains: DronePhoto[] = captures.map((c) => c.main);
  const recorded = { heading: mains.every(recordsHeading), height: mains.every(recordsHeight) };
  const fromTrack = recorded.heading && recorded.height ? null : await trackPriors(mains, features, mains.map((p) => frame.toUtm(p.gps!.lon, p.gps!.lat)), motion);
  const medianHeight = median(mains.map((p) => heightM(p, 100)));
  const placed: Placed[] = captures.map((capture, i) => {
    const p = capture.main;
    const h = heightM(p, fromTrack?.heightM?.[i] ?? medianHeight);
    const heading = recordsHeading(p) ? headingDeg(p) : fromTrack!.headingDeg[i]!;
    const gsd = groundSampleM(p, h) ?? (2 * h * Math.tan(TYPICAL_FOV_H / 2)) / p.widthPx;
    return { capture, width: p.widthPx, height: p.heightPx, centre: [p.widthPx / 2, p.heightPx / 2], gsd, heightM: h, headingDeg: heading, prior: gpsPlacement(p, frame, h, gsd, heading) };
  });

  return { placed, recorded };
}
