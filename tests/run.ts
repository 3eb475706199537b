// Runs every suite and prints one closing line `N passed, N failed, N skipped` (what CI reads):
// unit tests, the API suite on SQLite, the same suite on PostgreSQL when 127.0.0.1:5432 answers,
// and the browser suite. Exits non-zero when anything failed.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { postgresAvailable } from '../lib/db/scratch';

const ROOT = join(import.meta.dirname, '..');
const OUT = join(ROOT, 'test-results');
mkdirSync(OUT, { recursive: true });

interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}
const totals: Counts = { passed: 0, failed: 0, skipped: 0 };
const lines: string[] = [];
let exitCode = 0;

function run(label: string, cmd: string, args: string[], env: Record<string, string>, report: string, read: (json: any) => Counts) {
  rmSync(report, { force: true });
  console.log(`\n=== ${label}`);
  const r = spawnSync(cmd, args, { cwd: ROOT, stdio: 'inherit', env: { ...process.env, ...env } });
  let counts: Counts = { passed: 0, failed: 0, skipped: 0 };
  if (existsSync(report)) counts = read(JSON.parse(readFileSync(report, 'utf8')));
  if (r.status !== 0) {
    exitCode = 1;
    if (counts.failed === 0) counts.failed = 1; // the runner itself failed
  }
  totals.passed += counts.passed;
  totals.failed += counts.failed;
  totals.skipped += counts.skipped;
  lines.push(`${label}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
  return counts;
}

const vitestCounts = (j: any): Counts => ({
  passed: j.numPassedTests ?? 0,
  failed: j.numFailedTests ?? 0,
  skipped: (j.numPendingTests ?? 0) + (j.numTodoTests ?? 0),
});
const vitest = (label: string, project: string, env: Record<string, string> = {}) => {
  const report = join(OUT, `${label.replace(/\W+/g, '-')}.json`);
  return run(label, process.execPath, [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--project', project, '--reporter=default', '--reporter=json', `--outputFile.json=${report}`], env, report, vitestCounts);
};

const only = process.argv.slice(2);
const want = (s: string) => only.length === 0 || only.includes(s);

if (want('unit')) vitest('unit tests', 'unit');
let sqliteApi = 0;
let pgApi = 0;
if (want('api')) sqliteApi = vitest('API tests on SQLite', 'api', { TEST_DB: 'sqlite' }).passed;
if (want('api')) {
  if (await postgresAvailable()) pgApi = vitest('API tests on PostgreSQL', 'api', { TEST_DB: 'postgresql' }).passed;
  else lines.push('API tests on PostgreSQL: skipped, no PostgreSQL server answered at 127.0.0.1:5432');
}
if (want('e2e')) {
  const report = join(OUT, 'e2e.json');
  run('browser tests', process.execPath, [join(ROOT, 'node_modules/@playwright/test/cli.js'), 'test', '--reporter=list,json'], { PLAYWRIGHT_JSON_OUTPUT_NAME: report }, report, (j) => ({
    passed: j.stats?.expected ?? 0,
    failed: (j.stats?.unexpected ?? 0) + (j.stats?.flaky ?? 0),
    skipped: j.stats?.skipped ?? 0,
  }));
}

console.log('\n=== summary');
for (const l of lines) console.log(l);
if (want('api')) console.log(`API tests ran: ${sqliteApi} on SQLite, ${pgApi} on PostgreSQL`);
console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(exitCode || (totals.failed ? 1 : 0));
