// `npm run bench`: every benchmark, each writing bench/results/<name>.json, then one table.
// `npm run bench -- fields` runs only the named ones. The heavier ones run as scripts of their own
// (in a child process, so their peak memory is their own).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { benchFields } from './fields';
import { type Row, printTable } from './lib';
import { benchPages } from './pages';
import { benchUpload } from './upload';
import { benchZoningTasks } from './zoning-tasks';

const IN_PROCESS: Record<string, () => Promise<Row[]>> = { fields: benchFields, pages: benchPages, upload: benchUpload, 'zoning-tasks': benchZoningTasks };
const SCRIPTS = ['exports', 'boundaries', 'raster-zones', 'shapefile', 'drone', 'drone-truth', 'load', 'tiles'];

const only = process.argv.slice(2);
const want = (name: string) => only.length === 0 || only.includes(name);
const summary: Row[] = [];
for (const [name, run] of Object.entries(IN_PROCESS)) {
  if (!want(name)) continue;
  console.log(`\n=== ${name}`);
  try {
    summary.push(...(await run()).map((r) => ({ ...r, metric: `${name} | ${r.metric}` })));
  } catch (err) {
    console.error(`${name} failed:`, err);
    process.exitCode = 1;
  }
}
for (const name of SCRIPTS) {
  const file = join(import.meta.dirname, `${name}.ts`);
  if (!want(name) || !existsSync(file)) continue;
  console.log(`\n=== ${name}`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', file], { stdio: 'inherit', cwd: join(import.meta.dirname, '..') });
  if (r.status !== 0) {
    console.error(`${name} failed (exit ${r.status})`);
    process.exitCode = 1;
  }
}
if (summary.length) printTable('Summary (in-process benchmarks; the others printed their own tables above)', summary);
