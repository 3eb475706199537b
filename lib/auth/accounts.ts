// Companies and their users: registration, sign-in, profile, and user management inside a company.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import slugify from 'slugify';
import type { z } from 'zod';
import { config } from '../config';
import type { Db } from '../db/client';
import { SQLITE_LOCK_WAIT_MS } from '../db/sqlite-file-client';
import { dbTarget } from '../db/target';
import { type TenantDb, tenantCreate } from '../db/tenant';
import { addressGroup } from '../http/address-group';
import { conflict, forbidden, notFound, rateLimited, unauthorized, unprocessable } from '../errors';
import { DEFAULT_LOCALE } from '../i18n/locales';
import { parseSettings } from './company-settings';
import { burnPasswordCheck, hashPassword, isLegacyHash, verifyPassword } from './password';
import { ACTION_ROLE } from './permissions';
import { ROLE_LEVEL, type Role, hasRole, isRole } from './roles';
import type { companyBody, newUserBody, profileBody, registerBody, userUpdateBody } from './schemas';

type UserRow = {
  id: number;
  email: string;
  firstName: string | null;
  lastName: string | null;
  role: string;
  language: string;
  isActive: boolean;
  isVerified: boolean;
  createdAt: Date;
  lastLogin: Date | null;
  companyId: number;
};
type CompanyRow = { id: number; name: string; slug: string; createdAt: Date; settingsJson: string; isActive: boolean };

/** The user as login and register answer it (spec 4.1). */
export const userSummary = (u: UserRow, c: Pick<CompanyRow, 'id' | 'name' | 'slug'>) => ({
  id: u.id,
  email: u.email,
  first_name: u.firstName,
  last_name: u.lastName,
  role: u.role,
  language: u.language,
  company: { id: c.id, name: c.name, slug: c.slug },
});

export const userProfile = (u: UserRow, c: CompanyRow) => ({
  ...userSummary(u, c),
  is_verified: u.isVerified,
  created_at: u.createdAt.toISOString(),
  last_login: u.lastLogin?.toISOString() ?? null,
  company: { id: c.id, name: c.name, slug: c.slug, settings: parseSettings(c.settingsJson) },
});

export const companyUser = (u: UserRow) => ({
  id: u.id,
  email: u.email,
  first_name: u.firstName,
  last_name: u.lastName,
  role: u.role,
  language: u.language,
  is_active: u.isActive,
  last_login: u.lastLogin?.toISOString() ?? null,
});

export const companyView = (c: CompanyRow, users: UserRow[]) => ({
  id: c.id,
  name: c.name,
  slug: c.slug,
  created_at: c.createdAt.toISOString(),
  settings: parseSettings(c.settingsJson),
  users: users.map((u) => ({ id: u.id, email: u.email, first_name: u.firstName, last_name: u.lastName, role: u.role, language: u.language })),
});

/** A URL-safe slug, Cyrillic and Slovak letters transliterated; `company` when nothing is left. */
export const slugFor = (name: string) => slugify(name, { lower: true, strict: true, locale: 'ru' }).slice(0, 200) || 'company';

async function freeSlug(db: Db, name: string): Promise<string> {
  const base = slugFor(name);
  const taken = new Set(
    (await db.company.findMany({ where: { slug: { startsWith: base } }, select: { slug: true } })).map((c) => c.slug),
  );
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) if (!taken.has(`${base}-${i}`)) return `${base}-${i}`;
}

/** Writes tried with a freshly read free slug before a clash on it is given up (each clash means another registration got one). */
const SLUG_TRIES = 10;

export async function registerCompany(db: Db, input: z.infer<typeof registerBody>) {
  if (await db.user.findUnique({ where: { email: input.email } })) throw conflict('email_taken');
  if (await db.company.findUnique({ where: { name: input.company_name } })) throw conflict('company_taken');
  const { hash, salt } = await hashPassword(input.password);
  for (let attempt = 1; ; attempt++) {
    try {
      // One nested write: the company and its first user exist together or not at all.
      const company = await db.company.create({
        data: {
          name: input.company_name,
          slug: await freeSlug(db, input.company_name),
          ...(input.time_zone ? { settingsJson: JSON.stringify({ time_zone: input.time_zone }) } : {}),
          users: {
            create: {
              email: input.email,
              passwordHash: hash,
              passwordSalt: salt,
              firstName: input.first_name ?? null,
              lastName: input.last_name ?? null,
              language: input.language ?? DEFAULT_LOCALE,
              role: 'owner',
              // Registering signs the new owner in: that is their first login.
              lastLogin: new Date(),
            },
          },
        },
        include: { users: true },
      });
      return { company, user: company.users[0]! };
    } catch (err) {
      if ((err as { code?: string }).code !== 'P2002') throw err;
      const target = JSON.stringify((err as { meta?: unknown }).meta ?? '');
      // Another registration took the free slug between its reading and this write ("Agro" and
      // "Agro!" at once): the next one is read again. Only a name or an e-mail is the caller's clash.
      if (target.includes('slug')) {
        if (attempt < SLUG_TRIES) continue;
        throw err;
      }
      // Two registrations racing for the same name or e-mail: the unique index decides.
      throw conflict(target.includes('email') ? 'email_taken' : 'company_taken');
    }
  }
}

const WINDOW_MS = 15 * 60_000;
/**
 * Failed sign-ins (and current passwords entered again, checkCurrentPassword) allowed in 15 minutes.
 * Five for an e-mail from one address: a guesser there is stopped, while the account's owner,
 * elsewhere, can still sign in (five from anywhere let anyone lock anyone out with five requests a
 * quarter hour). Twenty for an e-mail from all addresses together bounds guessing spread over
 * many, and fifty for an address, spraying over many accounts.
 */
const MAX_PER_EMAIL_AND_IP = 5;
const MAX_PER_EMAIL = 20;
const MAX_PER_IP = 50;

type AttemptsDb = Pick<Db, 'loginAttempt'>;

/** 429 when this e-mail or address has failed too often in the last 15 minutes. */
async function checkThrottle(db: AttemptsDb, email: string, ip: string): Promise<void> {
  const since = new Date(Date.now() - WINDOW_MS);
  for (const [where, max] of [
    [{ email, ip }, MAX_PER_EMAIL_AND_IP],
    [{ email }, MAX_PER_EMAIL],
    [{ ip }, MAX_PER_IP],
  ] as const) {
    const recent = await db.loginAttempt.findMany({
      where: { ...where, createdAt: { gt: since } },
      orderBy: { createdAt: 'desc' },
      take: max,
      select: { createdAt: true },
    });
    if (recent.length >= max) {
      const oldest = recent[recent.length - 1]!.createdAt.getTime();
      throw rateLimited(Math.max(1, Math.ceil((oldest + WINDOW_MS - Date.now()) / 1000)));
    }
  }
}

/** The first keys of PostgreSQL's advisory locks held while a password check is let in: by e-mail, then by address. */
const PASSWORD_CHECK_EMAIL_LOCK = 0x46_4d_45; // "FME"
const PASSWORD_CHECK_ADDRESS_LOCK = 0x46_4d_41; // "FMA"

/**
 * Lets one password check of `email` from `ip` (an address group) in: 429 past the limits, else its
 * failure recorded ahead of the check, to be taken back (`passwordRight`) when the password is right.
 * Failures had been written after the check, so a burst sent at once all counted none and all ran.
 * Counted and recorded in one transaction that no other for the e-mail or the address runs beside
 * (SQLite's run one at a time; PostgreSQL's take the two locks, always in that order), so a burst
 * across the cluster's web processes is held to the limit as if sent one after another.
 */
async function admitPasswordCheck(db: Db, email: string, ip: string): Promise<number> {
  return db.$transaction(
    async (tx) => {
      if (dbTarget(config()).kind === 'postgresql') {
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(${PASSWORD_CHECK_EMAIL_LOCK}, hashtext(${email}))`;
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(${PASSWORD_CHECK_ADDRESS_LOCK}, hashtext(${ip}))`;
      }
      await checkThrottle(tx, email, ip);
      return (await tx.loginAttempt.create({ data: { email, ip }, select: { id: true } })).id;
    },
    { timeout: SQLITE_LOCK_WAIT_MS + 5000 },
  );
}

/** A right password: its attempt, recorded as a failure ahead of the check, is taken back. */
const passwordRight = (db: Db, attempt: number) => db.loginAttempt.deleteMany({ where: { id: attempt } });

/** A wrong password: its failure stays. Failures past the window count for nothing: they go, or an e-mail nobody has ever used stays for good. */
const passwordWrong = (db: Db) => db.loginAttempt.deleteMany({ where: { createdAt: { lt: new Date(Date.now() - WINDOW_MS) } } });

/**
 * Checks e-mail and password. Wrong e-mail and wrong password answer the same 401 after the same
 * work; a legacy SHA-256 hash is replaced by scrypt on success.
 */
export async function authenticate(db: Db, email: string, password: string, address: string) {
  // Counted by the address's group (an IPv6 host's /64): lib/http/address-group.ts.
  const attempt = await admitPasswordCheck(db, email, addressGroup(address));
  const user = await db.user.findUnique({ where: { email }, include: { company: true } });
  const good = user ? await verifyPassword(password, { hash: user.passwordHash, salt: user.passwordSalt }) : await burnPasswordCheck(password);
  if (!user || !good) {
    await passwordWrong(db);
    throw unauthorized('bad_credentials');
  }
  await passwordRight(db, attempt);
  if (!user.isActive || !user.company.isActive) throw forbidden('account_inactive');
  const upgrade = isLegacyHash(user.passwordHash) ? await hashPassword(password) : undefined;
  const updated = await db.user.update({
    where: { id: user.id },
    data: { lastLogin: new Date(), ...(upgrade ? { passwordHash: upgrade.hash, passwordSalt: upgrade.salt } : {}) },
    include: { company: true },
  });
  await db.loginAttempt.deleteMany({ where: { email } });
  return updated;
}

type PasswordOwner = { email: string; passwordHash: string; passwordSalt: string };

/**
 * The signed-in user's password, entered again to change it or to delete the company: 403 when
 * wrong. Counted with the sign-in failures of the user's e-mail from the caller's address, so that
 * whoever holds a stolen session guesses it no faster than at the sign-in form (429 past the limits).
 */
async function checkCurrentPassword(db: Db, user: PasswordOwner, password: string, address: string): Promise<void> {
  const attempt = await admitPasswordCheck(db, user.email, addressGroup(address));
  if (!(await verifyPassword(password, { hash: user.passwordHash, salt: user.passwordSalt }))) {
    await passwordWrong(db);
    throw forbidden('wrong_password');
  }
  await passwordRight(db, attempt);
}

export async function updateProfile(
  db: Db,
  user: UserRow & { passwordHash: string; passwordSalt: string },
  currentSessionId: number,
  input: z.infer<typeof profileBody>,
  address: string,
) {
  let password: { passwordHash: string; passwordSalt: string } | undefined;
  if (input.new_password) {
    await checkCurrentPassword(db, user, input.password ?? '', address);
    const { hash, salt } = await hashPassword(input.new_password);
    password = { passwordHash: hash, passwordSalt: salt };
  }
  return db.$transaction(async (tx) => {
    const updated = await tx.user.update({
      where: { id: user.id },
      data: {
        ...(input.first_name !== undefined ? { firstName: input.first_name } : {}),
        ...(input.last_name !== undefined ? { lastName: input.last_name } : {}),
        ...(input.language ? { language: input.language } : {}),
        ...password,
      },
      include: { company: true },
    });
    // A new password ends every other session of the user.
    if (password) await tx.session.deleteMany({ where: { userId: user.id, id: { not: currentSessionId } } });
    return updated;
  });
}

/** Settings are kept with the company and sent with every profile: a few kilobytes are plenty. */
export const SETTINGS_MAX_KB = 64;

/** The stored settings with a change merged in (JSON merge patch: a key given as null is removed). */
export function mergedSettings(stored: Record<string, unknown>, change: Record<string, unknown>): Record<string, unknown> {
  const merged = { ...stored, ...change };
  for (const [key, value] of Object.entries(change)) if (value === null) delete merged[key];
  if (Buffer.byteLength(JSON.stringify(merged)) > SETTINGS_MAX_KB * 1024) throw unprocessable('settings_too_large', { limit: SETTINGS_MAX_KB });
  return merged;
}

export async function updateCompany(db: TenantDb, companyId: number, input: z.infer<typeof companyBody>) {
  const company = await db.company.findUniqueOrThrow({ where: { id: companyId } });
  const settings = input.settings ? mergedSettings(parseSettings(company.settingsJson), input.settings) : undefined;
  return db.company
    .update({
      where: { id: companyId },
      data: { ...(input.name ? { name: input.name } : {}), ...(settings ? { settingsJson: JSON.stringify(settings) } : {}) },
    })
    .catch((err: unknown) => {
      // Company names are unique across the service, as at registration.
      throw (err as { code?: string }).code === 'P2002' ? conflict('company_taken') : err;
    });
}

/** Removes the company, every row of it (foreign keys cascade) and its files. */
export async function deleteCompany(
  db: TenantDb,
  baseDb: Db,
  user: PasswordOwner & { id: number; companyId: number },
  password: string,
  address: string,
) {
  await checkCurrentPassword(baseDb, user, password, address);
  await db.company.delete({ where: { id: user.companyId } });
  await rm(companyDataDir(user.companyId), { recursive: true, force: true });
}

export const companyDataDir = (companyId: number) => join(config().dataDir, 'companies', String(companyId));

// --- Users of a company (admin and owner) ---

function assertMayAssign(actorRole: string, role: Role) {
  if (!isRole(actorRole) || ROLE_LEVEL[role] > ROLE_LEVEL[actorRole]) throw forbidden('role_above_own');
}

function assertMayManage(actorRole: string, target: { role: string }) {
  if (!isRole(actorRole) || (isRole(target.role) && ROLE_LEVEL[target.role] > ROLE_LEVEL[actorRole])) throw forbidden('user_above_own');
}

async function assertNotLastOwner(db: TenantDb, target: { id: number; role: string; isActive: boolean }) {
  if (target.role !== 'owner' || !target.isActive) return;
  const owners = await db.user.count({ where: { role: 'owner', isActive: true } });
  if (owners <= 1) throw conflict('last_owner');
}

/** The signed-in user changing another of their company's users. */
type Actor = { id: number; companyId: number };

/** The first key of PostgreSQL's advisory lock held while a company's users change (the second is the company). */
const COMPANY_USERS_LOCK = 0x46_4d_55; // "FMU"

/**
 * A change to one of the company's users, read and written in one transaction that no other such
 * change of the company runs beside: two owners demoting each other at once each counted two owners
 * and left the company with none, whom nobody could then make owner again. SQLite's transactions
 * are one at a time already (BEGIN IMMEDIATE); PostgreSQL's take the company's lock. The acting
 * user's role is read again there too: one demoted by the change before, while this one waited, acts
 * with the role now theirs.
 */
async function changeCompanyUser<T>(db: TenantDb, actor: Actor, id: number, change: (tx: TenantDb, target: UserRow, actorRole: string) => Promise<T>): Promise<T> {
  return db.$transaction(
    async (tx) => {
      if (dbTarget(config()).kind === 'postgresql') await tx.$executeRaw`SELECT pg_advisory_xact_lock(${COMPANY_USERS_LOCK}, ${actor.companyId})`;
      const now = await tx.user.findUnique({ where: { id: actor.id }, select: { role: true, isActive: true } });
      if (!now?.isActive || !hasRole(now.role, ACTION_ROLE.manageUsers)) throw forbidden();
      const target = await tx.user.findUnique({ where: { id } });
      if (!target) throw notFound();
      return change(tx as unknown as TenantDb, target, now.role);
    },
    { timeout: SQLITE_LOCK_WAIT_MS + 5000 },
  );
}

export async function createCompanyUser(db: TenantDb, baseDb: Db, actorRole: string, input: z.infer<typeof newUserBody>) {
  assertMayAssign(actorRole, input.role);
  // E-mails are unique across companies: look in the whole database.
  if (await baseDb.user.findUnique({ where: { email: input.email } })) throw conflict('email_taken');
  const { hash, salt } = await hashPassword(input.password);
  return db.user.create({
    data: tenantCreate('user', {
      email: input.email,
      passwordHash: hash,
      passwordSalt: salt,
      firstName: input.first_name ?? null,
      lastName: input.last_name ?? null,
      role: input.role,
      language: input.language ?? DEFAULT_LOCALE,
    }),
  });
}

export async function updateCompanyUser(db: TenantDb, baseDb: Db, actor: Actor, id: number, input: z.infer<typeof userUpdateBody>) {
  const updated = await changeCompanyUser(db, actor, id, async (tx, target, actorRole) => {
    assertMayManage(actorRole, target);
    if (input.role) assertMayAssign(actorRole, input.role);
    const demoted = input.role !== undefined && input.role !== 'owner';
    if (demoted || input.is_active === false) await assertNotLastOwner(tx, target);
    return tx.user.update({
      where: { id },
      data: {
        ...(input.role ? { role: input.role } : {}),
        ...(input.is_active !== undefined ? { isActive: input.is_active } : {}),
        ...(input.first_name !== undefined ? { firstName: input.first_name } : {}),
        ...(input.last_name !== undefined ? { lastName: input.last_name } : {}),
      },
    });
  });
  if (input.is_active === false) await baseDb.session.deleteMany({ where: { userId: id } });
  return updated;
}

export async function deleteCompanyUser(db: TenantDb, actor: Actor, id: number) {
  await changeCompanyUser(db, actor, id, async (tx, target, actorRole) => {
    assertMayManage(actorRole, target);
    await assertNotLastOwner(tx, target);
    await tx.user.delete({ where: { id } });
  });
}
