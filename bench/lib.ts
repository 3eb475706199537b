// Shared by the benchmarks: results go to bench/results/<name>.json and a table on stdout.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const RESULTS_DIR = join(import.meta.dirname, 'results');

export interface Row {
  metric: string;
  value: number;
  unit: string;
  target?: string;
  ok?: boolean;
}

export function writeResults(name: string, rows: Row[], extra: Record<string, unknown> = {}): void {
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(join(RESULTS_DIR, `${name}.json`), JSON.stringify({ name, at: new Date().toISOString(), rows, ...extra }, null, 2) + '\n');
}

export function printTable(title: string, rows: Row[]): void {
  console.log(`\n${title}`);
  const w = Math.max(...rows.map((r) => r.metric.length), 6);
  for (const r of rows) {
    const mark = r.ok === undefined ? '' : r.ok ? '  ok' : '  MISSED';
    console.log(`  ${r.metric.padEnd(w)}  ${String(r.value).padStart(10)} ${r.unit.padEnd(6)} ${r.target ? `(target ${r.target})` : ''}${mark}`);
  }
}

export async function timeIt<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t = performance.now();
  const value = await fn();
  return { ms: performance.now() - t, value };
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

export const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;
