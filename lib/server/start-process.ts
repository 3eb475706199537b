// What each server process does when it starts (instrumentation.ts calls it in Node.js only). In the
// embedded setup this process (the runner, when the server has several: cluster.ts) also runs
// background tasks, so tasks a previous process left unfinished are resumed now, after the files a
// killed process left half-written in the data folder are removed (lib/uploads/cleanup.ts). Large
// uploads get the time they need (lib/http/request-timeout.ts).
import { basename, dirname } from 'node:path';
import { clearProcessSessionCache } from '../auth/session-cache';
import { config } from '../config';
import { db, dbReady } from '../db/client';
import { setRequestTimeout } from '../http/request-timeout';
import { registerJobs } from '../jobs';
import { log } from '../log';
import { startLocalRunner } from '../tasks/local-runner';
import { cleanupDataDir } from '../uploads/cleanup';
import { onClearSessionsFromPrimary, tellPrimary, webRole } from './ipc';

/** Stale: files nobody touched for this long, when other processes may still be writing beside this one. */
const STALE_AFTER_MS = 6 * 3600_000;

export async function startServerProcess(): Promise<void> {
  setRequestTimeout(config().REQUEST_TIMEOUT_S * 1000);
  // Every process may end a task (a web process one its queue refused): the jobs' finishers and undoing first.
  registerJobs();
  if (webRole()) onClearSessionsFromPrimary(clearProcessSessionCache);
  try {
    if (process.env.REDIS_URL) {
      // Other web processes and workers share the folder and may be writing to it: only what nobody
      // touched for hours.
      await cleanup({ staleAfterMs: STALE_AFTER_MS, ...(await taskFolders()) });
    } else if (webRole() !== 'web') {
      // At a fresh start this process is alone on the folder (the cluster starts its other web
      // processes once this one is ready): everything left over is garbage. A runner started again
      // after a crash shares it with web processes that may be receiving uploads.
      const restarted = process.env.FIELDMAP_RUNNER_RESTARTED === '1';
      await cleanup({ staleAfterMs: restarted ? STALE_AFTER_MS : 0, ...(await taskFolders()) });
      await startLocalRunner();
    }
    // What a web process killed mid-upload left (it cleans nothing when started again): swept while
    // the server runs, once untouched for hours, as at a restart beside other processes.
    if (process.env.REDIS_URL || webRole() !== 'web') setInterval(() => void cleanup({ staleAfterMs: STALE_AFTER_MS }), 3600_000).unref();
  } finally {
    tellPrimary({ fieldmap: 'ready' });
  }
}

/**
 * The tasks there are, and the task folders still of use: a task's not ended in error, and those
 * scans' files are in. None when the database cannot say (the clean-up then keeps every task folder).
 */
async function taskFolders(): Promise<{ knownTaskIds?: Set<string>; keptTaskFolders?: Set<string> }> {
  try {
    await dbReady();
    const tasks = await db().task.findMany({ select: { id: true, status: true } });
    const scanFolders = (await db().scan.findMany({ where: { dataPath: { not: null } }, select: { dataPath: true } })).map((s) => basename(dirname(s.dataPath!)));
    return {
      knownTaskIds: new Set(tasks.map((t) => t.id)),
      keptTaskFolders: new Set([...tasks.filter((t) => t.status !== 'error').map((t) => t.id), ...scanFolders]),
    };
  } catch {
    return {};
  }
}

async function cleanup(opts: { staleAfterMs: number; knownTaskIds?: Set<string>; keptTaskFolders?: Set<string> }) {
  try {
    const { removed } = await cleanupDataDir({ dataDir: config().dataDir, ...opts });
    if (removed.length) log.info({ count: removed.length, removed: removed.slice(0, 20) }, 'removed files left by an interrupted process');
  } catch (err) {
    log.warn({ err }, 'data folder cleanup failed');
  }
}
