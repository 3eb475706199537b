// Next.js calls register() once when a server process starts: in the embedded setup this process
// also runs background tasks, so tasks a previous process left unfinished are resumed now. Files a
// killed process left half-written in the data folder are removed first (lib/uploads/cleanup.ts).
// Large uploads get the time they need (lib/http/request-timeout.ts).
export async function register() {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { config } = await import('./lib/config');
  const { setRequestTimeout } = await import('./lib/http/request-timeout');
  setRequestTimeout(config().REQUEST_TIMEOUT_S * 1000);
  const { cleanupDataDir } = await import('./lib/uploads/cleanup');
  const { log } = await import('./lib/log');
  const cleanup = async (opts: { staleAfterMs: number; knownTaskIds?: Set<string> }) => {
    try {
      const { removed } = await cleanupDataDir({ dataDir: config().dataDir, ...opts });
      if (removed.length) log.info({ count: removed.length, removed: removed.slice(0, 20) }, 'removed files left by an interrupted process');
    } catch (err) {
      log.warn({ err }, 'data folder cleanup failed');
    }
  };
  if (process.env.REDIS_URL) {
    // Other web processes share the folder and may be receiving uploads: only what nobody touched for hours.
    await cleanup({ staleAfterMs: 6 * 3600_000 });
    return;
  }
  const { dbReady, db } = await import('./lib/db/client');
  const { startLocalRunner } = await import('./lib/tasks/local-runner');
  await dbReady();
  // Alone on the folder: everything left over is garbage.
  await cleanup({ staleAfterMs: 0, knownTaskIds: new Set((await db().task.findMany({ select: { id: true } })).map((t) => t.id)) });
  await startLocalRunner();
}
