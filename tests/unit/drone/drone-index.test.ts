// The index of a mosaic (index.ts) averaged into its GeoTIFF a band of cell rows at a time.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromFile } from 'geotiff';
import type { Polygon } from 'geojson';
import { afterAll, describe, expect, it } from 'vitest';
import { utmFrame } from '@/lib/drone/frame';
import { analyseIndex } from '@/lib/drone/index';
import type { Mosaic } from '@/lib/drone/ortho';

// 5 cm pixels averaged 2 x 2 into 10 cm cells: 2,000 x 1,500 cells, more than one band of them
// (INDEX_BAND_BYTES), and an odd last row of pixels.
const W = 4000, H = 2999, GSD = 0.05, FACTOR = 2, X0 = 500000, Y0 = 5200000;
const dir = mkdtempSync(join(tmpdir(), 'index-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** VARI as the index loop computes it. */
function vari(red: number, green: number, blue: number): number {
  const d = green + red - blue;
  return d === 0 ? 0 : Math.max(-1, Math.min(1, (green - red) / d));
}

/** A raw RGB + alpha mosaic of noise with holes (whole empty cells among them), and each cell's mean VARI added in the loop's order. */
function rawMosaic(path: string): { expected: Float32Array; imaged: number } {
  let seed = 3;
  const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const px = new Uint8Array(W * H * 4);
  const OW = W / FACTOR, OH = Math.ceil(H / FACTOR);
  const sum = new Float64Array(OW * OH), cnt = new Uint32Array(OW * OH);
  let imaged = 0;
  for (let row = 0; row < H; row++) {
    for (let col = 0; col < W; col++) {
      const o = (row * W + col) * 4;
      for (let b = 0; b < 3; b++) px[o + b] = (rand() * 256) | 0;
      // A stripe of empty cells every 100 cells, and a twentieth of the pixels elsewhere.
      if ((col >> 1) % 100 === 7 || rand() < 0.05) continue;
      px[o + 3] = 255;
      imaged++;
      const cell = (row >> 1) * OW + (col >> 1);
      sum[cell] = sum[cell]! + vari(px[o]!, px[o + 1]!, px[o + 2]!);
      cnt[cell]!++;
    }
  }
  writeFileSync(path, px);
  return { expected: Float32Array.from(sum, (s, k) => (cnt[k] ? s / cnt[k]! : -9999)), imaged };
}

describe('the index GeoTIFF', () => {
  it('holds each cell\'s mean index, across the bands of cells it is made in', async () => {
    const rawPath = join(dir, 'mosaic.raw');
    const { expected, imaged } = rawMosaic(rawPath);
    const frame = utmFrame(-99, 47);
    // A field 10 m beyond the mosaic on every side: every pixel is inside it.
    const corners = [[-10, 10], [W * GSD + 10, 10], [W * GSD + 10, -H * GSD - 10], [-10, -H * GSD - 10], [-10, 10]];
    const field: Polygon = { type: 'Polygon', coordinates: [corners.map(([e, n]) => frame.toWgs84(X0 + e!, Y0 + n!))] };
    const mosaic = {
      geotiffPath: join(dir, 'orthomosaic.tif'), rawPath, width: W, height: H, bands: ['red', 'green', 'blue'],
      crs: `EPSG:${frame.epsg}`, geoTransform: [X0, GSD, 0, Y0, 0, -GSD],
    } as Pick<Mosaic, 'geotiffPath' | 'rawPath' | 'width' | 'height' | 'bands' | 'crs' | 'geoTransform'> as Mosaic;
    const analysis = await analyseIndex(mosaic, field);
    expect(analysis.indexName).toBe('VARI');
    expect(analysis.pixelCount).toBe(imaged);
    const image = await (await fromFile(analysis.indexGeotiffPath)).getImage();
    expect([image.getWidth(), image.getHeight()]).toEqual([W / FACTOR, Math.ceil(H / FACTOR)]);
    expect(image.getResolution()[0]).toBeCloseTo(GSD * FACTOR, 9);
    const [cells] = (await image.readRasters()) as unknown as [Float32Array];
    let differing = 0;
    for (let k = 0; k < expected.length; k++) if (cells![k] !== expected[k]) differing++;
    expect(differing).toBe(0);
  });
});
