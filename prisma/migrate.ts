// `npm run db:migrate`: applies pending migrations to the configured database.
import { parseConfig } from '../lib/config';
import { LegacyDatabaseError, migrate } from '../lib/db/migrate';
import { dbTarget } from '../lib/db/target';

const target = dbTarget(parseConfig(process.env));
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
