// The production server: several web processes (lib/server/web.mjs, Next.js as `next start` runs
// it) on one port (node:cluster), because one Node.js process uses one core for requests. The
// primary serves nothing itself: it starts the processes, counts rate limits for all of them
// (lib/server/ipc.ts), passes on clears of their session caches, and starts a process again when
// one dies. The first process is the runner: it runs the embedded background tasks and cleans the
// data folder, and the others start only once it is ready, so that the clean-up of a fresh start
// never meets an upload in progress.
import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type Windows, countHit } from '../http/rate-limit';
import { log } from '../log';
import { type ToPrimary, type ToWorker, type WebRole, isMessage } from './ipc';

const WEB_ENTRY = join(import.meta.dirname, 'web.mjs');

/** More exits than this within a minute is a crash loop: the server stops instead of trying again. */
const MAX_EXITS_PER_MINUTE = 5;

/** How long a clear of the session caches waits for a process that does not confirm it. */
const CLEAR_SESSIONS_TIMEOUT_MS = 5000;

/** How many web processes: WEB_CONCURRENCY as configured (lib/config.ts), else one per core (at most 8: tasks use the rest). */
export const webConcurrency = (configured: number | undefined, cores = availableParallelism()): number => configured ?? Math.max(1, Math.min(cores, 8));

export interface ServeOptions {
  port: number;
  hostname?: string;
  keepAliveTimeoutMs: number;
}

/** `next start`'s own arguments (`[start] -p 3000 -H 127.0.0.1 --keepAliveTimeout 65000`); the port defaults to `defaultPort` (PORT). */
export function parseServeArgs(args: string[], defaultPort: number): ServeOptions {
  const { values } = parseArgs({
    args: args[0] === 'start' ? args.slice(1) : args,
    options: { port: { type: 'string', short: 'p' }, hostname: { type: 'string', short: 'H' }, keepAliveTimeout: { type: 'string' } },
  });
  const number = (name: string, value: string, max: number) => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n > max) throw new Error(`Invalid arguments:\n  ${name}: must be a whole number up to ${max}, got "${value}"`);
    return n;
  };
  return {
    port: values.port === undefined ? defaultPort : number('port', values.port, 65535),
    hostname: values.hostname,
    // Node's own default, as `next start` leaves it.
    keepAliveTimeoutMs: values.keepAliveTimeout === undefined ? 5000 : number('keepAliveTimeout', values.keepAliveTimeout, 2 ** 31 - 1),
  };
}

/** What each web process is given: where to listen, and the headers of every answer. */
export interface WebOptions extends ServeOptions {
  headers: Record<string, string>;
  /** The Content-Security-Policy of pages, with `{nonce}` for the nonce drawn for each (lib/http/security-headers.ts). */
  pagePolicy: string;
  /** TRUSTED_PROXIES: how many X-Forwarded-For entries, from the end, proxies of ours appended. */
  trustedProxies: number;
  /** The routes (`METHOD /path/{param}`, lib/auth/permissions.ts), for the `Allow` header of a 405. */
  routes?: string[];
}

/** Runs the web process in `count` processes with `options` until SIGTERM or SIGINT. */
export function startCluster(options: WebOptions, count: number): void {
  const serve = JSON.stringify(options);
  const roles = new Map<Worker, WebRole>();
  const listening = new WeakSet<Worker>();
  const ready = new WeakSet<Worker>();
  let announced = false;
  const windows: Windows = new Map();
  const exits: number[] = [];
  let runner: Worker | undefined;
  let othersStarted = false;
  let stopping = false;
  let exitCode = 0;
  // Clears of the session caches a process asked for: the processes yet to confirm, by clear number.
  const clears = new Map<number, { waiting: Set<Worker>; done: () => void }>();
  let nextClear = 1;

  // The primary hands out connections in turn (node:cluster's default here). Left to the kernel, a
  // burst of new connections went to whichever process woke first, often all of them to one. The
  // cost: a connection handed to a process at the instant it dies is never answered (Node's
  // round-robin handle neither closes nor re-routes it); its client's own timeout ends it.
  cluster.schedulingPolicy = cluster.SCHED_RR;
  cluster.setupPrimary({ exec: WEB_ENTRY, execArgv: [] });

  const fork = (role: WebRole, restarted = false) => {
    const worker = cluster.fork({ FIELDMAP_SERVE: serve, FIELDMAP_WEB_ROLE: role, FIELDMAP_RUNNER_RESTARTED: restarted ? '1' : '' });
    roles.set(worker, role);
    if (role === 'runner') runner = worker;
    worker.once('listening', () => {
      listening.add(worker);
      announceWhenAllReady();
    });
    worker.on('message', (m: unknown) => {
      if (isMessage<ToPrimary>(m)) answer(worker, m);
    });
  };

  const announceWhenAllReady = () => {
    if (announced || roles.size !== count || ![...roles.keys()].every((w) => ready.has(w) && listening.has(w))) return;
    announced = true;
    console.log(`✓ ${count} web process${count === 1 ? '' : 'es'} ready`);
  };

  const send = (worker: Worker, m: ToWorker) => {
    if (worker.isConnected()) worker.send(m);
  };

  const answer = (from: Worker, m: ToPrimary) => {
    if (m.fieldmap === 'ready') {
      ready.add(from);
      if (from === runner && !othersStarted && !stopping) {
        othersStarted = true;
        for (let i = 1; i < count; i++) fork('web');
      }
      announceWhenAllReady();
    } else if (m.fieldmap === 'task') {
      // With no runner alive the task waits in the database; the next runner resumes it at start.
      if (runner) send(runner, m);
    } else if (m.fieldmap === 'hit') {
      const { count: n, resetSeconds } = countHit(windows, m.key, m.windowSeconds);
      send(from, { fieldmap: 'hit', ask: m.ask, count: n, resetSeconds });
    } else if (m.fieldmap === 'sessions-changed') {
      clearSessionsOfOthers(from, m.ask);
    } else {
      confirmClear(from, m.clear);
    }
  };

  // A process that is not listening yet has read no session, and reads only what is committed.
  const clearSessionsOfOthers = (from: Worker, ask: number) => {
    const clear = nextClear++;
    const waiting = new Set([...roles.keys()].filter((w) => w !== from && listening.has(w) && w.isConnected()));
    const timer = setTimeout(() => {
      log.error({ processes: [...waiting].map((w) => w.process.pid) }, 'web processes did not confirm clearing their session caches');
      done();
    }, CLEAR_SESSIONS_TIMEOUT_MS);
    const done = () => {
      clearTimeout(timer);
      clears.delete(clear);
      send(from, { fieldmap: 'sessions-changed', ask });
    };
    clears.set(clear, { waiting, done });
    for (const worker of waiting) send(worker, { fieldmap: 'clear-sessions', clear });
    if (waiting.size === 0) done();
  };
  const confirmClear = (from: Worker, clear: number) => {
    const pending = clears.get(clear);
    pending?.waiting.delete(from);
    if (pending?.waiting.size === 0) pending.done();
  };

  // Each web process finishes what it has in flight (lib/server/web.mjs closes once its open
  // requests are answered); a second signal ends them at once.
  const stop = (code: number) => {
    if (stopping) {
      for (const worker of roles.keys()) worker.process.kill('SIGKILL');
      process.exit(code);
    }
    stopping = true;
    exitCode = code;
    if (roles.size === 0) process.exit(code);
    // One still starting has nothing in flight.
    for (const worker of roles.keys()) worker.process.kill(listening.has(worker) ? 'SIGTERM' : 'SIGKILL');
  };

  cluster.on('exit', (worker, code, signal) => {
    const role = roles.get(worker)!;
    roles.delete(worker);
    if (role === 'runner') runner = undefined;
    for (const [clear] of clears) confirmClear(worker, clear);
    if (stopping) {
      if (roles.size === 0) process.exit(exitCode);
      return;
    }
    if (!listening.has(worker)) {
      log.fatal({ role, code, signal }, 'a web process could not start; stopping');
      return stop(code || 1);
    }
    const now = Date.now();
    exits.push(now);
    while (exits[0]! < now - 60_000) exits.shift();
    if (exits.length > MAX_EXITS_PER_MINUTE) {
      log.fatal({ exits: exits.length }, 'web processes keep exiting; stopping');
      return stop(1);
    }
    log.error({ role, code, signal }, 'a web process exited; starting another');
    fork(role, role === 'runner');
  });

  // 128 + the signal's number, as a process ended by the signal reports (and as `next start` did).
  process.on('SIGTERM', () => stop(143));
  process.on('SIGINT', () => stop(130));
  fork('runner');
}
