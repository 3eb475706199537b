// A coloured LAS/LAZ point cloud seen from above: the colour of the highest point in each cell of a
// north-up grid over the cloud's extent. Used to compare a mosaic with what a photogrammetry tool
// reconstructed from the same photos, and that comparison.
import { readFileSync } from 'node:fs';
import { createLazPerf } from 'laz-perf';
import { guidedMatches, orbFeatures } from '@/lib/drone/features';
import { openCv } from '@/lib/drone/opencv';

export interface TopView {
  /** RGB, row-major from the north-west corner; cells without points are 0 in `filled`. */
  rgb: Uint8Array;
  filled: Uint8Array;
  width: number;
  height: number;
  /** West and north edges of the grid, cell size (CRS units, metres for UTM). */
  x0: number;
  y0: number;
  cell: number;
  /** Extent of the points, from the LAS header. */
  bounds: { minX: number; maxX: number; minY: number; maxY: number };
}

/** Point formats whose records carry 16-bit RGB, and where it starts in each record. */
const RGB_OFFSET: Record<number, number> = { 2: 20, 3: 28, 5: 28, 7: 30, 8: 30 };

export async function lasTopView(path: string, cell: number): Promise<TopView> {
  const file = readFileSync(path);
  const header = new DataView(file.buffer, file.byteOffset, 227);
  const scale = [131, 139, 147].map((o) => header.getFloat64(o, true)) as [number, number, number];
  const offset = [155, 163, 171].map((o) => header.getFloat64(o, true)) as [number, number, number];
  const bounds = { maxX: header.getFloat64(179, true), minX: header.getFloat64(187, true), maxY: header.getFloat64(195, true), minY: header.getFloat64(203, true) };

  const lp = await createLazPerf();
  const data = lp._malloc(file.length);
  lp.HEAPU8.set(file, data);
  const laz = new lp.LASZip();
  try {
    laz.open(data, file.length);
    const format = laz.getPointFormat() & 0x3f, length = laz.getPointLength();
    const rgbAt = RGB_OFFSET[format];
    if (rgbAt === undefined) throw new Error(`point format ${format} carries no colour`);
    const x0 = Math.floor(bounds.minX / cell) * cell, y0 = Math.ceil(bounds.maxY / cell) * cell;
    const width = Math.ceil((bounds.maxX - x0) / cell), height = Math.ceil((y0 - bounds.minY) / cell);
    const rgb = new Uint8Array(width * height * 3), filled = new Uint8Array(width * height);
    const top = new Float64Array(width * height).fill(-Infinity);
    const point = lp._malloc(length);
    try {
      // Colours are 16-bit in the format but many tools write 8-bit values into them; scale by the maximum.
      const colours = new Uint16Array(laz.getCount() * 3), cells = new Int32Array(laz.getCount());
      let maxColour = 0;
      for (let k = 0; k < laz.getCount(); k++) {
        laz.getPoint(point);
        const v = new DataView(lp.HEAPU8.buffer, point, length);
        const x = v.getInt32(0, true) * scale[0] + offset[0], y = v.getInt32(4, true) * scale[1] + offset[1], z = v.getInt32(8, true) * scale[2] + offset[2];
        const c = Math.floor((x - x0) / cell), r = Math.floor((y0 - y) / cell);
        cells[k] = -1;
        if (c < 0 || r < 0 || c >= width || r >= height || z < top[r * width + c]!) continue;
        top[r * width + c] = z;
        cells[k] = r * width + c;
        for (let b = 0; b < 3; b++) maxColour = Math.max(maxColour, (colours[3 * k + b] = v.getUint16(rgbAt + 2 * b, true)));
      }
      const k8 = maxColour > 255 ? 255 / 65535 : 1;
      // Later points overwrite earlier ones only when higher, so the last write to each cell is its top.
      for (let k = 0; k < cells.length; k++) {
        const i = cells[k]!;
        if (i < 0) continue;
        for (let b = 0; b < 3; b++) rgb[3 * i + b] = Math.round(colours[3 * k + b]! * k8);
        filled[i] = 255;
      }
    } finally {
      lp._free(point);
    }
    return { rgb, filled, width, height, x0, y0, cell, bounds };
  } finally {
    laz.delete();
    lp._free(data);
  }
}

export interface CloudAgreement {
  /** Feature matches found, and those consistent with one transform (RANSAC, 1 m). */
  matches: number;
  used: number;
  /** Size and turn of the mosaic against the cloud. */
  scale: number;
  turnDeg: number;
  /** How far each corner of the cloud's extent lies from where the mosaic shows it (m). */
  cornersM: number[];
}

/**
 * Matches the cloud's top view against an image of the mosaic on the same grid (`rgb`, 3 bands,
 * `filled` where it has data): the affine transform between them, and where it carries the corners
 * of the cloud's extent.
 */
export async function agreementWithCloud(cloud: TopView, rgb: Uint8Array, filled: Uint8Array): Promise<CloudAgreement> {
  const [fc, fo] = await Promise.all([
    orbFeatures(cloud.rgb, cloud.width, cloud.height, 3, 1, cloud.filled),
    orbFeatures(rgb, cloud.width, cloud.height, 3, 1, filled),
  ]);
  const identity = { a: 1, b: 0, tx: 0, ty: 0 };
  const found = guidedMatches(fc, identity, [0, 0], fo, identity, [0, 0], 5 / cloud.cell);
  const { cv } = await openCv();
  const from = cv.matFromArray(found.length, 1, cv.CV_32FC2, found.flatMap(([a]) => [fc.points[2 * a]!, fc.points[2 * a + 1]!]));
  const to = cv.matFromArray(found.length, 1, cv.CV_32FC2, found.flatMap(([, b]) => [fo.points[2 * b]!, fo.points[2 * b + 1]!]));
  const inliers = new cv.Mat();
  const affine = cv.estimateAffine2D(from, to, inliers, cv.RANSAC, 1 / cloud.cell, 2000, 0.995, 10);
  try {
    const [m00, m01, m02, m10, m11, m12] = Array.from(affine.data64F as Float64Array) as number[];
    const { bounds } = cloud;
    const cornersM = [[bounds.minX, bounds.minY], [bounds.minX, bounds.maxY], [bounds.maxX, bounds.minY], [bounds.maxX, bounds.maxY]].map(([x, y]) => {
      const c = (x! - cloud.x0) / cloud.cell, r = (cloud.y0 - y!) / cloud.cell;
      return Math.hypot(m00! * c + m01! * r + m02! - c, m10! * c + m11! * r + m12! - r) * cloud.cell;
    });
    return {
      matches: found.length,
      used: (inliers.data as Uint8Array).reduce((s, v) => s + v, 0),
      scale: Math.sqrt(m00! * m11! - m01! * m10!),
      turnDeg: (Math.atan2(m10! - m01!, m00! + m11!) * 180) / Math.PI,
      cornersM,
    };
  } finally {
    [from, to, inliers, affine].forEach((m) => m.delete());
  }
}
