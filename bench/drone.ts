// brighton_beach end to end (ZIP unpacking, EXIF, checks, orthomosaic GeoTIFF, index, row pattern, classification)
// in a child process whose wall time and peak RSS (VmHWM) are reported, and OpenCV's own panorama
// stitcher (python3-opencv, Stitcher SCANS: the original product's approach, which places nothing on
// the map) on the same photos as the reference. Writes bench/results/drone.json.
// The seams are re-matched in the output in an untimed run of their own.
// Then the same on generated surveys of 50 and 200 photos of 20 MP (bench/drone-survey.ts). A line a
// survey gives photos, output MP and GSD beside the times and peak RSS; the profile gives each step's
// wall and CPU time (CPU of every thread: above the wall time when both cores work).
// Ours and OpenCV's run alternately DRONE_BENCH_PAIRS times (3 unless set): a run of either can
// vary by a fifth within minutes, so the medians are compared and every pair's ratio is printed.
// Usage: npx tsx bench/drone.ts  (DRONE_BENCH_SIZES=50 for the smaller one only, 0 for none)
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, createWriteStream, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import yazl from 'yazl';
import { classifyCrop } from '@/lib/drone/classify';
import sharp from 'sharp';
import type { DronePhoto } from '@/lib/drone/exif';
import { readDroneExif } from '@/lib/drone/exif';
import { featureScale } from '@/lib/drone/features';
import { finishWithAnalysis } from '@/lib/drone/finish-with-analysis';
import { buildOrthomosaic, compositeOrthomosaic } from '@/lib/drone/ortho';
import { checkSurvey } from '@/lib/drone/survey';
import { startDroneThreads } from '@/lib/drone/threads';
import { DRONE_ZIP_LIMITS } from '@/lib/scans/drone-survey';
import { extractZipSafely } from '@/lib/uploads/zip-archive';
import { sharedPath } from '@/tests/helpers/shared-data';
import { generatedSurvey } from './drone-survey';
import { printTable, round, type Row, writeResults } from './lib';

const IMAGES = sharedPath('drone', 'brighton_beach', 'images');

function zipPhotos(files: string[], out: string): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const f of files) zip.addFile(f, `images/${basename(f)}`, { compress: false });
  zip.end();
  return pipeline(zip.outputStream, createWriteStream(out));
}

const cpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/**
 * The features' decoding alone, after the timed run (not in its time): every photo at the features'
 * size, two at a time as the feature threads take them. How much of the features' step is decoding.
 */
async function decodingAlone(photos: DronePhoto[]): Promise<{ s: number; cpuS: number }> {
  const t = performance.now(), c = cpuSeconds();
  const queue = [...photos];
  await Promise.all([0, 1].map(async () => {
    for (let p = queue.shift(); p; p = queue.shift()) {
      await sharp(p.path).resize({ width: Math.round(p.widthPx * featureScale(p.widthPx, p.heightPx)) }).removeAlpha().raw().toBuffer();
    }
  }));
  return { s: round((performance.now() - t) / 1000, 1), cpuS: round(cpuSeconds() - c, 1) };
}

const peakRssMb = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) / 1024;

async function worker(imagesDir: string, resolutionM?: number): Promise<void> {
  const workDir = mkdtempSync(join(tmpdir(), 'drone-bench-'));
  // The ZIP an operator uploads, made first and untimed.
  const zipPath = join(workDir, 'flight.zip');
  await zipPhotos(readdirSync(imagesDir).sort().map((f) => join(imagesDir, f)), zipPath);
  const t0 = performance.now();
  const phases: Record<string, number> = {};
  const mark = (name: string) => (phases[name] = round((performance.now() - t0) / 1000, 2));
  // What POST /api/drone/upload does before it answers (after the bytes arrived): check and unpack
  // the ZIP, read every photo's metadata, check the survey.
  const u0 = performance.now();
  // The drone task starts its threads before it reads the photos' metadata again; here, before the checks.
  void startDroneThreads();
  const unpacked = (await extractZipSafely(zipPath, join(workDir, 'photos'), DRONE_ZIP_LIMITS)).sort();
  const photos = await Promise.all(unpacked.map((f) => readDroneExif(f)));
  checkSurvey(photos);
  const uploadChecksS = (performance.now() - u0) / 1000;
  mark('exif');
  // The pipeline's own steps, from its progress: features to 35 %, matching to 45 %, adjustment to
  // 48 %, compositing (and the preview) to 89 %, then the COG (in GDAL's process, whose CPU is not
  // counted here) beside the sampled seam check, the index and the row pattern, as the drone task
  // runs them (finishWithAnalysis), to the end.
  // Wall and CPU time (every thread of the process) at each percent: CPU over wall shows how many
  // cores a step keeps busy. Minor page faults too: new memory is dear on some machines (bench/HISTORY.md).
  const reached: { wall: number; cpu: number; faults: number }[] = [];
  const m0 = performance.now(), c0 = cpuSeconds(), f0 = process.resourceUsage().minorPageFault;
  const onProgress = (p: number) => {
    for (let k = 0; k <= p; k++) reached[k] ??= { wall: (performance.now() - m0) / 1000, cpu: cpuSeconds() - c0, faults: process.resourceUsage().minorPageFault - f0 };
  };
  const composited = await compositeOrthomosaic(photos, { workDir, onProgress, ...(resolutionM ? { resolutionM } : {}) });
  const { mosaic, analysis: index, rowPattern } = await finishWithAnalysis(composited, composited.mosaic.footprintWgs84);
  onProgress(100);
  mark('mosaicAndIndex');
  const at = (p: number) => reached[p] ?? reached.at(-1)!;
  const step = (from: number, to: number) => ({ s: round(at(to).wall - (from ? at(from).wall : 0), 1), cpuS: round(at(to).cpu - (from ? at(from).cpu : 0), 1), pageFaults: at(to).faults - (from ? at(from).faults : 0) });
  const profile = {
    features: step(0, 35), matching: step(35, 45), adjustment: step(45, 48),
    compositing: step(48, 89), cogBesideSeamCheckAndIndex: step(89, 100),
  };
  const crop = classifyCrop({ histogram: index.histogram, stats: index.stats, indexName: index.indexName, captureMonth: 6, rowPattern });
  mark('classification');
  const seconds = (performance.now() - t0) / 1000;
  // Untimed: a diagnostic of the features' step, not work the pipeline does, and the mosaic's pixels of image.
  const decoding = await decodingAlone(photos);
  const imageMegapixels = countAlpha(mosaic.rawPath, mosaic.bands.length + 1) / 1e6;
  rmSync(workDir, { recursive: true, force: true });
  console.log(JSON.stringify({ seconds, uploadChecksS, phases, profile, decoding, peakRssMb: peakRssMb(), gsdM: mosaic.gsdM, size: [mosaic.width, mosaic.height],
    megapixels: (mosaic.width * mosaic.height) / 1e6, imageMegapixels, misalignmentPx: mosaic.medianMisalignmentPx, seams: mosaic.seams, index: index.indexName, crop: crop.crop_type, photos: photos.length }));
}

/** Pixels whose alpha (the last of `stride` bytes) is set in a pixel-interleaved raw file. */
function countAlpha(path: string, stride: number): number {
  const fd = openSync(path, 'r'), chunk = Buffer.alloc(stride << 22);
  let count = 0;
  try {
    for (let got; (got = readSync(fd, chunk, 0, chunk.length, null)) > 0;) {
      for (let k = stride - 1; k < got; k += stride) if (chunk[k]) count++;
    }
  } finally {
    closeSync(fd);
  }
  return count;
}

/** The seams re-matched in the output (an untimed build of its own: the check costs seconds the pipeline does not spend). */
async function seamWorker(imagesDir: string): Promise<void> {
  const workDir = mkdtempSync(join(tmpdir(), 'drone-seams-'));
  const photos = await Promise.all(readdirSync(imagesDir).sort().map((f) => readDroneExif(join(imagesDir, f))));
  const mosaic = await buildOrthomosaic(photos, { workDir, rematchSeams: true });
  rmSync(workDir, { recursive: true, force: true });
  console.log(JSON.stringify(mosaic.rematchedSeams));
}

// Its pixels of image counted after the clock stops: it composes at a scale of its own choosing.
const OPENCV_STITCH = `
import cv2, sys, glob, time, resource
t = time.time()
imgs = [cv2.imread(p) for p in sorted(glob.glob(sys.argv[1] + '/*.JPG'))]
status, pano = cv2.Stitcher_create(cv2.Stitcher_SCANS).stitch(imgs)
seconds = time.time() - t
valid = cv2.countNonZero(cv2.cvtColor(pano, cv2.COLOR_BGR2GRAY)) if pano is not None else 0
print(status, seconds, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, pano.shape[1] * pano.shape[0] if pano is not None else 0, valid)
`;

function openCvStitcher(): { seconds: number; peakRssMb: number; status: number; megapixels: number; imageMegapixels: number } | { skipped: string } {
  try {
    execFileSync('/usr/bin/python3', ['-c', 'import cv2'], { stdio: 'pipe' });
  } catch {
    return { skipped: 'python3-opencv not installed (apt-get install -y python3-opencv)' };
  }
  const out = execFileSync('/usr/bin/python3', ['-c', OPENCV_STITCH, IMAGES], { maxBuffer: 1 << 20 }).toString().trim().split(/\s+/);
  return { status: Number(out[0]), seconds: Number(out[1]), peakRssMb: Number(out[2]), megapixels: Number(out[3]) / 1e6, imageMegapixels: Number(out[4]) / 1e6 };
}

type StitcherRun = ReturnType<typeof openCvStitcher>;

/**
 * brighton_beach through ours and OpenCV's Stitcher alternately, `count` times (OpenCV's only while it
 * is installed): the run of each whose time is the median, and every pair's times.
 */
function sideBySide(count: number) {
  const runs: { ours: ReturnType<typeof runPipeline>; ref: StitcherRun }[] = [];
  for (let k = 0; k < Math.max(1, count); k++) runs.push({ ours: runPipeline(IMAGES), ref: openCvStitcher() });
  const medianOf = <T>(items: T[], seconds: (t: T) => number) => [...items].sort((a, b) => seconds(a) - seconds(b))[(items.length - 1) >> 1]!;
  const refs = runs.map((r) => r.ref);
  const timed = refs.filter((r): r is Extract<StitcherRun, { seconds: number }> => 'seconds' in r);
  return {
    ours: medianOf(runs.map((r) => r.ours), (r) => r.seconds as number),
    ref: timed.length ? medianOf(timed, (r) => r.seconds) : refs[0]!,
    pairs: runs.map((r) => ({ ours: r.ours.seconds, opencv: 'seconds' in r.ref ? r.ref.seconds : undefined })),
  };
}

interface PipelineRun {
  seconds: number;
  photos: number;
  megapixels: number;
  gsdM: number;
  peakRssMb: number;
}

/** One line a survey: its size, output and pixel beside our time, OpenCV's on the same photos and the peak RSS. */
function printSurveys(surveys: { name: string; run: PipelineRun; opencvS?: number }[]): void {
  const head = ['survey', 'photos', 'output MP', 'GSD cm', 'ours s', 'OpenCV s', 'ours/OpenCV', 'peak RSS MB'];
  const lines = surveys.map(({ name, run, opencvS }) => [name, run.photos, round(run.megapixels, 1), round(run.gsdM * 100, 2), round(run.seconds, 1),
    opencvS ? round(opencvS, 1) : '-', opencvS ? `${round(run.seconds / opencvS, 2)} x` : '-', round(run.peakRssMb, 0)].map(String));
  const w = head.map((h, k) => Math.max(h.length, ...lines.map((l) => l[k]!.length)));
  console.log(`\nPer survey\n${[head, ...lines].map((l) => '  ' + l.map((c, k) => (k ? c.padStart(w[k]!) : c.padEnd(w[k]!))).join('  ')).join('\n')}`);
}

/** The pipeline on one folder of photos, in a child process of its own (for its peak RSS). */
function runPipeline(imagesDir: string, mode: 'worker' | 'seams' = 'worker', resolutionM?: number) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', import.meta.filename, mode, imagesDir, ...(resolutionM ? [String(resolutionM)] : [])], { cwd: join(import.meta.dirname, '..'), encoding: 'utf8', maxBuffer: 1 << 24 });
  if (r.status !== 0) throw new Error(`drone worker failed on ${imagesDir}: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!);
}

if (process.argv[2] === 'worker') {
  await worker(process.argv[3]!, process.argv[4] ? Number(process.argv[4]) : undefined);
} else if (process.argv[2] === 'seams') {
  await seamWorker(process.argv[3]!);
} else {
  const { ours, ref, pairs } = sideBySide(Number(process.env.DRONE_BENCH_PAIRS ?? 3));
  // The full check re-draws every seam at the output's own resolution: minutes at 1.7 cm; DRONE_BENCH_FULL_SEAMS=0 leaves it out.
  const seams = process.env.DRONE_BENCH_FULL_SEAMS === '0' ? null : runPipeline(IMAGES, 'seams');
  /** Output size and pixel beside each time: a time is only comparable at the same resolution. */
  const output = (r: { megapixels: number; gsdM: number }) => `${round(r.megapixels, 1)} MP at ${round(r.gsdM * 100, 2)} cm`;
  const rows: Row[] = [
    { metric: `brighton_beach end to end (18 photos; ${output(ours)}), median of ${pairs.length} (${pairs.map((p) => round(p.ours, 1)).join(', ')} s)`, value: round(ours.seconds, 1), unit: 's', target: '< 20 s', ok: ours.seconds < 20 },
    { metric: 'brighton_beach upload checks (unzip, EXIF, survey checks)', value: round(ours.uploadChecksS, 2), unit: 's', target: 'answer at once' },
    { metric: 'brighton_beach peak RSS', value: round(ours.peakRssMb, 0), unit: 'MB', target: '< 1536 MB', ok: ours.peakRssMb < 1536 },
    ...(seams ? [{ metric: `brighton_beach seam misalignment, every seam re-matched in the output (${seams.matches} features on ${seams.pairs} seams)`, value: round(seams.medianPx, 2), unit: 'px', target: '<= 3 px', ok: seams.medianPx <= 3 }] : []),
    { metric: `brighton_beach seams, the sampled check stored with the scan (${ours.seams.matches} features on ${ours.seams.pairs} seams), median`, value: round(ours.misalignmentPx, 2), unit: 'px' },
    { metric: '  sampled check: worst seam', value: round(ours.seams.worstSeamPx, 2), unit: 'px' },
  ];
  let likeSized: PipelineRun | undefined;
  if ('skipped' in ref) console.warn(`OpenCV stitcher not timed: ${ref.skipped} (make bench installs it)`);
  if ('seconds' in ref) {
    rows.push({ metric: `OpenCV Stitcher (SCANS), same photos, median of ${pairs.length} (${pairs.map((p) => round(p.opencv ?? NaN, 1)).join(', ')} s)`, value: round(ref.seconds, 1), unit: 's' });
    rows.push({ metric: 'OpenCV Stitcher peak RSS', value: round(ref.peakRssMb, 0), unit: 'MB' });
    rows.push({ metric: `  its output: ${round(ref.megapixels, 1)} MP, of which image (ours: ${round(ours.imageMegapixels, 1)} of ${round(ours.megapixels, 1)} MP)`, value: round(ref.imageMegapixels, 1), unit: 'MP' });
    rows.push({ metric: `ours / OpenCV stitcher time, the medians (each pair: ${pairs.map((p) => round(p.ours / p.opencv!, 2)).join(', ')} x)`, value: round(ours.seconds / ref.seconds, 2), unit: 'x', target: '<= 1.0 x', ok: ours.seconds <= ref.seconds });
    // The Stitcher composes at a scale of its own: ours once more at the pixel that gives its pixels of
    // image, so that the two times also compare at the same output (the target stays at native resolution).
    if (ref.imageMegapixels > 0) {
      const likeForLike = runPipeline(IMAGES, 'worker', ours.gsdM * Math.sqrt(ours.imageMegapixels / ref.imageMegapixels));
      likeSized = likeForLike;
      rows.push({ metric: `brighton_beach at the Stitcher's size (${output(likeForLike)}, ${round(likeForLike.imageMegapixels, 1)} MP of image), one run`, value: round(likeForLike.seconds, 1), unit: 's' });
      rows.push({ metric: '  ours at the Stitcher\'s size / its median', value: round(likeForLike.seconds / ref.seconds, 2), unit: 'x' });
    }
  }
  // Generated surveys of 20 MP photos (bench/drone-survey.ts); DRONE_BENCH_SIZES=50 skips the 200.
  const generated: Record<string, unknown> = {};
  for (const n of (process.env.DRONE_BENCH_SIZES ?? '50,200').split(',').map(Number).filter(Boolean)) {
    const g0 = performance.now();
    const dir = await generatedSurvey(sharedPath('raster', 'naip', 'm_4709963_se_14_1_20190904.tif'), n);
    const makeS = (performance.now() - g0) / 1000;
    const run = runPipeline(dir);
    generated[n] = { ...run, generatedInS: round(makeS, 1) };
    const limitS = n >= 200 ? 300 : undefined;
    rows.push({ metric: `generated survey, ${run.photos} photos of 20 MP, end to end (${output(run)})`, value: round(run.seconds, 1), unit: 's', target: limitS ? '< 300 s' : undefined, ok: limitS ? run.seconds < limitS : undefined });
    rows.push({ metric: `generated survey, ${run.photos} photos, peak RSS`, value: round(run.peakRssMb, 0), unit: 'MB', target: '< 2048 MB', ok: run.peakRssMb < 2048 });
    rows.push({ metric: `generated survey, ${run.photos} photos, seam misalignment`, value: round(run.misalignmentPx, 2), unit: 'px', target: '<= 3 px', ok: run.misalignmentPx <= 3 });
  }
  printTable('Drone orthomosaic', rows);
  printSurveys([
    { name: 'brighton_beach', run: ours, opencvS: 'seconds' in ref ? ref.seconds : undefined },
    ...(likeSized ? [{ name: "brighton at OpenCV's size", run: likeSized, opencvS: 'seconds' in ref ? ref.seconds : undefined }] : []),
    ...Object.entries(generated).map(([n, run]) => ({ name: `generated ${n}`, run: run as PipelineRun })),
  ]);
  console.log('phases (s since start):', ours.phases, 'profile of the mosaic (wall s, CPU s of all threads):', ours.profile,
    'decoding alone:', ours.decoding, 'load average:', readFileSync('/proc/loadavg', 'utf8').trim());
  writeResults('drone', rows, { ours, likeSized, seams, generated, opencvStitcher: ref, pairs, loadAverage: readFileSync('/proc/loadavg', 'utf8').trim() });
}
