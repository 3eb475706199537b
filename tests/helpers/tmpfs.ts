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
