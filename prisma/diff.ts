// `npm run db:diff -- <name>`: after editing prisma/models.prisma, writes the next migration for each
// provider: the SQL from the models as they were at the last migration (prisma/migrations/models.snapshot)
// to the models now. Needs no database. Then the snapshot is updated.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { migrationsDir } from '../lib/db/migrate';
import { diffModels } from '../lib/db/schema-engine';
import { POSTGRES_ADMIN_URL, scratchSqlite } from '../lib/db/scratch';
import { PROVIDERS, readModels } from './generate';

const name = (process.argv[2] ?? '').replace(/[^a-z0-9_]+/gi, '_');
if (!name) {
  console.error('usage: npm run db:diff -- <migration_name>');
  process.exit(2);
}
const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
const snapshotFile = join(process.cwd(), 'prisma/migrations/models.snapshot');
const before = existsSync(snapshotFile) ? readFileSync(snapshotFile, 'utf8') : 'empty';
const now = readModels();

// The engine wants a connection even for a models-to-models diff (it reads nothing from it): a scratch
// SQLite file, and the local PostgreSQL server.
const scratch = scratchSqlite();
try {
  for (const kind of PROVIDERS) {
    const target = kind === 'sqlite' ? scratch.target : ({ kind, url: POSTGRES_ADMIN_URL } as const);
    const sql = await diffModels(target, before, now);
    if (!sql) {
      console.log(`${kind}: no change`);
      continue;
    }
    mkdirSync(migrationsDir(kind), { recursive: true });
    const file = join(migrationsDir(kind), `${stamp}_${name}.sql`);
    writeFileSync(file, sql);
    console.log(`${kind}: wrote ${file}`);
  }
  writeFileSync(snapshotFile, now);
} finally {
  await scratch.drop();
}
