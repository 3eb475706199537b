// The pinhole camera (lib/drone/camera.ts): projection and ray casting agree, tilts move the view the
// way their names say, and a nadir camera from a similarity placement draws what the similarity draws.
import { describe, expect, it } from 'vitest';
import type { Camera } from '@/lib/drone/camera';
import { cameraFromPlacement, placementOfCamera, pixelRayToGround, pixelRayToPlane, projectToPixel, rotation } from '@/lib/drone/camera';
import { dewarpData } from '@/lib/drone/exif';
import { toGround } from '@/lib/drone/frame';
import type { ReliefGrid } from '@/lib/drone/relief';
import { heightAt } from '@/lib/drone/relief';

const deg = Math.PI / 180;

/** A 15 m hill on a 200 m square, 2 m cells. */
function hill(): ReliefGrid {
  const cols = 100, rows = 100, cellM = 2, e0 = 500_000, n0 = 5_000_000;
  const z = new Float32Array(cols * rows);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) z[r * cols + c] = 15 * Math.exp(-((c - 50) ** 2 + (r - 50) ** 2) / 400);
  return { e0, n0, cellM, cols, rows, z };
}

const camera = (over: Partial<Camera> = {}): Camera => ({
  E: 500_100, N: 5_000_100, Z: 80, yaw: 30 * deg, pitch: 2 * deg, roll: -1.5 * deg, f: 3600, cx: 2000 + 7, cy: 1500 - 9, k1: -0.11, k2: 0.015, ...over,
});

describe('pinhole camera', () => {
  it('has a proper rotation (orthonormal, determinant 1)', () => {
    const R = rotation(1.1, 0.05, -0.03);
    for (let a = 0; a < 3; a++) {
      for (let b = 0; b < 3; b++) {
        const dot = R[3 * a]! * R[3 * b]! + R[3 * a + 1]! * R[3 * b + 1]! + R[3 * a + 2]! * R[3 * b + 2]!;
        expect(dot).toBeCloseTo(a === b ? 1 : 0, 12);
      }
    }
    const det = R[0]! * (R[4]! * R[8]! - R[5]! * R[7]!) - R[1]! * (R[3]! * R[8]! - R[5]! * R[6]!) + R[2]! * (R[3]! * R[7]! - R[4]! * R[6]!);
    expect(det).toBeCloseTo(1, 12);
  });

  it('casts every pixel onto the hill and projects the hit back to that pixel (tilt and distortion)', () => {
    const relief = hill(), c = camera();
    let worst = 0;
    for (const [u, v] of [[0, 0], [4000, 0], [4000, 3000], [0, 3000], [2007, 1491], [1234, 2345], [3900, 100]] as const) {
      const [e, n, h] = pixelRayToGround(c, u, v, relief);
      expect(h).toBeCloseTo(heightAt(relief, e, n), 2);
      const [u2, v2] = projectToPixel(c, e, n, h);
      worst = Math.max(worst, Math.hypot(u2 - u, v2 - v));
    }
    expect(worst).toBeLessThan(0.05);
    expect(projectToPixel(c, c.E, c.N, c.Z + 10)).toEqual([NaN, NaN]);
  });

  it('tilts the view towards image up with pitch and towards image right with roll', () => {
    const north = camera({ yaw: 0, pitch: 0, roll: 0, k1: 0, k2: 0 });
    const centre = (c: Camera) => pixelRayToPlane(c, c.cx, c.cy, 0);
    const [e0, n0] = centre(north);
    expect([e0 - north.E, n0 - north.N].map((d) => Math.abs(d) < 1e-9)).toEqual([true, true]);
    const [ep, np] = centre({ ...north, pitch: 2 * deg });
    expect(np - north.N).toBeCloseTo(80 * Math.tan(2 * deg), 6);
    expect(Math.abs(ep - north.E)).toBeLessThan(1e-9);
    const [er, nr] = centre({ ...north, roll: 2 * deg });
    expect(er - north.E).toBeCloseTo(80 * Math.tan(2 * deg), 6);
    expect(Math.abs(nr - north.N)).toBeLessThan(1e-9);
    // Heading east: image up looks east, image right south.
    const east = { ...north, yaw: 90 * deg };
    const [eu, nu] = pixelRayToPlane(east, east.cx, 0, 0);
    expect(eu - east.E).toBeGreaterThan(10);
    expect(Math.abs(nu - east.N)).toBeLessThan(1e-6);
  });

  it('draws a nadir camera made from a similarity placement where the similarity draws it, on flat ground', () => {
    const gsd = 0.025, theta = -40 * deg;
    const q = { a: gsd * Math.cos(theta), b: gsd * Math.sin(theta), tx: 500_050, ty: 5_000_070 };
    const c = cameraFromPlacement(q, 90, 0, 90 / gsd, { pitch: 0, roll: 0 }, { cx: 2000, cy: 1500, k1: 0, k2: 0 });
    for (const [u, v] of [[0, 0], [4000, 0], [2500, 2900]] as const) {
      const [e1, n1] = toGround(q, 2000, 1500, u, v);
      const [e2, n2] = pixelRayToPlane(c, u, v, 0);
      expect(Math.hypot(e1 - e2, n1 - n2)).toBeLessThan(1e-6);
    }
    // Tilted: the principal ray still lands on the placement's centre, from a camera moved back.
    const tilted = cameraFromPlacement(q, 90, 5, 90 / gsd, { pitch: 3 * deg, roll: 1 * deg }, { cx: 2000, cy: 1500, k1: 0, k2: 0 });
    const [e3, n3] = pixelRayToPlane(tilted, 2000, 1500, 5);
    expect(Math.hypot(e3 - q.tx, n3 - q.ty)).toBeLessThan(1e-6);
    expect(Math.hypot(tilted.E - q.tx, tilted.N - q.ty)).toBeGreaterThan(4);
    // A camera and the placement that stands for it make each other again.
    const c2 = camera();
    const back = cameraFromPlacement(placementOfCamera(c2), c2.Z, 0, c2.f, { pitch: c2.pitch, roll: c2.roll }, c2);
    for (const key of ['E', 'N', 'Z', 'yaw', 'pitch', 'roll'] as const) expect(back[key]).toBeCloseTo(c2[key], 6);
  });

  it("reads DJI's DewarpData (principal point offsets and k1, k2) and refuses other forms", () => {
    expect(dewarpData('2022-06-08;3713.29,3713.29,7.02,-9.72,-0.11257524,0.01487443,-0.00008572,0.0000001,-0.02706411'))
      .toEqual({ cx: 7.02, cy: -9.72, k1: -0.11257524, k2: 0.01487443 });
    expect(dewarpData('2022-06-08;3713.29,3713.29')).toBeNull();
    expect(dewarpData(undefined)).toBeNull();
  });
});
