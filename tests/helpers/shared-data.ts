// Real public data lives in ../shared/data (FIELDMAP_SHARED overrides the folder). It is never copied
// into the project; a test that needs it says clearly when it is absent.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const SHARED_DIR = resolve(process.env.FIELDMAP_SHARED ?? join(import.meta.dirname, '..', '..', '..', 'shared'));

export function sharedPath(...parts: string[]): string {
  return join(SHARED_DIR, 'data', ...parts);
}

/** The reason to skip, printed by the test, or undefined when the file is there. */
export function missingShared(...parts: string[]): string | undefined {
  const p = sharedPath(...parts);
  return existsSync(p) ? undefined : `shared data not found at ${p} (set FIELDMAP_SHARED to the shared folder)`;
}
