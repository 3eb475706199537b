// The mixed load of bench/load.ts in a short form (issue 9): 50 users of 5 companies for 5 s against
// the shared server, 70 % reads, 20 % field writes, 10 % exports. No speed is asserted (that is the
// bench's job); what must hold is that nothing answers 5xx, no company sees another's fields, and
// afterwards every company's fields are exactly what its acknowledged writes say.
import { expect, it } from 'vitest';
import { runLoad } from '../../bench/load';
import { baseUrl } from '../helpers/context';

it('50 users of 5 companies for 5 s: no 5xx, no field of another company seen, every write kept as answered', async () => {
  const result = await runLoad({ baseUrl: baseUrl(), durationMs: 5000, users: 50, companies: 5 });
  console.info(`load: ${result.requests} requests in ${result.seconds} s, statuses ${JSON.stringify(result.statuses)}`);
  expect(result.problems).toEqual([]);
  expect(result.serverErrors).toBe(0);
  // Every kind of request really ran, and the final check looked at every field written.
  for (const k of result.kinds) expect(k.count, k.kind).toBeGreaterThan(0);
  expect(result.fieldsChecked).toBeGreaterThanOrEqual(200);
}, 300_000);
