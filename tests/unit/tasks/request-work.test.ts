// A request's heavy work runs in worker threads, one a core at a time in a process; the rest wait
// their turn and still get their own answer.
import { describe, expect, it } from 'vitest';
import type { Position } from 'geojson';
import type { FieldGeometry } from '@/lib/geo/geometry';
import { AppError } from '@/lib/errors';
import { requestWorkLoad, runRequestWork } from '@/lib/tasks/run-in-thread';

/** A square of `n` vertices a side's worth around (lon, lat), about 1 km across. */
function square(lon: number, lat: number, perSide: number): FieldGeometry {
  const ring: Position[] = [];
  const corners: Position[] = [
    [lon, lat],
    [lon + 0.01, lat],
    [lon + 0.01, lat + 0.01],
    [lon, lat + 0.01],
  ];
  corners.forEach((a, i) => {
    const b = corners[(i + 1) % 4]!;
    for (let k = 0; k < perSide; k++) ring.push([a[0]! + ((b[0]! - a[0]!) * k) / perSide, a[1]! + ((b[1]! - a[1]!) * k) / perSide]);
  });
  ring.push(ring[0]!);
  return { type: 'Polygon', coordinates: [ring] };
}

describe('request work in threads', () => {
  it('runs at most one thread a core at once, queues the rest in order, and answers each', async () => {
    const { slots } = requestWorkLoad();
    const jobs = slots + 3;
    let mostRunning = 0;
    let mostWaiting = 0;
    const sample = setInterval(() => {
      const load = requestWorkLoad();
      mostRunning = Math.max(mostRunning, load.running);
      mostWaiting = Math.max(mostWaiting, load.waiting);
    }, 5);
    try {
      // Two squares side by side, each job at its own longitude: each answer is its own union.
      const answers = await Promise.all(
        Array.from({ length: jobs }, (_, i) =>
          runRequestWork('boundaries', { op: 'union', fields: [square(20 + i, 48, 2_000), square(20.01 + i, 48, 2_000)] }) as Promise<FieldGeometry[]>,
        ),
      );
      answers.forEach(([union], i) => {
        expect(union!.type).toBe('Polygon');
        const lons = (union!.coordinates as Position[][])[0]!.map((p) => p[0]!);
        expect(Math.min(...lons)).toBeCloseTo(20 + i, 9);
        expect(Math.max(...lons)).toBeCloseTo(20.02 + i, 9);
      });
    } finally {
      clearInterval(sample);
    }
    expect(mostRunning).toBe(slots);
    expect(mostWaiting).toBeGreaterThanOrEqual(1);
    expect(requestWorkLoad()).toMatchObject({ running: 0, waiting: 0 });
  }, 120_000);

  it('ends a thread past its deadline with 503 and frees its slot for the next', async () => {
    const work = { op: 'union', fields: [square(20, 48, 2_000), square(20.01, 48, 2_000)] };
    // A thread takes longer than this to start at all.
    const late = await runRequestWork('boundaries', work, 1).catch((err: unknown) => err);
    expect(late).toBeInstanceOf(AppError);
    expect(late).toMatchObject({ kind: 'unavailable', key: 'work_too_long', params: { seconds: 0 } });
    expect(requestWorkLoad()).toMatchObject({ running: 0, waiting: 0 });
    const [union] = (await runRequestWork('boundaries', work)) as FieldGeometry[];
    expect(union!.type).toBe('Polygon');
  }, 60_000);
});
