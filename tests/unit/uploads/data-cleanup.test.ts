// The data folder's clean-up at start and while the server runs (lib/uploads/cleanup.ts), on a real
// folder: what no row refers to goes, what a row or an upload in progress needs stays.
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupDataDir } from '@/lib/uploads/cleanup';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function dataDir(files: string[]): string {
  const root = mkdtempSync(join(tmpdir(), 'cleanup-'));
  dirs.push(root);
  for (const f of files) {
    mkdirSync(join(root, f, '..'), { recursive: true });
    writeFileSync(join(root, f), 'x');
  }
  return root;
}

const KEPT = '11111111-1111-4111-8111-111111111111';
const FAILED = '22222222-2222-4222-8222-222222222222';
const GONE = '33333333-3333-4333-8333-333333333333';

describe('cleanupDataDir', () => {
  it('at a fresh start removes scratch files and the folders of tasks that failed or are gone, keeping those still of use', async () => {
    const root = dataDir([
      'tmp/123-abc.part',
      'companies/1/uploads/some-upload/DJI_0001.JPG',
      `companies/1/tasks/${KEPT}/preview.png`,
      `companies/1/tasks/${FAILED}/mosaic.raw`,
      `companies/2/tasks/${GONE}/mosaic.tif`,
      'companies/1/tasks/not-a-task/readme.txt',
      `companies/1/fields/5/drone/${KEPT}/DJI_0001.JPG`,
    ]);
    const { removed } = await cleanupDataDir({ dataDir: root, staleAfterMs: 0, knownTaskIds: new Set([KEPT, FAILED]), keptTaskFolders: new Set([KEPT]) });
    expect(removed.map((p) => p.slice(root.length + 1)).sort()).toEqual(
      ['companies/1/tasks/' + FAILED, 'companies/1/uploads/some-upload', 'companies/2/tasks/' + GONE, 'tmp/123-abc.part'].sort(),
    );
    expect(existsSync(join(root, `companies/1/tasks/${KEPT}/preview.png`))).toBe(true);
    expect(existsSync(join(root, 'companies/1/tasks/not-a-task/readme.txt'))).toBe(true);
    expect(existsSync(join(root, `companies/1/fields/5/drone/${KEPT}/DJI_0001.JPG`))).toBe(true);
  });

  it('while others may be writing, removes only what nobody touched for the given time, and no task folder unless asked', async () => {
    const root = dataDir(['tmp/old.part', 'tmp/new.part', `companies/1/tasks/${FAILED}/mosaic.raw`]);
    const hoursAgo = (Date.now() - 7 * 3600_000) / 1000;
    utimesSync(join(root, 'tmp/old.part'), hoursAgo, hoursAgo);
    const { removed } = await cleanupDataDir({ dataDir: root, staleAfterMs: 6 * 3600_000 });
    expect(removed).toEqual([join(root, 'tmp/old.part')]);
    expect(existsSync(join(root, 'tmp/new.part'))).toBe(true);
    expect(existsSync(join(root, `companies/1/tasks/${FAILED}`))).toBe(true);
  });
});
