// `npm run user:create -- --company "Default Company" --email a@b.c --role owner [--password ...] [--db fields.db]`
// Creates a user in an existing company (after an upgrade, the first user of "Default Company").
// Without --password a strong one is generated and printed once.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { createDb } from '../db/client';
import { migrate } from '../db/migrate';
import { dbTarget } from '../db/target';
import { hashPassword } from './password';
import { isRole } from './roles';

const { values } = parseArgs({
  options: {
    company: { type: 'string' },
    email: { type: 'string' },
    role: { type: 'string', default: 'owner' },
    password: { type: 'string' },
    language: { type: 'string', default: 'ru' },
    db: { type: 'string' },
  },
});
if (!values.company || !values.email || !isRole(values.role)) {
  console.error('usage: npm run user:create -- --company NAME --email EMAIL [--role owner|admin|agronomist|operator|viewer] [--password P] [--db fields.db]');
  process.exit(2);
}
const target = dbTarget({ SERVICE_DB: values.db ?? process.env.SERVICE_DB ?? 'fields.db', DATABASE_URL: values.db ? undefined : process.env.DATABASE_URL });
await migrate(target);
const db = createDb(target);
try {
  const company = await db.company.findUnique({ where: { name: values.company } });
  if (!company) throw new Error(`No company named "${values.company}"`);
  const password = values.password ?? randomBytes(12).toString('base64url');
  if (password.length < 8) throw new Error('The password needs at least 8 characters');
  const { hash, salt } = await hashPassword(password);
  const user = await db.user.create({
    data: { email: values.email.trim().toLowerCase(), passwordHash: hash, passwordSalt: salt, role: values.role, language: values.language, companyId: company.id },
  });
  console.log(`Created ${values.role} ${user.email} (id ${user.id}) in "${company.name}".`);
  if (!values.password) console.log(`Password: ${password}  (shown once; change it in the profile)`);
} catch (err) {
  console.error((err as Error).message);
  process.exitCode = 1;
} finally {
  await db.$disconnect();
}
