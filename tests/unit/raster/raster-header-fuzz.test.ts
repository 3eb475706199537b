// Header bytes of valid GeoTIFFs, mutated at random (fast-check): inspection returns, or throws our
// typed 4xx error, for every case; each within a second (the figure) and inside a thread
// whose heap is capped, so that a case that allocated by a forged count or looped would end it.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sparseHugeTiff } from '../../helpers/hostile-input';
import { allNodataIndexTiff, gradientIndexTiff, tiffBytes } from '../../helpers/tiff';

const RUNS = Number(process.env.FUZZ_RUNS ?? 400);
const HEAP_CAP_MB = 256;
const ANSWER_WITHIN_MS = 1000;
const dir = mkdtempSync(join(tmpdir(), 'header-fuzz-'));

interface Outcome {
  outcome: 'returned' | 'typed' | 'other';
  status?: number;
  key?: string;
  text?: string;
}

// Valid files, and how many of their first bytes are header (directory and tag values, not pixels).
const BASES: Array<{ bytes: Buffer; header: number }> = [
  { bytes: gradientIndexTiff().bytes, header: gradientIndexTiff().bytes.length - 60 * 40 * 4 },
  { bytes: allNodataIndexTiff().bytes, header: allNodataIndexTiff().bytes.length - 40 * 30 * 4 },
  (() => {
    const bytes = tiffBytes({ width: 8, height: 6, bands: 3, dateTime: '2024:06:01 10:00:00', gdalMetadata: '<GDALMetadata><Item name="DESCRIPTION" sample="0" role="description">nir</Item></GDALMetadata>', georef: { epsg: 32634, origin: [500000, 5400000], pixel: 10 } });
    return { bytes, header: bytes.length - 8 * 6 * 3 * 4 };
  })(),
  // Tiled, 152,881 sparse tiles: the mutations land in its directory (the first 200 bytes).
  { bytes: sparseHugeTiff(), header: 200 },
];

// Values that make offsets and counts point at themselves, at the end of the file, or far past it.
const FORGED_U32 = [0, 1, 8, 0xff, 0xffff, 0x3fffffff, 0x7fffffff, 0xffffffff];

const mutation = (header: number, length: number) =>
  fc.oneof(
    fc.record({ kind: fc.constant('byte' as const), at: fc.nat({ max: header - 1 }), value: fc.integer({ min: 0, max: 255 }) }),
    fc.record({ kind: fc.constant('u32' as const), at: fc.nat({ max: Math.floor((header - 4) / 2) }).map((n) => n * 2), value: fc.constantFrom(...FORGED_U32, length, length - 4, 8 + 2) }),
  );

const mutated = fc.nat({ max: BASES.length - 1 }).chain((i) =>
  fc.tuple(fc.constant(i), fc.array(mutation(BASES[i]!.header, BASES[i]!.bytes.length), { minLength: 1, maxLength: 6 })),
);

let worker: Worker;
let next = 0;
const pending = new Map<number, (o: Outcome) => void>();
let died: Error | undefined;

beforeAll(async () => {
  // workerData must be set: geotiff's web-worker dependency reads it in any thread.
  worker = new Worker(new URL('../../helpers/inspect-worker.mjs', import.meta.url), { workerData: {}, resourceLimits: { maxOldGenerationSizeMb: HEAP_CAP_MB } });
  worker.on('error', (err) => (died = err));
  worker.on('exit', (code) => (died ??= new Error(`the inspecting thread exited (${code})`)));
  await new Promise<void>((resolve, reject) => {
    worker.once('message', () => resolve());
    worker.once('error', reject);
  });
  worker.on('message', (m: Outcome & { id: number }) => pending.get(m.id)?.(m));
});

afterAll(() => worker?.terminate());

/** The thread's outcome for the file, or a failure when it does not answer within ANSWER_WITHIN_MS or dies. */
function inspectInThread(bytes: Buffer): Promise<Outcome> {
  const id = next++;
  const path = join(dir, `${id % 4}.tif`);
  writeFileSync(path, bytes);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(died ? `thread died: ${died.message}` : `no answer within ${ANSWER_WITHIN_MS} ms`)), ANSWER_WITHIN_MS);
    pending.set(id, (o) => {
      clearTimeout(timer);
      pending.delete(id);
      resolve(o);
    });
    worker.postMessage({ id, path });
  });
}

describe('inspecting GeoTIFFs with mutated headers', () => {
  it('every valid base is inspected as it is', async () => {
    for (const { bytes } of BASES.slice(0, 3)) expect((await inspectInThread(bytes)).outcome).toBe('returned');
    expect(await inspectInThread(BASES[3]!.bytes)).toMatchObject({ outcome: 'typed', key: 'raster_too_large' });
  });

  it('returns or throws our typed 4xx error for every mutation, in time and within the heap cap', async () => {
    await fc.assert(
      fc.asyncProperty(mutated, async ([i, changes]) => {
        const bytes = Buffer.from(BASES[i]!.bytes);
        for (const c of changes) {
          if (c.kind === 'byte') bytes[c.at] = c.value;
          else bytes.writeUInt32LE(c.value >>> 0, c.at);
        }
        const result = await inspectInThread(bytes);
        if (result.outcome === 'other') throw new Error(`not our error: ${result.text}`);
        if (result.outcome === 'typed') expect(result.status, result.key).toBeGreaterThanOrEqual(400);
        if (result.outcome === 'typed') expect(result.status, result.key).toBeLessThan(500);
      }),
      { numRuns: RUNS },
    );
    expect(died).toBeUndefined();
  });
});
