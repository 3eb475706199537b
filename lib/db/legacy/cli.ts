// `npm run migrate:v2026.2 -- --db fields.db`
import { parseArgs } from 'node:util';
import { BlockingRowsError, DEFAULT_COMPANY, migrateV2026_2 } from './v2026-2';

const { values } = parseArgs({ options: { db: { type: 'string', default: process.env.SERVICE_DB ?? 'fields.db' } } });
const started = performance.now();
try {
  const r = await migrateV2026_2(values.db!);
  if (r.status === 'already-current') {
    console.log(`${values.db} is already in the current schema: nothing to do.`);
  } else {
    console.log(`Migrated ${values.db} in ${Math.round(performance.now() - started)} ms: ${r.owners} owners, ${r.fields} fields, ${r.scans} scans, ${r.zones} zones, all in "${DEFAULT_COMPANY}".`);
    console.log(`Backup of the original: ${r.backup}`);
    if (r.notes.length) {
      console.log(`${r.notes.length} row${r.notes.length === 1 ? '' : 's'} needed care:`);
      for (const note of r.notes) console.log(`  - ${note}`);
    }
    console.log(`Next, create the first user of "${DEFAULT_COMPANY}":`);
    console.log(`  npm run user:create -- --db ${values.db} --company "${DEFAULT_COMPANY}" --email you@example.com --role owner`);
  }
} catch (err) {
  if (err instanceof BlockingRowsError) {
    console.error(`Migration failed, the database was not changed. ${err.rows.length} row${err.rows.length === 1 ? '' : 's'} must be corrected first (in the v2026.2 database, e.g. with sqlite3), then run this again:`);
    for (const row of err.rows) console.error(`  - ${row}`);
  } else {
    console.error(`Migration failed, the database was not changed: ${(err as Error).message}`);
  }
  process.exit(1);
}
