// Starts the built server (lib/server/serve.ts, as `make run` does) as real processes on a free port, with its own database and
// data folder. Tests use it through HTTP only.
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { treeRssBytes } from './proc';

export interface TestServer {
  url: string;
  port: number;
  env: Record<string, string>;
  dataDir: string;
  proc: ChildProcess;
  /** Resident memory of the server's processes in bytes (from /proc). */
  rss(): number;
  stop(signal?: NodeJS.Signals): Promise<void>;
  restart(): Promise<TestServer>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

const ROOT = join(import.meta.dirname, '..', '..');

export interface ServerOptions {
  /** Extra environment: SERVICE_DB or DATABASE_URL, REDIS_URL... */
  env?: Record<string, string>;
  dataDir?: string;
  /** The health check's status to wait for: 503 for a server started without its queue on purpose. */
  healthStatus?: number;
  port?: number;
  /** Appends everything the server prints to this file (kept for diagnosis after a run). */
  logFile?: string;
}

export async function startServer(opts: ServerOptions = {}): Promise<TestServer> {
  const port = opts.port ?? (await freePort());
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'fieldmap-data-'));
  const env: Record<string, string> = {
    SERVICE_ENV: 'test',
    SESSION_SECRET: 'test-secret-0123456789abcdef',
    DATA_DIR: dataDir,
    SERVICE_DB: join(dataDir, 'fields.db'),
    LOG_LEVEL: 'warn',
    // Two web processes whatever the machine's cores, so that every run tests the same server.
    WEB_CONCURRENCY: '2',
    NEXT_TELEMETRY_DISABLED: '1',
    // The tests register hundreds of companies, all from this machine's address.
    REGISTRATIONS_PER_HOUR: '1000000',
    // A separate build folder lets parallel checkouts of work build and test without clashing.
    ...(process.env.NEXT_DIST_DIR ? { NEXT_DIST_DIR: process.env.NEXT_DIST_DIR } : {}),
    ...opts.env,
  };
  // As `make run` starts it: several web processes (lib/server/cluster.ts).
  const proc = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'lib/server/serve.ts'), 'start', '-p', String(port), '-H', '127.0.0.1', '--keepAliveTimeout', '65000'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const log = opts.logFile ? createWriteStream(opts.logFile, { flags: 'a' }) : undefined;
  const keep = (b: Buffer) => {
    output = (output + b.toString()).slice(-20_000);
    log?.write(b);
  };
  proc.once('exit', () => log?.end());
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`server exited (${proc.exitCode}):\n${output}`);
    try {
      // Every web process has started (the primary says so), and the server answers.
      if (/web process(es)? ready/.test(output) && (await statusOnNewConnection(`${url}/api/health`)) === (opts.healthStatus ?? 200)) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`server did not become healthy:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  const server: TestServer = {
    url,
    port,
    env,
    dataDir,
    proc,
    rss() {
      return treeRssBytes(proc.pid!);
    },
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (proc.exitCode !== null || proc.signalCode) return;
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill(signal);
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (proc.exitCode === null && !proc.signalCode) proc.kill('SIGKILL');
    },
    async restart() {
      await server.stop();
      return startServer({ ...opts, dataDir, port });
    },
  };
  return server;
}

/** The status of a GET on a connection of its own, closed after the answer (none is left open to the server). */
export function statusOnNewConnection(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    }).on('error', reject);
  });
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
