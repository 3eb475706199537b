// Free space on the disk under a folder, for the checks made before writing (uploads, drone mosaics).
import { statfs } from 'node:fs/promises';

/** Bytes free to this process under `dir`; null when the file system cannot say (nothing is refused on that). */
export async function freeBytes(dir: string): Promise<number | null> {
  const s = await statfs(dir).catch(() => null);
  return s ? s.bavail * s.bsize : null;
}
