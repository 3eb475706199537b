// `npm run depcheck` holds the layers (.dependency-cruiser.cjs). It passing on the real tree says
// little unless the same rules fail on a tree that breaks them: this one, written in a temporary folder.
import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const repo = resolve(import.meta.dirname, '../..');
const depcruise = join(repo, 'node_modules/.bin/depcruise');
const config = join(repo, '.dependency-cruiser.cjs');

const files: Record<string, string> = {
  'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'esnext', moduleResolution: 'bundler', paths: { '@/*': ['./*'] } } }),
  // A cycle of runtime imports.
  'lib/fields/a.ts': "import { b } from './b';\nexport const a = () => b;\n",
  'lib/fields/b.ts': "import { a } from './a';\nexport const b = () => a;\n",
  // A cycle closed only by a type-only import: allowed.
  'lib/owners/c.ts': "import type { D } from './d';\nexport type C = { d?: D };\nexport const c = 1;\n",
  'lib/owners/d.ts': "import { c } from './c';\nexport type D = { c: typeof c };\n",
  // Computation importing the web layer, through the alias.
  'lib/geo/area.ts': "import { ok } from '@/lib/http/respond';\nexport const area = ok;\n",
  'lib/http/respond.ts': 'export const ok = 1;\n',
  // lib importing a component.
  'lib/ui/colour.ts': "import { Badge } from '../../components/badge';\nexport const colour = Badge;\n",
  'components/badge.tsx': 'export const Badge = 1;\n',
};

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'layers-'));
  for (const [name, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), text);
  }
});

afterAll(() => rm(dir, { recursive: true, force: true }));

async function violations(cwd: string): Promise<{ rule: string; from: string; to: string }[]> {
  const { stdout } = await run(depcruise, ['lib', 'components', '--config', config, '--output-type', 'json'], { cwd, maxBuffer: 64 * 1024 * 1024 }).catch(
    (err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }),
  );
  const report = JSON.parse(stdout) as { summary: { violations: { rule: { name: string }; from: string; to: string }[] } };
  return report.summary.violations.map((v) => ({ rule: v.rule.name, from: v.from, to: v.to }));
}

describe('the layering rules', () => {
  it('fail on a runtime import cycle, lib importing components, and geo importing lib/http; not on a type-only cycle', async () => {
    const found = await violations(dir);
    expect(found).toContainEqual({ rule: 'no-runtime-cycle', from: 'lib/fields/a.ts', to: 'lib/fields/b.ts' });
    expect(found).toContainEqual({ rule: 'computation-not-to-http', from: 'lib/geo/area.ts', to: 'lib/http/respond.ts' });
    expect(found).toContainEqual({ rule: 'lib-not-to-app', from: 'lib/ui/colour.ts', to: 'components/badge.tsx' });
    expect(found.filter((v) => v.from.startsWith('lib/owners/'))).toEqual([]);
  });
});
