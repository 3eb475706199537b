// `npm run db:migrate`: applies pending migrations to the configured database.
import { parseConfig } from '../lib/config';
import { migrate } from '../lib/db/migrate';
import { dbTarget } from '../lib/db/target';

const target = dbTarget(parseConfig(process.env));
const applied = await migrate(target);
const where = target.kind === 'sqlite' ? target.file : 'PostgreSQL';
console.log(applied.length ? `Applied ${applied.join(', ')} to ${where}` : `${where} is up to date`);
