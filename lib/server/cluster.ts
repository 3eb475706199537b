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

/** The primary's view of its web processes, and what it coordinates between them. */
interface Primary {
  /** WebOptions as JSON, handed to every process. */
  serve: string;
  count: number;
  roles: Map<Worker, WebRole>;
  listening: WeakSet<Worker>;
  ready: WeakSet<Worker>;
  announced: boolean;
  windows: Windows;
  /** When processes exited, within the last minute. */
  exits: number[];
  runner: Worker | undefined;
  othersStarted: boolean;
  stopping: boolean;
  exitCode: number;
  /** Clears of the session caches a process asked for: the processes yet to confirm, by clear number. */
  clears: Map<number, { waiting: Set<Worker>; done: () => void }>;
  nextClear: number;
}

function fork(p: Primary, role: WebRole, restarted = false): void {
  const worker = cluster.fork({ FIELDMAP_SERVE: p.serve, FIELDMAP_WEB_ROLE: role, FIELDMAP_RUNNER_RESTARTED: restarted ? '1' : '' });
  p.roles.set(worker, role);
  if (role === 'runner') p.runner = worker;
  worker.once('listening', () => {
    p.listening.add(worker);
    announceWhenAllReady(p);
  });
  worker.on('message', (m: unknown) => {
    if (isMessage<ToPrimary>(m)) answer(p, worker, m);
  });
}

function announceWhenAllReady(p: Primary): void {
  if (p.announced || p.roles.size !== p.count || ![...p.roles.keys()].every((w) => p.ready.has(w) && p.listening.has(w))) return;
  p.announced = true;
  console.log(`✓ ${p.count} web process${p.count === 1 ? '' : 'es'} ready`);
}

function send(worker: Worker, m: ToWorker): void {
  if (worker.isConnected()) worker.send(m);
}

function answer(p: Primary, from: Worker, m: ToPrimary): void {
  if (m.fieldmap === 'ready') {
    workerReady(p, from);
  } else if (m.fieldmap === 'task') {
    // With no runner alive the task waits in the database; the next runner resumes it at start.
    if (p.runner) send(p.runner, m);
  } else if (m.fieldmap === 'hit') {
    const { count: n, resetSeconds } = countHit(p.windows, m.key, m.windowSeconds);
    send(from, { fieldmap: 'hit', ask: m.ask, count: n, resetSeconds });
  } else if (m.fieldmap === 'sessions-changed') {
    clearSessionsOfOthers(p, from, m.ask);
  } else {
    confirmClear(p, from, m.clear);
  }
}

/** A process is ready: the runner's readiness starts the others. */
function workerReady(p: Primary, worker: Worker): void {
  p.ready.add(worker);
  if (worker === p.runner && !p.othersStarted && !p.stopping) {
    p.othersStarted = true;
    for (let i = 1; i < p.count; i++) fork(p, 'web');
  }
  announceWhenAllReady(p);
}

// A process that is not listening yet has read no session, and reads only what is committed.
function clearSessionsOfOthers(p: Primary, from: Worker, ask: number): void {
  const clear = p.nextClear++;
  const waiting = new Set([...p.roles.keys()].filter((w) => w !== from && p.listening.has(w) && w.isConnected()));
  const timer = setTimeout(() => {
    log.error({ processes: [...waiting].map((w) => w.process.pid) }, 'web processes did not confirm clearing their session caches');
    done();
  }, CLEAR_SESSIONS_TIMEOUT_MS);
  const done = () => {
    clearTimeout(timer);
    p.clears.delete(clear);
    send(from, { fieldmap: 'sessions-changed', ask });
  };
  p.clears.set(clear, { waiting, done });
  for (const worker of waiting) send(worker, { fieldmap: 'clear-sessions', clear });
  if (waiting.size === 0) done();
}

function confirmClear(p: Primary, from: Worker, clear: number): void {
  const pending = p.clears.get(clear);
  pending?.waiting.delete(from);
  if (pending?.waiting.size === 0) pending.done();
}

// Each web process finishes what it has in flight (lib/server/web.mjs closes once its open
// requests are answered); a second signal ends them at once.
function stop(p: Primary, code: number): void {
  if (p.stopping) {
    for (const worker of p.roles.keys()) worker.process.kill('SIGKILL');
    process.exit(code);
  }
  p.stopping = true;
  p.exitCode = code;
  if (p.roles.size === 0) process.exit(code);
  // One still starting has nothing in flight.
  for (const worker of p.roles.keys()) worker.process.kill(p.listening.has(worker) ? 'SIGTERM' : 'SIGKILL');
}

/** Exits within the last minute, counting one now. */
function exitsInLastMinute(exits: number[], now = Date.now()): number {
  exits.push(now);
  while (exits[0]! < now - 60_000) exits.shift();
  return exits.length;
}

/** A process exited: the server ends once all have while stopping, stops on a crash loop, else starts another. */
function workerExited(p: Primary, worker: Worker, code: number, signal: string): void {
  const role = p.roles.get(worker)!;
  p.roles.delete(worker);
  if (role === 'runner') p.runner = undefined;
  for (const [clear] of p.clears) confirmClear(p, worker, clear);
  if (p.stopping) {
    if (p.roles.size === 0) process.exit(p.exitCode);
    return;
  }
  if (!p.listening.has(worker)) {
    log.fatal({ role, code, signal }, 'a web process could not start; stopping');
    return stop(p, code || 1);
  }
  const exits = exitsInLastMinute(p.exits);
  if (exits > MAX_EXITS_PER_MINUTE) {
    log.fatal({ exits }, 'web processes keep exiting; stopping');
    return stop(p, 1);
  }
  log.error({ role, code, signal }, 'a web process exited; starting another');
  fork(p, role, role === 'runner');
}

function newPrimary(options: WebOptions, count: number): Primary {
  return {
    serve: JSON.stringify(options),
    count,
    roles: new Map(),
    listening: new WeakSet(),
    ready: new WeakSet(),
    announced: false,
    windows: new Map(),
    exits: [],
    runner: undefined,
    othersStarted: false,
    stopping: false,
    exitCode: 0,
    clears: new Map(),
    nextClear: 1,
  };
}

/** Runs the web process in `count` processes with `options` until SIGTERM or SIGINT. */
export function startCluster(options: WebOptions, count: number): void {
  const p = newPrimary(options, count);
  // The primary hands out connections in turn (node:cluster's default here). Left to the kernel, a
  // burst of new connections went to whichever process woke first, often all of them to one. The
  // cost: a connection handed to a process at the instant it dies is never answered (Node's
  // round-robin handle neither closes nor re-routes it); its client's own timeout ends it.
  cluster.schedulingPolicy = cluster.SCHED_RR;
  cluster.setupPrimary({ exec: WEB_ENTRY, execArgv: [] });
  cluster.on('exit', (worker, code, signal) => workerExited(p, worker, code, signal));
  // 128 + the signal's number, as a process ended by the signal reports (and as `next start` did).
  process.on('SIGTERM', () => stop(p, 143));
  process.on('SIGINT', () => stop(p, 130));
  fork(p, 'runner');
}
