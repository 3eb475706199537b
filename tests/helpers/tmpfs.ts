// A small tmpfs to fill a disk for real (needs root and mount: the reason comes back otherwise).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh folder with a tmpfs of `size` (mount's syntax: 8m) mounted on it, or why there is none. */
export function mountTmpfs(size: string): { dir?: string; reason?: string } {
  const dir = mkdtempSync(join(tmpdir(), 'fieldmap-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
    return { dir };
  } catch (err) {
    rmdirSync(dir);
    const msg = (err as { stderr?: Buffer }).stderr?.toString().trim() || (err as Error).message;
    return { reason: `cannot mount a tmpfs here (${msg.split('\n')[0]}); the disk-full tests need root and mount` };
  }
}

/** Unmounts and removes a folder mountTmpfs made (a warning when it cannot). */
export function unmount(dir: string): void {
  try {
    execFileSync('umount', [dir], { stdio: 'pipe' });
    rmdirSync(dir);
  } catch (err) {
    console.warn(`could not unmount ${dir}: ${(err as Error).message}`);
  }
}

/**
 * Runs `fn` on a fresh tmpfs of `size`, unmounted after; where none can be mounted the test is
 * skipped, with the reason printed.
 */
export async function onTmpfs(size: string, ctx: { skip: (note?: string) => never }, fn: (dir: string) => Promise<void>): Promise<void> {
  const small = mountTmpfs(size);
  if (!small.dir) {
    console.warn(`skipped: ${small.reason}`);
    ctx.skip(small.reason);
  }
  try {
    await fn(small.dir!);
  } finally {
    unmount(small.dir!);
  }
}
