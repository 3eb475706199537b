// Features and pair matching on the feature threads (lib/drone/threads.ts) give exactly what
// the same functions give in the test's own thread: the same keypoints, descriptors and colours, the
// same matches, the same headings settled and the same priors from the track.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { readDroneExif } from '@/lib/drone/exif';
import { featuresInThread, matchInThread, motionInThread, renewDroneThreads, startDroneThreads } from '@/lib/drone/threads';
import { trackPriors } from '@/lib/drone/track';
import type { Features, PairMatch } from '@/lib/drone/features';
import { median, photoFeatures } from '@/lib/drone/features';
import { utmFrame } from '@/lib/drone/frame';
import { candidatePairs, matchedPairs } from '@/lib/drone/pairs';
import { placementPriors } from '@/lib/drone/placed';
import { groupCaptures } from '@/lib/drone/survey';
import { missingShared, sharedPath } from '../../helpers/shared-data';

const skip = missingShared('drone', 'brighton_beach', 'images');
if (skip) console.warn(skip);
const dir = sharedPath('drone', 'brighton_beach', 'images');

/** Plain arrays, whichever memory the typed arrays live in (the threads' are shared). */
const plainFeatures = (f: Features) => ({ ...f, points: Array.from(f.points), colours: Array.from(f.colours), descriptors: Array.from(f.descriptors) });
const plainMatch = (m: PairMatch) => ({ ...m, pts: Array.from(m.pts) });

describe.skipIf(skip)('feature threads', () => {
  it('find the same features and matches as one thread, and settle the same headings', async () => {
    // Five consecutive photos of the first line and the turn: pairs along the line and across it.
    const files = readdirSync(dir).sort().slice(0, 5);
    const photos = await Promise.all(files.map((f) => readDroneExif(join(dir, f))));
    const captures = groupCaptures(photos);
    const mains = captures.map((c) => c.main);
    const frame = utmFrame(median(mains.map((p) => p.gps!.lon)), median(mains.map((p) => p.gps!.lat)));

    const here: Features[] = [];
    for (const m of mains) here.push(await photoFeatures(m, 1));
    const threaded = await Promise.all(mains.map((m) => featuresInThread(m, 1)));
    expect(here[0]!.count).toBeGreaterThan(1000);
    expect(threaded.map(plainFeatures)).toEqual(here.map(plainFeatures));

    const pairsWith = async (features: Features[], threads: boolean) => {
      const { placed } = await placementPriors(captures, features, frame);
      const { pairs } = await matchedPairs(placed, features, mains, candidatePairs(placed), () => {}, ...(threads ? [matchInThread] : []));
      return { pairs: pairs.map(plainMatch), priors: placed.map((p) => p.prior) };
    };
    const one = await pairsWith(here, false);
    const two = await pairsWith(threaded, true);
    expect(one.pairs.length).toBeGreaterThanOrEqual(4);
    expect(two).toEqual(one);

    // Headings and heights from the track's unguided matches, all pairs at once on the pool.
    const positions = mains.map((p) => frame.toUtm(p.gps!.lon, p.gps!.lat));
    const track = await trackPriors(mains, here, positions);
    expect(track.heightM).not.toBeNull();
    expect(await trackPriors(mains, here, positions, motionInThread)).toEqual(track);
  });

  it('fail a photo damaged past its head naming it, as in one thread', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'feature-threads-'));
    const whole = join(tmp, 'whole.jpg');
    await sharp({ create: { width: 800, height: 600, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 40 } } }).jpeg().toFile(whole);
    const bytes = readFileSync(whole);
    // Four at once: the calling thread holds two, so a worker thread gets the others.
    const names = ['DJI_0096.JPG', 'DJI_0097.JPG', 'DJI_0098.JPG', 'DJI_0099.JPG'];
    for (const name of names) writeFileSync(join(tmp, name), bytes.subarray(0, bytes.length / 2));
    const cut = await Promise.all(names.map((name) => readDroneExif(join(tmp, name))));
    const failures = await Promise.all(cut.map((photo) => featuresInThread(photo, 1).then(() => null, (err: unknown) => err)));
    expect(failures).toMatchObject(names.map((file) => ({ name: 'AppError', key: 'drone_corrupt_image', params: { file } })));
    // The threads that reported them still work.
    const sound = await readDroneExif(whole);
    expect(plainFeatures(await featuresInThread(sound, 1))).toEqual(plainFeatures(await photoFeatures(sound, 1)));
  });
});

describe('renewing the worker threads', () => {
  it('ends only idle worker threads that have run tasks, and starts a fresh one for the next tasks', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'feature-threads-'));
    const paths = await Promise.all([0, 1, 2, 3].map(async (k) => {
      const path = join(tmp, `DJI_010${k}.JPG`);
      await sharp({ create: { width: 800, height: 600, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 40 } } }).jpeg().toFile(path);
      return path;
    }));
    try {
      const photos = await Promise.all(paths.map((p) => readDroneExif(p)));
      const alone = await Promise.all(photos.map(async (p) => plainFeatures(await photoFeatures(p, 1))));
      // Renewed while four photos are in flight (two of them on the worker): none ends, they all arrive.
      const inFlight = Promise.all(photos.map((p) => featuresInThread(p, 1)));
      expect(await renewDroneThreads()).toBe(0);
      expect((await inFlight).map(plainFeatures)).toEqual(alone);
      // Renewed idle: the worker ends and a fresh one starts, which a second renewal leaves; the next tasks give the same.
      expect(await renewDroneThreads()).toBe(1);
      expect(await renewDroneThreads()).toBe(0);
      expect((await Promise.all(photos.map((p) => featuresInThread(p, 1)))).map(plainFeatures)).toEqual(alone);
      // Started ahead of any task, the fresh thread loads opencv.js: it has then run a task, which renewing ends.
      expect(await renewDroneThreads()).toBe(1);
      expect(await renewDroneThreads()).toBe(0);
      await startDroneThreads();
      expect(await renewDroneThreads()).toBe(1);
      expect((await Promise.all(photos.map((p) => featuresInThread(p, 1)))).map(plainFeatures)).toEqual(alone);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
