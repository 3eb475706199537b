// Start-up cleanup of the data folder. A process killed mid-request (SIGKILL, power loss, OOM) cannot
// run its own `finally` blocks, so what it was writing stays behind: partial uploads and unpacked
// shapefiles in DATA_DIR/tmp, drone photos unpacked into companies/<id>/uploads/<id> before their
// field was known, a drone folder moved under its field whose task row was never committed, and the
// folder of a task that ended in error or whose row is gone (a runner killed mid-job leaves its
// half-made mosaic there). None of it is referenced by a database row, so it is removed when the
// next process starts. A long-running server also sweeps the scratch folders every hour, for what a
// web process killed and started again left behind.
//
// In the embedded setup this process is the only one using the folder, so everything found is left
// over. With REDIS_URL several web processes share the folder and another may be receiving an upload
// right now: then only entries untouched for `staleAfterMs` (default 6 h; an upload in progress
// writes its file at least every minute, or it times out) are removed.
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

export interface CleanupOptions {
  dataDir: string;
  /** Only entries whose last change is older than this are removed (0: everything). */
  staleAfterMs: number;
  /** Task ids that exist; a drone folder under a field with no such task is removed. Omit to keep them all. */
  knownTaskIds?: Set<string>;
  /**
   * Task folders (companies/<id>/tasks/<task id>) still of use: those of tasks pending, running or
   * completed, and those a scan's files are in. Every other is removed. Omit to keep them all.
   */
  keptTaskFolders?: Set<string>;
  now?: number;
}

export interface CleanupReport {
  removed: string[];
}

const TASK_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function entries(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch {
    return [];
  }
}

async function isStale(path: string, opts: CleanupOptions): Promise<boolean> {
  if (opts.staleAfterMs <= 0) return true;
  try {
    const s = await stat(path);
    return (opts.now ?? Date.now()) - s.mtimeMs > opts.staleAfterMs;
  } catch {
    return false;
  }
}

export async function cleanupDataDir(opts: CleanupOptions): Promise<CleanupReport> {
  const removed: string[] = [];
  const remove = async (path: string) => {
    if (!(await isStale(path, opts))) return;
    await rm(path, { recursive: true, force: true });
    removed.push(path);
  };

  // 1. Scratch space of the upload routes: partial multipart files and unpacked archives.
  const tmp = join(opts.dataDir, 'tmp');
  for (const name of await entries(tmp)) await remove(join(tmp, name));

  const companies = join(opts.dataDir, 'companies');
  for (const company of await entries(companies)) {
    // 2. Drone photos unpacked before the field was chosen: moved away when the upload is accepted.
    const uploads = join(companies, company, 'uploads');
    for (const name of await entries(uploads)) await remove(join(uploads, name));

    // 3. The folder of a task that failed, or whose row is gone.
    if (opts.keptTaskFolders) {
      const tasks = join(companies, company, 'tasks');
      for (const name of await entries(tasks)) {
        if (TASK_ID.test(name) && !opts.keptTaskFolders.has(name)) await remove(join(tasks, name));
      }
    }

    // 4. A drone folder already moved under its field, whose task row was never written.
    if (!opts.knownTaskIds) continue;
    const fields = join(companies, company, 'fields');
    for (const field of await entries(fields)) {
      const drone = join(fields, field, 'drone');
      for (const name of await entries(drone)) {
        if (TASK_ID.test(name) && !opts.knownTaskIds.has(name)) await remove(join(drone, name));
      }
    }
  }
  return { removed };
}
