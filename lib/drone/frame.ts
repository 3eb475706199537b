// Local metric frame for a survey: the UTM zone of its centre (WGS84), and each photo's initial
// placement (pixel -> ground similarity) from GPS position, height, heading and field of view.
import proj4 from 'proj4';
import type { DronePhoto } from './exif';
import { fieldOfView } from './exif';

export interface UtmFrame {
  epsg: number;
  proj4: string;
  toUtm(lon: number, lat: number): [number, number];
  toWgs84(e: number, n: number): [number, number];
}

export function utmFrame(lon: number, lat: number): UtmFrame {
  const zone = Math.min(60, Math.max(1, Math.floor((lon + 180) / 6) + 1));
  const south = lat < 0;
  const def = `+proj=utm +zone=${zone}${south ? ' +south' : ''} +datum=WGS84 +units=m +no_defs`;
  const conv = proj4('WGS84', def);
  return {
    epsg: (south ? 32700 : 32600) + zone,
    proj4: def,
    toUtm: (x, y) => conv.forward([x, y]) as [number, number],
    toWgs84: (e, n) => conv.inverse([e, n]) as [number, number],
  };
}

/**
 * ground = [a -b; b a] · (pixel - centre) + [tx, ty]   (pixel y grows down, ground y grows north).
 * a = s·cos θ, b = s·sin θ with s metres per pixel; linear in (a, b, tx, ty), which keeps the global
 * adjustment a linear least-squares problem.
 */
export interface Placement {
  a: number;
  b: number;
  tx: number;
  ty: number;
}

export function toGround(p: Placement, cx: number, cy: number, u: number, v: number): [number, number] {
  const x = u - cx;
  const y = cy - v; // flip so that image "up" is +y
  return [p.a * x - p.b * y + p.tx, p.b * x + p.a * y + p.ty];
}

export function toPixel(p: Placement, cx: number, cy: number, e: number, n: number): [number, number] {
  const dx = e - p.tx;
  const dy = n - p.ty;
  const k = p.a * p.a + p.b * p.b;
  const x = (p.a * dx + p.b * dy) / k;
  const y = (-p.b * dx + p.a * dy) / k;
  return [x + cx, cy - y];
}

/** Whether the photo records its heading (DJI XMP: the gimbal's or the aircraft's yaw). */
export const recordsHeading = (p: DronePhoto) => !!(p.gimbal ?? p.flight);

/** Camera heading (degrees clockwise from north): the gimbal's yaw when recorded, else the aircraft's. */
export const headingDeg = (p: DronePhoto) => p.gimbal?.yaw ?? p.flight?.yaw ?? 0;

/** Whether the photo records its height above take-off (DJI XMP RelativeAltitude). */
export const recordsHeight = (p: DronePhoto) => p.relativeAltitudeM !== null && p.relativeAltitudeM > 1;

/** Height above ground: take-off-relative altitude when the drone records it (flat field assumption). */
export function heightM(p: DronePhoto, fallback: number): number {
  return recordsHeight(p) ? p.relativeAltitudeM! : fallback;
}

/** Metres per pixel at nadir; null without known optics. */
export function groundSampleM(p: DronePhoto, height: number): number | null {
  const fov = fieldOfView(p);
  return fov ? (2 * height * Math.tan(fov.h / 2)) / p.widthPx : null;
}

/** Horizontal field of view assumed for a camera whose optics are unknown (typical of survey drones). */
export const TYPICAL_FOV_H = (84 * Math.PI) / 180;

/** Height above ground at which the photo's pixels measure `gsd` metres (the inverse of groundSampleM). */
export function heightForGroundSample(p: DronePhoto, gsd: number): number {
  return (gsd * p.widthPx) / (2 * Math.tan((fieldOfView(p)?.h ?? TYPICAL_FOV_H) / 2));
}

/**
 * Ground point under the image centre: the GPS position moved along the heading when the gimbal is
 * not pointing straight down.
 */
export function centreGround(p: DronePhoto, frame: UtmFrame, height: number): [number, number] {
  const [e, n] = frame.toUtm(p.gps!.lon, p.gps!.lat);
  const pitch = p.gimbal?.pitch ?? -90;
  const off = Math.abs(pitch) < 89.5 && Math.abs(pitch) > 30 ? height * Math.tan(((90 - Math.abs(pitch)) * Math.PI) / 180) : 0;
  const h = (headingDeg(p) * Math.PI) / 180;
  return [e + off * Math.sin(h), n + off * Math.cos(h)];
}

/** `heading`: degrees clockwise from north, the photo's own record unless the track says it (track.ts). */
export function gpsPlacement(p: DronePhoto, frame: UtmFrame, height: number, gsd: number, heading = headingDeg(p)): Placement {
  const [tx, ty] = centreGround(p, frame, height);
  // Image up points along the heading, so the image axes are rotated by -heading from east/north.
  const theta = (-heading * Math.PI) / 180;
  return { a: gsd * Math.cos(theta), b: gsd * Math.sin(theta), tx, ty };
}

/** Corners of a photo on the ground (closed ring). */
export function footprint(p: Placement, w: number, h: number): [number, number][] {
  const cx = w / 2;
  const cy = h / 2;
  const ring = [toGround(p, cx, cy, 0, 0), toGround(p, cx, cy, w, 0), toGround(p, cx, cy, w, h), toGround(p, cx, cy, 0, h)];
  return [...ring, ring[0]!];
}
