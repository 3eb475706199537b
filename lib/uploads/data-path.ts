// Files in the data folder are recorded relative to it (a scan's data_path, the raster and photo
// paths in a task's payload) and made absolute against the DATA_DIR of the process that reads them,
// so that the folder may move: a bigger disk, a backup restored elsewhere, a shared volume mounted at
// another path on a worker host. Paths recorded absolute before (lib/db/data-paths.ts makes those
// under DATA_DIR relative at start-up) and files outside the folder keep working as they are.
import { isAbsolute, join, relative, sep } from 'node:path';
import { dataDir as configuredDataDir } from '../config';

/** What to record for a file: its path inside DATA_DIR; a path outside it (or already relative) as it is. */
export function storeDataPath(path: string, dataDir = configuredDataDir()): string {
  if (!isAbsolute(path)) return path;
  const inside = relative(dataDir, path);
  return inside && inside !== '..' && !inside.startsWith(`..${sep}`) && !isAbsolute(inside) ? inside : path;
}

/** The file a recorded path names: a relative one inside this process's DATA_DIR, an absolute one as it is. */
export function resolveDataPath(stored: string, dataDir = configuredDataDir()): string {
  return isAbsolute(stored) ? stored : join(dataDir, stored);
}
