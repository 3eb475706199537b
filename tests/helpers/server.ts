// Starts the built server (`next start`) as a real process on a free port, with its own database and
// data folder. Tests use it through HTTP only.
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestServer {
  url: string;
  port: number;
  env: Record<string, string>;
  dataDir: string;
  proc: ChildProcess;
  /** Resident memory of the server process in bytes (from /proc). */
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
    NEXT_TELEMETRY_DISABLED: '1',
    // A separate build folder lets parallel checkouts of work build and test without clashing.
    ...(process.env.NEXT_DIST_DIR ? { NEXT_DIST_DIR: process.env.NEXT_DIST_DIR } : {}),
    ...opts.env,
  };
  const proc = spawn(process.execPath, [join(ROOT, 'node_modules/next/dist/bin/next'), 'start', '-p', String(port), '-H', '127.0.0.1', '--keepAliveTimeout', '65000'], {
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
      const res = await fetch(`${url}/api/health`);
      if (res.status === 200) break;
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
      // next start runs the server in the process it was started as.
      const status = readFileSync(`/proc/${proc.pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
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

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
