// `npm run db:migrate`: applies pending migrations to the configured database, then records the file
// paths under DATA_DIR relative to it (lib/db/data-paths.ts).
import { parseConfig } from '../lib/config';
import { createDb } from '../lib/db/client';
import { makeDataPathsRelative } from '../lib/db/data-paths';
import { LegacyDatabaseError, migrate } from '../lib/db/migrate';
import { dbTarget } from '../lib/db/target';

const config = parseConfig(process.env);
const target = dbTarget(config);
let applied: string[];
try {
  applied = await migrate(target);
} catch (err) {
  // A v2026.2 file: the message names the command to run; a stack trace would only hide it.
  if (!(err instanceof LegacyDatabaseError)) throw err;
  console.error(err.message);
  process.exit(1);
}
const where = target.kind === 'sqlite' ? target.file : 'PostgreSQL';
console.log(applied.length ? `Applied ${applied.join(', ')} to ${where}` : `${where} is up to date`);
const db = createDb(target);
try {
  const changed = await makeDataPathsRelative(db, config.dataDir);
  if (changed.scans || changed.tasks) console.log(`File paths recorded relative to DATA_DIR (${config.dataDir}): ${changed.scans} of scans, ${changed.tasks} of tasks`);
} finally {
  await db.$disconnect();
}
