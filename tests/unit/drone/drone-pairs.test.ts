import { copyFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDroneExif } from '@/lib/drone/exif';
import { tieSurvey } from '@/lib/drone/ortho';
import { candidatePairs, MAX_PAIRS_PER_PHOTO, mayLeaveApart } from '@/lib/drone/pairs';
import { missingShared, sharedPath } from '../../helpers/shared-data';
import { writeStrayShot, writeThermalShot } from '../../helpers/stray-photos';
import type { Placed } from '@/lib/drone/placed';
import { footprint } from '@/lib/drone/frame';
import { convexOverlap, planarRingArea } from '@/lib/geo/planar';

/** A 100 x 75 m photo footprint (1 m a pixel, north up) centred on (e, n). */
const at = (e: number, n: number): Placed => ({
  capture: { id: `${e} ${n}`, photos: [], main: undefined as never }, width: 100, height: 75, centre: [50, 37.5], gsd: 1, heightM: 100, headingDeg: 0,
  prior: { a: 1, b: 0, tx: e, ty: n },
});

const degrees = (n: number, pairs: [number, number][]) => {
  const d = new Array<number>(n).fill(0);
  for (const [i, j] of pairs) { d[i]!++; d[j]!++; }
  return d;
};

describe('candidatePairs', () => {
  it('keeps every overlapping pair of a survey flown as usual, in (i, j) order', () => {
    // Three lines of ten photos, 20 m apart along the line and 30 m across: each overlaps some 20 others.
    const placed = [0, 1, 2].flatMap((line) => Array.from({ length: 10 }, (_, k) => at(k * 20, line * 30)));
    const pairs = candidatePairs(placed);
    const all: [number, number][] = [];
    for (let i = 0; i < placed.length; i++) for (let j = i + 1; j < placed.length; j++) {
      const dx = Math.abs(placed[i]!.prior.tx - placed[j]!.prior.tx), dy = Math.abs(placed[i]!.prior.ty - placed[j]!.prior.ty);
      if ((100 - dx) * (75 - dy) > 0.2 * 7500 && dx < 100 && dy < 75) all.push([i, j]);
    }
    expect(pairs).toEqual(all);
    expect(Math.max(...degrees(placed.length, pairs))).toBeLessThanOrEqual(MAX_PAIRS_PER_PHOTO);
  });

  it('keeps each photo\'s most overlapping neighbours when all photos see one spot, so matching stays linear in the photos', () => {
    // 300 photos over a 100 x 110 m grid of one spot: every pair overlaps (44,850 pairs, hours of matching).
    const placed = Array.from({ length: 300 }, (_, k) => at((k % 15) * 7, Math.floor(k / 15) * 5.5));
    const pairs = candidatePairs(placed);
    const d = degrees(placed.length, pairs);
    expect(pairs.length).toBeLessThanOrEqual(300 * MAX_PAIRS_PER_PHOTO);
    expect(Math.min(...d)).toBeGreaterThanOrEqual(MAX_PAIRS_PER_PHOTO);
    // The nearest neighbours (the largest overlaps) are among them: photo 0's right and upper ones.
    expect(pairs).toContainEqual([0, 1]);
    expect(pairs).toContainEqual([0, 15]);
    expect(pairs.every(([i, j]) => i < j)).toBe(true);
  });

  // Boxes apart are not clipped, and each photo holds only its best so far: the pairs must be those
  // of clipping every pair and keeping each photo's MAX_PAIRS_PER_PHOTO largest shares (ties in order).
  it('gives the pairs of clipping every pair, on turned, scattered and piled-up footprints alike', () => {
    let seed = 9;
    const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    const turnedAt = (e: number, n: number, turn: number): Placed => ({ ...at(e, n), prior: { a: Math.cos(turn), b: Math.sin(turn), tx: e, ty: n } });
    const layouts = [
      Array.from({ length: 200 }, () => turnedAt(rand() * 600, rand() * 400, rand() * 6.3)),
      Array.from({ length: 150 }, (_, k) => turnedAt((k % 3) * 2, 0, 0)), // equal shares: ties
      Array.from({ length: 120 }, () => turnedAt(rand() * 20, rand() * 20, rand() * 0.2)),
    ];
    for (const placed of layouts) expect(candidatePairs(placed)).toEqual(everyPairClipped(placed));
  });
});

function everyPairClipped(placed: Placed[]): [number, number][] {
  const rings = placed.map((p) => footprint(p.prior, p.width, p.height));
  const area = rings.map((r) => Math.abs(planarRingArea(r)));
  const all: { i: number; j: number; share: number }[] = [];
  for (let i = 0; i < placed.length; i++) for (let j = i + 1; j < placed.length; j++) {
    const share = convexOverlap(rings[i]!, rings[j]!) / Math.min(area[i]!, area[j]!);
    if (share > 0.2) all.push({ i, j, share });
  }
  const kept = new Set<number>();
  for (let p = 0; p < placed.length; p++) {
    const mine = all.map((pair, k) => ({ ...pair, k })).filter((x) => x.i === p || x.j === p);
    mine.sort((a, b) => b.share - a.share || a.k - b.k).slice(0, MAX_PAIRS_PER_PHOTO).forEach((x) => kept.add(x.k));
  }
  return all.filter((_, k) => kept.has(k)).map(({ i, j }) => [i, j]);
}

const BRIGHTON = ['drone', 'brighton_beach', 'images'] as const;
const skipApart = missingShared(...BRIGHTON);
if (skipApart) console.warn(`skipping the photos-left-apart test: ${skipApart}`);

describe('photos left apart', () => {
  it('may be one, or a tenth of a large survey', () => {
    expect([2, 18, 19, 20, 300].map(mayLeaveApart)).toEqual([1, 1, 1, 2, 30]);
  });

  it.skipIf(skipApart)('are left out of the block when few, the others tied as without them (and another camera\'s photos)', async () => {
    // brighton_beach and a shot of something else with DJI_0026's tags: a snapshot in the same flight.
    const dir = mkdtempSync(join(tmpdir(), 'drone-apart-'));
    for (const f of readdirSync(sharedPath(...BRIGHTON))) copyFileSync(sharedPath(...BRIGHTON, f), join(dir, f));
    await writeStrayShot(sharedPath(...BRIGHTON, 'DJI_0026.JPG'), join(dir, 'DJI_0026b.JPG'));
    // And a thermal camera's shot, which would otherwise be drawn in grey.
    await writeThermalShot(sharedPath(...BRIGHTON, 'DJI_0018.JPG'), join(dir, 'DJI_0018_T.JPG'));
    const photos = await Promise.all(readdirSync(dir).sort().map((f) => readDroneExif(join(dir, f))));
    const tied = await tieSurvey(photos);
    expect(tied.leftOut.map((p) => p.file)).toEqual(['DJI_0018_T.JPG', 'DJI_0026b.JPG']);
    expect(tied.captures.map((c) => c.main.file)).toEqual(photos.map((p) => p.file).filter((f) => !['DJI_0026b.JPG', 'DJI_0018_T.JPG'].includes(f)));
    expect(tied.placed).toHaveLength(18);
    expect(tied.pairs.every(({ i, j }) => i < 18 && j < 18)).toBe(true);
    // Two such photos among 13 are more than the survey may leave apart: it does not hold together.
    await writeStrayShot(sharedPath(...BRIGHTON, 'DJI_0030.JPG'), join(dir, 'DJI_0030b.JPG'));
    const twoApart = [...photos.filter((p) => !/DJI_00(1[89]|2[0-4])/.test(p.file)), await readDroneExif(join(dir, 'DJI_0030b.JPG'))];
    await expect(tieSurvey(twoApart)).rejects.toMatchObject({ key: 'drone_stitch_failed', params: { reason: 'disconnected' } });
  }, 300_000);

  it.skipIf(skipApart)('count a photo damaged past its head (a download cut short), left out as they are', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'drone-cut-'));
    const files = readdirSync(sharedPath(...BRIGHTON)).sort();
    for (const f of files) copyFileSync(sharedPath(...BRIGHTON, f), join(dir, f));
    const cut = (file: string) => {
      const bytes = readFileSync(sharedPath(...BRIGHTON, file));
      writeFileSync(join(dir, file.replace('.JPG', 'c.JPG')), bytes.subarray(0, bytes.length * 0.6));
    };
    cut('DJI_0026.JPG');
    const photos = await Promise.all(readdirSync(dir).sort().map((f) => readDroneExif(join(dir, f))));
    const tied = await tieSurvey(photos);
    expect(tied.leftOut.map((p) => p.file)).toEqual(['DJI_0026c.JPG']);
    expect(tied.captures.map((c) => c.main.file)).toEqual(files);
    // Two among 13 are more than it may leave out: the first is named, as before.
    cut('DJI_0030.JPG');
    const fewer = [...photos.filter((p) => !/DJI_00(1[89]|2[0-4])/.test(p.file)), await readDroneExif(join(dir, 'DJI_0030c.JPG'))];
    await expect(tieSurvey(fewer)).rejects.toMatchObject({ key: 'drone_corrupt_image', params: { file: 'DJI_0026c.JPG' } });
  }, 300_000);
});
