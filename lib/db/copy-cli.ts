// `npm run db:copy -- --from fields.db --to postgresql://host/fieldmap`: see lib/db/copy.ts.
import { parseArgs } from 'node:util';
import { copyDatabase, describeTarget } from './copy';
import type { DbTarget } from './target';

const { values } = parseArgs({ options: { from: { type: 'string' }, to: { type: 'string' } } });
if (!values.from || !values.to) {
  console.error('Usage: npm run db:copy -- --from <SQLite file or postgresql:// URL> --to <SQLite file or postgresql:// URL>');
  process.exit(2);
}
const target = (s: string): DbTarget => (/^postgres(ql)?:\/\//.test(s) ? { kind: 'postgresql', url: s } : { kind: 'sqlite', file: s });
const [from, to] = [target(values.from), target(values.to)];
const started = performance.now();
try {
  const copied = await copyDatabase(from, to, (table, rows, withoutNul) =>
    console.log(`  ${table}: ${rows} rows${withoutNul ? ` (${withoutNul} had NUL characters in their text, which PostgreSQL cannot store: removed)` : ''}`),
  );
  const total = Object.values(copied).reduce((s, n) => s + n, 0);
  console.log(`Copied ${total} rows from ${describeTarget(from)} to ${describeTarget(to)} in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
  console.log('Files (scans, rasters, mosaics) stay in the data folder: give every process that folder as its DATA_DIR, at whatever path it is mounted there.');
} catch (err) {
  console.error(`Copy failed, ${describeTarget(to)} was left as it was: ${(err as Error).message}`);
  process.exit(1);
}
