// A server is a process tree (lib/server/cluster.ts: a primary and its web processes): its memory
// and CPU are the tree's, read from /proc.
import { readFileSync, readdirSync } from 'node:fs';

/** /proc counts CPU time in USER_HZ ticks, 100 a second on Linux. */
const CLOCK_TICKS = 100;

function readProc(pid: number, file: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return undefined; // exited meanwhile
  }
}

/** `/proc/<pid>/stat` fields after the command name: [0] state, [1] ppid, [11] utime, [12] stime. */
const statFields = (pid: number) => readProc(pid, 'stat')?.split(') ')[1]?.split(' ');

/** The process and all its descendants. */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const ppid = Number(statFields(Number(name))?.[1]);
    if (ppid) children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i]!) ?? []));
  return tree;
}

const statusKb = (pid: number, key: 'VmRSS' | 'VmHWM') => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(readProc(pid, 'status') ?? '')?.[1] ?? 0);

/** Resident memory of the whole tree now, in bytes. */
export const treeRssBytes = (pid: number) => processTree(pid).reduce((sum, p) => sum + statusKb(p, 'VmRSS'), 0) * 1024;

/** The highest resident memory any one process of the tree has reached, in MB (the one that did the work). */
export const peakProcessRssMb = (pid: number) => Math.max(...processTree(pid).map((p) => statusKb(p, 'VmHWM'))) / 1024;

/** CPU time (user + system, all threads) the tree's living processes have used so far, in ms. */
export const treeCpuMs = (pid: number) =>
  processTree(pid).reduce((sum, p) => {
    const f = statFields(p);
    return sum + (f ? ((Number(f[11]) + Number(f[12])) * 1000) / CLOCK_TICKS : 0);
  }, 0);

export interface WebProcess {
  pid: number;
  role: string;
  restarted: boolean;
}

/** The server's web processes, with the role and restart mark the primary gave each. */
export function webProcesses(server: { proc: { pid?: number } }): WebProcess[] {
  return processTree(server.proc.pid!)
    .slice(1)
    .flatMap((pid) => {
      let environ: string;
      try {
        environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
      } catch {
        return []; // gone meanwhile
      }
      const env = new Map(environ.split('\0').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
      const role = env.get('FIELDMAP_WEB_ROLE');
      return role ? [{ pid, role, restarted: env.get('FIELDMAP_RUNNER_RESTARTED') === '1' }] : [];
    });
}
