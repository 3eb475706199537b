// Pinhole camera of one photo: centre C in the survey's UTM frame (Z above the relief's reference),
// rotation world→camera from heading, pitch and roll, focal length and principal point in pixels and
// radial distortion k1, k2. The camera looks down its +z axis; image x grows right (u), y down (v).
// Pitch and roll are measured from nadir, so a survey camera sits near (0, 0), far from the angles'
// singularity; that keeps three angles a sound parameterisation for the bundle adjustment.
import type { Dewarp, DronePhoto } from './exif';
import type { Placement } from './frame';
import type { ReliefGrid } from './relief';
import { heightAt } from './relief';

export interface Camera {
  /** Centre (m): easting, northing, height above the relief's reference. */
  E: number;
  N: number;
  Z: number;
  /** Heading of image up (radians clockwise from north). */
  yaw: number;
  /** Tilt from nadir towards image up (radians). */
  pitch: number;
  /** Tilt from nadir towards image right (radians). */
  roll: number;
  /** Focal length (pixels). */
  f: number;
  /** Principal point (pixels, same frame as the matches: the image centre is (width/2, height/2)). */
  cx: number;
  cy: number;
  k1: number;
  k2: number;
}

/** The pose part of a camera the bundle adjustment moves: E, N, Z, yaw, pitch, roll. */
export const POSE_KEYS = ['E', 'N', 'Z', 'yaw', 'pitch', 'roll'] as const;

/**
 * Rows of the world→camera rotation: the camera's x, y and z axes in world (E, N, up) coordinates.
 * Nadir first (image up along the heading), then pitch about x, then roll about the new y.
 */
export function rotation(yaw: number, pitch: number, roll: number): Float64Array {
  const sy = Math.sin(yaw), cyw = Math.cos(yaw);
  const cp = Math.cos(pitch), sp = Math.sin(pitch), cr = Math.cos(roll), sr = Math.sin(roll);
  // Nadir axes: x0 = (cos yaw, −sin yaw, 0), y0 = (−sin yaw, −cos yaw, 0), z0 = (0, 0, −1).
  const y = [-cp * sy, -cp * cyw, -sp];
  const z1 = [sp * sy, sp * cyw, -cp];
  const x = [cr * cyw - sr * z1[0]!, -cr * sy - sr * z1[1]!, -sr * z1[2]!];
  const z = [cr * z1[0]! + sr * cyw, cr * z1[1]! - sr * sy, cr * z1[2]!];
  return Float64Array.of(x[0]!, x[1]!, x[2]!, y[0]!, y[1]!, y[2]!, z[0]!, z[1]!, z[2]!);
}

/** Radial distortion factor at normalised radius² r2. */
const distortion = (c: Camera, r2: number) => 1 + r2 * (c.k1 + c.k2 * r2);

/** Pixel (u, v) where the ground point (E, N, h) is seen; NaN behind the camera. `R`: rotation(c) when already at hand. */
export function projectToPixel(c: Camera, E: number, N: number, h: number, R: Float64Array = rotation(c.yaw, c.pitch, c.roll)): [number, number] {
  const dx = E - c.E, dy = N - c.N, dz = h - c.Z;
  const zc = R[6]! * dx + R[7]! * dy + R[8]! * dz;
  if (!(zc > 0)) return [NaN, NaN];
  const x = (R[0]! * dx + R[1]! * dy + R[2]! * dz) / zc, y = (R[3]! * dx + R[4]! * dy + R[5]! * dz) / zc;
  const d = c.k1 || c.k2 ? distortion(c, x * x + y * y) : 1;
  return [c.cx + c.f * x * d, c.cy + c.f * y * d];
}

/** Normalised image coordinates of a pixel, distortion removed (fixed point: converges for survey lenses). */
export function undistort(c: Camera, u: number, v: number): [number, number] {
  const xd = (u - c.cx) / c.f, yd = (v - c.cy) / c.f;
  if (!c.k1 && !c.k2) return [xd, yd];
  let x = xd, y = yd;
  for (let it = 0; it < 8; it++) {
    const d = distortion(c, x * x + y * y);
    x = xd / d;
    y = yd / d;
  }
  return [x, y];
}

/** Direction (world, not unit) of the ray through pixel (u, v). */
export function pixelRay(c: Camera, u: number, v: number, R: Float64Array = rotation(c.yaw, c.pitch, c.roll)): [number, number, number] {
  const [x, y] = undistort(c, u, v);
  return [R[0]! * x + R[3]! * y + R[6]!, R[1]! * x + R[4]! * y + R[7]!, R[2]! * x + R[5]! * y + R[8]!];
}

/** Where the ray through pixel (u, v) meets the horizontal plane at height h. */
export function pixelRayToPlane(c: Camera, u: number, v: number, h: number, R?: Float64Array): [number, number] {
  const [dx, dy, dz] = pixelRay(c, u, v, R);
  const t = (h - c.Z) / dz;
  return [c.E + t * dx, c.N + t * dy];
}

/** Fixed-point iterations of the ray–relief intersection: the relief's slopes are gentle next to the flying height. */
const RELIEF_ITERATIONS = 6;

/** Where the ray through pixel (u, v) meets the relief: [E, N, h]. */
export function pixelRayToGround(c: Camera, u: number, v: number, relief: ReliefGrid, R: Float64Array = rotation(c.yaw, c.pitch, c.roll)): [number, number, number] {
  let h = heightAt(relief, c.E, c.N);
  let [e, n] = pixelRayToPlane(c, u, v, h, R);
  for (let it = 0; it < RELIEF_ITERATIONS; it++) {
    h = heightAt(relief, e, n);
    [e, n] = pixelRayToPlane(c, u, v, h, R);
  }
  return [e, n, h];
}

/** Focal length (pixels) of a photo placed at `gsd` metres a pixel from `heightM` metres: both come from its optics (frame.ts). */
export const focalPx = (heightM: number, gsd: number) => heightM / gsd;

/** Gimbal pitch and roll as tilts from nadir (radians); DJI's GimbalPitchDegree is −90 at nadir. Nadir when unrecorded. */
export function recordedTilt(p: DronePhoto): { pitch: number; roll: number } {
  const g = p.gimbal;
  if (!g) return { pitch: 0, roll: 0 };
  const rad = Math.PI / 180;
  return { pitch: (g.pitch + 90) * rad, roll: g.roll * rad };
}

/** Principal point and radial distortion: DJI's DewarpData when recorded, else the image centre without distortion. */
export function intrinsics(width: number, height: number, dewarp: Dewarp | null | undefined): Pick<Camera, 'cx' | 'cy' | 'k1' | 'k2'> {
  return { cx: width / 2 + (dewarp?.cx ?? 0), cy: height / 2 + (dewarp?.cy ?? 0), k1: dewarp?.k1 ?? 0, k2: dewarp?.k2 ?? 0 };
}

/**
 * Initial camera from an adjusted similarity placement: heading from its turn, height `Z` above the
 * reference (the flying height), tilt as recorded; C set so that the principal ray meets the ground
 * at `groundH` where the placement puts the image centre.
 */
export function cameraFromPlacement(
  q: Placement, Z: number, groundH: number, f: number, tilt: { pitch: number; roll: number }, intr: Pick<Camera, 'cx' | 'cy' | 'k1' | 'k2'>,
): Camera {
  const yaw = -Math.atan2(q.b, q.a);
  const R = rotation(yaw, tilt.pitch, tilt.roll);
  // Principal ray direction = camera z axis (third row of R); its ground hit is (tx, ty).
  const t = (groundH - Z) / R[8]!;
  return { E: q.tx - t * R[6]!, N: q.ty - t * R[7]!, Z, yaw, pitch: tilt.pitch, roll: tilt.roll, f, cx: intr.cx, cy: intr.cy, k1: intr.k1, k2: intr.k2 };
}

/** Where the camera's principal point lands on the relief: the photo's centre on the ground. */
export function centreOnGround(c: Camera, relief: ReliefGrid): [number, number, number] {
  return pixelRayToGround(c, c.cx, c.cy, relief);
}

/**
 * The similarity placement that stands for a camera (its inverse is cameraFromPlacement with ground
 * height 0): turn from the heading, scale Z / f, centre where the principal ray meets the reference.
 */
export function placementOfCamera(c: Camera): Placement {
  const s = c.Z / c.f;
  const [tx, ty] = pixelRayToPlane(c, c.cx, c.cy, 0);
  return { a: s * Math.cos(-c.yaw), b: s * Math.sin(-c.yaw), tx, ty };
}
