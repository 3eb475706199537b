import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Api, unique } from '../helpers/api';
import { PASSWORD, createCompany, registerCompany } from '../helpers/company';
import { baseUrl, directDb, retried } from '../helpers/context';
import { startServer } from '../helpers/server';
import { scratchSqlite } from '@/lib/db/scratch';

const newEmail = () => `${unique('u')}@example.test`.toLowerCase();

describe('register', () => {
  it('creates the company and its owner, starts a session and answers 201', async () => {
    const api = new Api(baseUrl());
    const email = newEmail();
    const name = `Агро Юг Čierna ${unique('x')}`;
    const res = await api.post('/api/auth/register', { email, password: PASSWORD, company_name: name, first_name: 'Иван', last_name: 'Петров', language: 'ru' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      message: 'Компания и пользователь созданы',
      user: { id: expect.any(Number), email, first_name: 'Иван', last_name: 'Петров', role: 'owner', language: 'ru', company: { id: expect.any(Number), name, slug: expect.stringMatching(/^agro-yug-cierna-/) } },
    });
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/session_token=[\w-]+\.[\w-]+/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).toMatch(/Max-Age=86400/);
    // An answer that signs someone in is kept by no cache.
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    expect((await api.get('/api/auth/profile')).status).toBe(200);
  });

  it('gives two companies with names that transliterate alike different slugs', async () => {
    const base = unique('Поле');
    const a = await new Api(baseUrl()).post('/api/auth/register', { email: newEmail(), password: PASSWORD, company_name: base });
    const b = await new Api(baseUrl()).post('/api/auth/register', { email: newEmail(), password: PASSWORD, company_name: `${base}!` });
    expect(a.body.user.company.slug).not.toBe(b.body.user.company.slug);
    expect(b.body.user.company.slug).toMatch(/^[a-z0-9-]+$/);
  });

  it('gives companies registered at the same moment under names that slug alike each a slug of its own', async () => {
    // Each read the same free slug before either wrote it: the later write clashed and was answered 409 "company taken".
    for (let round = 0; round < 4; round++) {
      const base = unique('Agro');
      const names = [base, `${base}!`, `${base}?`, `${base}.`, `${base} +`, `${base} *`];
      const answers = await Promise.all(names.map((company_name) => new Api(baseUrl()).post('/api/auth/register', { email: newEmail(), password: PASSWORD, company_name })));
      expect(answers.map((r) => r.status)).toEqual(names.map(() => 201));
      const slugs = answers.map((r) => r.body.user.company.slug as string);
      expect(new Set(slugs).size).toBe(names.length);
      for (const slug of slugs) expect(slug.startsWith(base.toLowerCase())).toBe(true);
    }
  });

  it('refuses a duplicate e-mail or company name with 409', async () => {
    const { email, name } = await registerCompany(baseUrl());
    const dupEmail = await new Api(baseUrl()).post('/api/auth/register', { email, password: PASSWORD, company_name: unique('Other') }, { 'accept-language': 'en' });
    expect(dupEmail.status).toBe(409);
    expect(dupEmail.body).toEqual({ success: false, error: 'A user with this email already exists' });
    const dupName = await new Api(baseUrl()).post('/api/auth/register', { email: newEmail(), password: PASSWORD, company_name: name }, { 'accept-language': 'en' });
    expect(dupName.status).toBe(409);
    expect(dupName.body.error).toBe('A company with this name already exists');
  });

  it('refuses a weak password or a bad e-mail with 422 and creates nothing', async () => {
    const company = unique('Weak');
    const weak = await new Api(baseUrl()).post('/api/auth/register', { email: newEmail(), password: 'short', company_name: company }, { 'accept-language': 'en' });
    expect(weak.status).toBe(422);
    expect(weak.body.error).toContain('password: at least 8 characters');
    const bad = await new Api(baseUrl()).post('/api/auth/register', { email: 'not-an-email', password: PASSWORD, company_name: company }, { 'accept-language': 'en' });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toContain('email: not a valid email address');
    const blank = await new Api(baseUrl()).post('/api/auth/register', { email: newEmail(), password: '        ', company_name: company }, { 'accept-language': 'en' });
    expect(blank.status).toBe(422);
    expect(blank.body.error).toContain('password: not only spaces');
    // An empty name is no name: stored as null, as one never given.
    const ok = await new Api(baseUrl()).post('/api/auth/register', { email: newEmail(), password: PASSWORD, company_name: company, first_name: 'Olga', last_name: ' ' });
    expect(ok.status).toBe(201);
    expect(ok.body.user).toMatchObject({ first_name: 'Olga', last_name: null });
  });
});

describe('login and logout', () => {
  it('answers the spec body and updates last_login', async () => {
    const { api: registered, email } = await registerCompany(baseUrl());
    // Registering signed the owner in, so that was their first login.
    const atRegistration = Date.parse((await registered.get('/api/auth/profile')).body.user.last_login);
    expect(Date.now() - atRegistration).toBeLessThan(60_000);
    const api = new Api(baseUrl());
    const res = await api.post('/api/auth/login', { email, password: PASSWORD, remember: false });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'Signed in', user: { id: expect.any(Number), email, first_name: 'Olga', last_name: 'Owner', role: 'owner', language: 'en', company: { id: expect.any(Number), name: expect.any(String), slug: expect.any(String) } } });
    const profile = await api.get('/api/auth/profile');
    expect(Date.parse(profile.body.user.last_login)).toBeGreaterThan(atRegistration);
  });

  it('keeps a remembered session for 720 hours', async () => {
    const { email } = await registerCompany(baseUrl());
    const res = await new Api(baseUrl()).post('/api/auth/login', { email, password: PASSWORD, remember: true });
    expect(res.headers.get('set-cookie')).toMatch(/Max-Age=2592000/);
    const db = directDb();
    const token = /session_token=([^.;]+)/.exec(res.headers.get('set-cookie')!)![1]!;
    const row = await db.session.findUnique({ where: { tokenHash: createHash('sha256').update(token).digest('hex') } });
    expect(row!.expiresAt.getTime() - row!.createdAt.getTime()).toBeCloseTo(720 * 3600_000, -4);
    await db.$disconnect();
  });

  it('answers wrong e-mail and wrong password with the same 401', async () => {
    const { email } = await registerCompany(baseUrl());
    const wrongPassword = await new Api(baseUrl()).post('/api/auth/login', { email, password: 'nope-nope-nope' });
    const wrongEmail = await new Api(baseUrl()).post('/api/auth/login', { email: newEmail(), password: 'nope-nope-nope' });
    expect(wrongPassword.status).toBe(401);
    expect(wrongEmail.status).toBe(401);
    expect(wrongPassword.body).toEqual(wrongEmail.body);
    expect(wrongPassword.body).toEqual({ success: false, error: 'Неверный адрес эл. почты или пароль' });
    // RFC 9110: a 401 names its scheme.
    expect(wrongPassword.headers.get('www-authenticate')).toBe('Bearer realm="fieldmap"');
  });

  it('answers 429 with Retry-After after five failures for one e-mail from one address, while its owner elsewhere signs in', async () => {
    const { email } = await registerCompany(baseUrl());
    const from = (ip: string) => ({ 'x-forwarded-for': ip });
    for (let i = 0; i < 5; i++) expect((await new Api(baseUrl()).post('/api/auth/login', { email, password: `wrong-${i}-xx` }, from('192.0.2.10'))).status).toBe(401);
    const blocked = await new Api(baseUrl()).post('/api/auth/login', { email, password: PASSWORD }, from('192.0.2.10'));
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(800);
    expect(blocked.body.success).toBe(false);
    // Five failures from anywhere had locked the account for everyone: anyone could keep anyone out.
    expect((await new Api(baseUrl()).post('/api/auth/login', { email, password: PASSWORD }, from('192.0.2.11'))).status).toBe(200);
  });

  it('holds wrong passwords sent all at once to the same five: the rest answer 429', async () => {
    // Each had counted the failures before any was written, so all of a burst were checked.
    const { email } = await registerCompany(baseUrl());
    const from = { 'x-forwarded-for': `192.0.2.${Math.floor(Math.random() * 200) + 20}` };
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => new Api(baseUrl()).post('/api/auth/login', { email, password: `wrong-${i}-xx` }, from)));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([...Array(5).fill(401), ...Array(5).fill(429)]);
    expect(Number(answers.find((r) => r.status === 429)!.headers.get('retry-after'))).toBeGreaterThan(800);
    expect((await new Api(baseUrl()).post('/api/auth/login', { email, password: PASSWORD }, from)).status).toBe(429);
    // The refused ones were not counted: from elsewhere the owner still signs in.
    expect((await new Api(baseUrl()).post('/api/auth/login', { email, password: PASSWORD }, { 'x-forwarded-for': '192.0.2.250' })).status).toBe(200);
  });

  it('answers 429 after twenty failures for one e-mail spread over many addresses', async () => {
    const { email } = await registerCompany(baseUrl());
    for (let i = 0; i < 20; i++) {
      const res = await new Api(baseUrl()).post('/api/auth/login', { email, password: `wrong-${i}-xx` }, { 'x-forwarded-for': `192.0.2.${100 + i}` });
      expect(res.status).toBe(401);
    }
    expect((await new Api(baseUrl()).post('/api/auth/login', { email, password: PASSWORD }, { 'x-forwarded-for': '192.0.2.200' })).status).toBe(429);
  });

  it('limits the companies one address registers in an hour (429 with Retry-After)', async () => {
    // A server of its own, with a small limit; the shared one takes the suite's hundreds.
    const scratch = scratchSqlite();
    const server = await startServer({ env: { ...scratch.env, REGISTRATIONS_PER_HOUR: '3' } });
    try {
      const register = (i: number) => new Api(server.url).post('/api/auth/register', { email: newEmail(), password: PASSWORD, company_name: unique(`Spam ${i}`), language: 'en' }, { 'accept-language': 'en' });
      for (let i = 0; i < 3; i++) expect((await register(i)).status).toBe(201);
      const refused = await register(3);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3500);
      expect(refused.body).toEqual({ success: false, error: expect.stringMatching(/^Too many requests/) });
    } finally {
      await server.stop();
      await scratch.drop();
    }
  });

  it('answers 429 after fifty failures from one address', async () => {
    const ip = `198.51.100.${Math.floor(Math.random() * 250) + 1}`;
    const results = [];
    for (let i = 0; i < 50; i++) results.push((await new Api(baseUrl()).post('/api/auth/login', { email: newEmail(), password: 'wrong-password' }, { 'x-forwarded-for': ip })).status);
    expect(results.every((s) => s === 401)).toBe(true);
    const blocked = await new Api(baseUrl()).post('/api/auth/login', { email: newEmail(), password: 'wrong-password' }, { 'x-forwarded-for': ip });
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('refuses an inactive user with 403', async () => {
    const company = await createCompany(baseUrl());
    expect((await company.as.owner.put(`/api/auth/company/users/${company.users.viewer.id}`, { is_active: false })).status).toBe(200);
    const res = await new Api(baseUrl()).post('/api/auth/login', { email: company.users.viewer.email, password: PASSWORD });
    expect(res.status).toBe(403);
    // The deactivated user's open session ended too, and the 401 says the token no longer holds (RFC 6750).
    const ended = await company.as.viewer.get('/api/auth/profile');
    expect(ended.status).toBe(401);
    expect(ended.headers.get('www-authenticate')).toBe('Bearer realm="fieldmap", error="invalid_token"');
    const none = await new Api(baseUrl()).get('/api/auth/profile');
    expect([none.status, none.headers.get('www-authenticate')]).toEqual([401, 'Bearer realm="fieldmap"']);
  });

  it('logout destroys the session: the old token answers 401 and the cookie is cleared', async () => {
    const { api } = await registerCompany(baseUrl());
    const old = api.cookie!;
    const out = await api.post('/api/auth/logout');
    expect(out.status).toBe(200);
    expect(out.body.success).toBe(true);
    expect(out.headers.get('set-cookie')).toMatch(/session_token=;.*Max-Age=0/);
    const replay = new Api(baseUrl());
    replay.cookie = old;
    expect((await replay.get('/api/auth/profile')).status).toBe(401);
  });

  it('two logouts of one session at once both end signed out, neither 404 nor 500', async () => {
    // The later delete found no session (Prisma P2025) and answered 404 without clearing the cookie.
    const { email } = await registerCompany(baseUrl());
    for (let round = 0; round < 8; round++) {
      const api = new Api(baseUrl());
      expect((await api.post('/api/auth/login', { email, password: PASSWORD })).status).toBe(200);
      // Kept by a web process, as a session in use is.
      expect((await api.get('/api/auth/profile')).status).toBe(200);
      const answers = await Promise.all([api.clone(), api.clone(), api.clone()].map((a) => a.post('/api/auth/logout')));
      for (const res of answers) {
        // Authenticated before the other's delete: 200; after it: 401, a session no longer valid (docs/api.md).
        expect([200, 401], res.text).toContain(res.status);
        expect(res.headers.get('set-cookie')).toMatch(/session_token=;.*Max-Age=0/);
      }
      expect(answers.some((r) => r.status === 200)).toBe(true);
      expect((await api.get('/api/auth/profile')).status).toBe(401);
    }
  });

  it('marks the session cookie Secure when the proxy in front says the caller came over HTTPS, and only then', async () => {
    // This server trusts one proxy (TRUSTED_PROXIES=1); tests/api/foundation.test.ts has one that trusts none.
    const { email } = await registerCompany(baseUrl());
    const https = await new Api(baseUrl()).post('/api/auth/login', { email, password: PASSWORD }, { 'x-forwarded-proto': 'https' });
    expect(https.headers.get('set-cookie')).toMatch(/; Secure/);
    const http = await new Api(baseUrl()).post('/api/auth/login', { email, password: PASSWORD }, { 'x-forwarded-proto': 'http' });
    expect(http.headers.get('set-cookie')).not.toMatch(/Secure/);
    const plain = await new Api(baseUrl()).post('/api/auth/login', { email, password: PASSWORD });
    expect(plain.headers.get('set-cookie')).not.toMatch(/Secure/);
  });

  it('a session cookie that no longer holds is cleared by the 401, so logging out with it still ends signed out', async () => {
    const { api } = await registerCompany(baseUrl());
    const old = api.cookie!;
    expect((await api.post('/api/auth/logout')).status).toBe(200);
    const stale = new Api(baseUrl());
    stale.cookie = old;
    const again = await stale.post('/api/auth/logout');
    expect(again.status).toBe(401);
    expect(again.headers.get('set-cookie')).toMatch(/session_token=;.*Max-Age=0/);
    // A Bearer token is the client's own to drop: no cookie is set for it.
    const bearer = new Api(baseUrl());
    bearer.headers.authorization = `Bearer ${old}`;
    const refused = await bearer.get('/api/auth/profile');
    expect(refused.status).toBe(401);
    expect(refused.headers.get('set-cookie')).toBeNull();
  });
});

describe('session tokens', () => {
  it('accepts the token as a Bearer header', async () => {
    const { api } = await registerCompany(baseUrl());
    const bearer = new Api(baseUrl());
    bearer.headers.authorization = `Bearer ${api.cookie}`;
    expect((await bearer.get('/api/auth/profile')).status).toBe(200);
  });

  it('refuses a token whose signature was tampered with', async () => {
    const { api } = await registerCompany(baseUrl());
    const [raw, sig] = api.cookie!.split('.');
    const forged = new Api(baseUrl());
    forged.cookie = `${raw}.${sig!.slice(0, -2)}${sig!.endsWith('AA') ? 'BB' : 'AA'}`;
    expect((await forged.get('/api/auth/profile')).status).toBe(401);
    forged.cookie = `${randomBytes(32).toString('base64url')}.${sig}`;
    expect((await forged.get('/api/auth/profile')).status).toBe(401);
  });

  it('expires: a session past its time answers 401, also where a web process keeps it', async () => {
    const { api } = await registerCompany(baseUrl());
    const db = directDb();
    const raw = api.cookie!.split('.')[0]!;
    const hash = createHash('sha256').update(raw).digest('hex');
    const expiresAt = Date.now() + 1500;
    await db.session.update({ where: { tokenHash: hash }, data: { expiresAt: new Date(expiresAt) } });
    expect((await api.get('/api/auth/profile')).status).toBe(200);
    await new Promise((r) => setTimeout(r, expiresAt + 100 - Date.now()));
    const res = await api.get('/api/auth/profile');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, error: 'Сессия недействительна или истекла, войдите снова' });
    await db.$disconnect();
  });

  it('refuses cookie-authenticated writes from another site, but not bearer ones', async () => {
    const { api } = await registerCompany(baseUrl());
    const evil = await api.put('/api/auth/profile', { first_name: 'Mallory' }, { origin: 'https://evil.example' });
    expect(evil.status).toBe(403);
    const fetchMeta = await api.put('/api/auth/profile', { first_name: 'Mallory' }, { 'sec-fetch-site': 'cross-site' });
    expect(fetchMeta.status).toBe(403);
    expect((await api.get('/api/auth/profile')).body.user.first_name).toBe('Olga');
    const same = await api.put('/api/auth/profile', { first_name: 'Olga2' }, { origin: baseUrl(), 'sec-fetch-site': 'same-origin' });
    expect(same.status).toBe(200);
    const bearer = new Api(baseUrl());
    bearer.headers.authorization = `Bearer ${api.cookie}`;
    expect((await bearer.put('/api/auth/profile', { first_name: 'Olga3' }, { origin: 'https://evil.example' })).status).toBe(200);
  });

  it('signs in a user with a legacy SHA-256 hash once and upgrades it to scrypt', async () => {
    const { user } = await registerCompany(baseUrl());
    const db = directDb();
    const salt = randomBytes(32).toString('hex');
    const email = newEmail();
    await db.user.create({
      data: { email, companyId: user.company.id, role: 'viewer', passwordSalt: salt, passwordHash: createHash('sha256').update('old-password-1' + salt).digest('hex') },
    });
    expect((await new Api(baseUrl()).post('/api/auth/login', { email, password: 'wrong-password' })).status).toBe(401);
    expect((await new Api(baseUrl()).post('/api/auth/login', { email, password: 'old-password-1' })).status).toBe(200);
    const after = await db.user.findUniqueOrThrow({ where: { email } });
    expect(after.passwordHash).toMatch(/^scrypt\$/);
    expect(after.passwordSalt).toMatch(/^[0-9a-f]{64}$/);
    expect(after.passwordSalt).not.toBe(salt);
    expect((await new Api(baseUrl()).post('/api/auth/login', { email, password: 'old-password-1' })).status).toBe(200);
    await db.$disconnect();
  });
});

describe('profile', () => {
  it('answers the spec shape', async () => {
    const { api, email } = await registerCompany(baseUrl());
    const res = await api.get('/api/auth/profile');
    expect(res.body).toEqual({
      success: true,
      user: {
        id: expect.any(Number), email, first_name: 'Olga', last_name: 'Owner', role: 'owner', language: 'en', is_verified: false,
        created_at: expect.stringMatching(/Z$/), last_login: expect.stringMatching(/Z$/),
        company: { id: expect.any(Number), name: expect.any(String), slug: expect.any(String), settings: {} },
      },
    });
  });

  it('changes names and language; errors then come in the new language', async () => {
    const { api } = await registerCompany(baseUrl());
    const res = await api.put('/api/auth/profile', { first_name: 'Zuzana', last_name: 'Nová', language: 'sk' });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Profil uložený');
    expect(res.body.user).toMatchObject({ first_name: 'Zuzana', last_name: 'Nová', language: 'sk' });
    expect((await api.put('/api/auth/profile', { language: 'de' })).body.error).toContain('language: povolené hodnoty: ru, en, sk');
  });

  it('refuses a password change with a wrong current password (403) and changes nothing', async () => {
    const { api, email } = await registerCompany(baseUrl());
    const res = await api.put('/api/auth/profile', { password: 'wrong-current', new_password: 'brand new pass', first_name: 'Changed' });
    expect(res.status).toBe(403);
    expect((await api.get('/api/auth/profile')).body.user.first_name).toBe('Olga');
    expect((await new Api(baseUrl()).post('/api/auth/login', { email, password: PASSWORD })).status).toBe(200);
  });

  it('refuses the current password without a new one (422): it changes nothing and was answered "saved"', async () => {
    const { api } = await registerCompany(baseUrl());
    const alone = await api.put('/api/auth/profile', { password: PASSWORD });
    expect(alone.status).toBe(422);
    expect(alone.body.error).toContain('new_password: enter the new password');
    const withName = await api.put('/api/auth/profile', { password: 'whatever-1', first_name: 'Changed' }, { 'accept-language': 'ru' });
    expect(withName.status).toBe(422);
    expect((await api.get('/api/auth/profile')).body.user.first_name).toBe('Olga');
    expect((await api.put('/api/auth/profile', { language: 'sk' })).status).toBe(200);
    expect((await api.put('/api/auth/profile', { password: PASSWORD })).body.error).toContain('new_password: zadajte nové heslo');
  });

  it('counts wrong current passwords with the sign-in failures: five from an address, then 429 there, for a new password and for deleting the company', async () => {
    // With a stolen session the current password could be guessed without end.
    const c = await createCompany(baseUrl());
    const owner = c.as.owner;
    const here = { 'x-forwarded-for': `203.0.113.${Math.floor(Math.random() * 200) + 20}` };
    for (let i = 0; i < 3; i++) expect((await owner.put('/api/auth/profile', { password: `wrong-${i}-xx`, new_password: 'brand new pass' }, here)).status).toBe(403);
    for (let i = 3; i < 5; i++) expect((await owner.del('/api/auth/company', { password: `wrong-${i}-xx` }, here)).status).toBe(403);
    const change = await owner.put('/api/auth/profile', { password: PASSWORD, new_password: 'brand new pass' }, here);
    expect(change.status).toBe(429);
    expect(Number(change.headers.get('retry-after'))).toBeGreaterThan(800);
    expect((await owner.del('/api/auth/company', { password: PASSWORD }, here)).status).toBe(429);
    // The same counter as the sign-in form's, for the user's e-mail from that address.
    expect((await new Api(baseUrl()).post('/api/auth/login', { email: c.users.owner.email, password: PASSWORD }, here)).status).toBe(429);
    expect((await owner.get('/api/auth/company')).status).toBe(200);
    // Another address still has its own count (the user at work, their session stolen at home).
    expect((await owner.put('/api/auth/profile', { password: PASSWORD, new_password: 'brand new pass' }, { 'x-forwarded-for': '203.0.113.250' })).status).toBe(200);
  });

  it('a password change ends every other session of the user but keeps this one', async () => {
    const { api, email } = await registerCompany(baseUrl());
    const other = new Api(baseUrl());
    await other.post('/api/auth/login', { email, password: PASSWORD });
    expect((await other.get('/api/auth/profile')).status).toBe(200);
    expect((await api.put('/api/auth/profile', { password: PASSWORD, new_password: 'brand new pass' })).status).toBe(200);
    expect((await other.get('/api/auth/profile')).status).toBe(401);
    expect((await api.get('/api/auth/profile')).status).toBe(200);
    expect((await new Api(baseUrl()).post('/api/auth/login', { email, password: PASSWORD })).status).toBe(401);
    expect((await new Api(baseUrl()).post('/api/auth/login', { email, password: 'brand new pass' })).status).toBe(200);
  });
});

describe('company and its users', () => {
  it('answers the company with its users', async () => {
    const c = await createCompany(baseUrl());
    const res = await c.as.viewer.get('/api/auth/company');
    expect(res.status).toBe(200);
    expect(res.body.company).toMatchObject({ id: c.id, name: c.name, settings: {}, created_at: expect.any(String) });
    expect(res.body.company.users.map((u: { role: string }) => u.role).sort()).toEqual(['admin', 'agronomist', 'operator', 'owner', 'viewer']);
    expect(Object.keys(res.body.company.users[0]).sort()).toEqual(['email', 'first_name', 'id', 'language', 'last_name', 'role']);
  });

  it('lets admins change settings (merged) and the name', async () => {
    const c = await createCompany(baseUrl());
    expect((await c.as.agronomist.put('/api/auth/company', { settings: { a: 1 } })).status).toBe(403);
    await c.as.admin.put('/api/auth/company', { settings: { zone_rates: { 1: 120 }, product: 'N' } });
    const res = await c.as.admin.put('/api/auth/company', { name: `${c.name} renamed`, settings: { product: 'CAN 27' } });
    expect(res.status).toBe(200);
    expect(res.body.company).toMatchObject({ name: `${c.name} renamed`, settings: { zone_rates: { 1: 120 }, product: 'CAN 27' } });
    // A key given as null is removed (JSON merge patch).
    const removed = await c.as.admin.put('/api/auth/company', { settings: { product: null } });
    expect(removed.body.company.settings).toEqual({ zone_rates: { 1: 120 } });
  });

  it('refuses zone rates a spreader must not get, and settings too large to send with every profile', async () => {
    const c = await createCompany(baseUrl());
    const sk = await createCompany(baseUrl(), { language: 'sk' });
    for (const zone_rates of [{ 1: -5 }, { 1: 'abc' }, [1, 2, 3], { 8: 100 }, { 1: 1e308 }]) {
      const bad = await c.as.admin.put('/api/auth/company', { settings: { zone_rates } });
      expect(bad.status, JSON.stringify(zone_rates)).toBe(422);
      expect(bad.body.error).toContain('zone_rates: zone classes 1 to 7, each with a rate in kg/ha from 0 to 100,000');
    }
    const big = await sk.as.admin.put('/api/auth/company', { settings: { notes: 'x'.repeat(70_000) } });
    expect(big.status).toBe(422);
    expect(big.body.error).toBe('Nastavenia firmy môžu mať najviac 64 kB');
    expect((await sk.as.admin.get('/api/auth/company')).body.company.settings).toEqual({});
    // Another company's name, as at registration.
    const taken = await c.as.admin.put('/api/auth/company', { name: sk.name });
    expect(taken.status).toBe(409);
    expect(taken.body.error).toBe('A company with this name already exists');
  });

  it('takes a time zone the server knows, by its IANA name, and refuses another', async () => {
    const c = await createCompany(baseUrl());
    const bad = await c.as.admin.put('/api/auth/company', { settings: { time_zone: 'Mars/Olympus' } });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toContain('unknown time zone (an IANA name is needed, such as Europe/Moscow)');
    expect((await c.as.admin.put('/api/auth/company', { settings: { time_zone: 42 } })).status).toBe(422);
    const set = await c.as.admin.put('/api/auth/company', { settings: { time_zone: 'Europe/Moscow' } });
    expect(set.status, set.text).toBe(200);
    expect(set.body.company.settings.time_zone).toBe('Europe/Moscow');
    // A new company takes the zone its registration names; an unknown one is no reason to refuse it.
    for (const [given, kept] of [['Europe/Moscow', { time_zone: 'Europe/Moscow' }], ['Mars/Olympus', {}]] as const) {
      const api = new Api(baseUrl());
      const reg = await api.post('/api/auth/register', { email: `${unique('tz')}@example.test`.toLowerCase(), password: PASSWORD, company_name: unique('Zoned'), time_zone: given });
      expect(reg.status, reg.text).toBe(201);
      expect((await api.get('/api/auth/company')).body.company.settings).toEqual(kept);
    }
    // null goes back to the server's zone.
    expect((await c.as.admin.put('/api/auth/company', { settings: { time_zone: null } })).body.company.settings).not.toHaveProperty('time_zone');
  });

  it('shows its pages when the stored settings are not a JSON object', async () => {
    // Settings written into the database by hand or by another tool: every page reads them (the
    // company's time zone), and each failed.
    const { email, name, user } = await registerCompany(baseUrl());
    const db = directDb();
    try {
      for (const stored of ['null', '[1, 2]', '"Europe/Moscow"', 'not json']) {
        await retried(() => db.company.update({ where: { id: user.company.id }, data: { settingsJson: stored } }));
        // A session of its own each time: a web process keeps a session, with its company, for up to a minute.
        const api = new Api(baseUrl());
        expect((await api.post('/api/auth/login', { email, password: PASSWORD })).status).toBe(200);
        for (const path of ['/company', '/fields']) {
          const res = await fetch(baseUrl() + path, { headers: { cookie: `session_token=${api.cookie}`, 'accept-language': 'en' }, redirect: 'manual' });
          const html = await res.text();
          expect(res.status, `${stored} ${path}`).toBe(200);
          if (path === '/company') expect(html).toContain(name);
        }
        expect((await api.get('/api/auth/company')).body.company.settings).toEqual({});
      }
    } finally {
      await db.$disconnect();
    }
  });

  it('lets nobody raise a user above their own role', async () => {
    const c = await createCompany(baseUrl());
    const res = await c.as.admin.post('/api/auth/company/users', { email: newEmail(), password: PASSWORD, role: 'owner' });
    expect(res.status).toBe(403);
    expect((await c.as.admin.put(`/api/auth/company/users/${c.users.viewer.id}`, { role: 'owner' })).status).toBe(403);
    const aboveOwn = await c.as.admin.put(`/api/auth/company/users/${c.users.owner.id}`, { role: 'viewer' });
    expect(aboveOwn.status).toBe(403);
    expect(aboveOwn.body.error).toBe('You cannot change or remove a user whose role is above your own');
    expect((await c.as.admin.del(`/api/auth/company/users/${c.users.owner.id}`)).status).toBe(403);
    expect((await c.as.admin.put(`/api/auth/company/users/${c.users.viewer.id}`, { role: 'agronomist' })).status).toBe(200);
  });

  it('keeps the last active owner (409)', async () => {
    const c = await createCompany(baseUrl());
    const me = c.users.owner.id;
    expect((await c.as.owner.put(`/api/auth/company/users/${me}`, { role: 'admin' })).status).toBe(409);
    expect((await c.as.owner.put(`/api/auth/company/users/${me}`, { is_active: false })).status).toBe(409);
    expect((await c.as.owner.del(`/api/auth/company/users/${me}`)).status).toBe(409);
    await c.as.owner.put(`/api/auth/company/users/${c.users.admin.id}`, { role: 'owner' });
    expect((await c.as.owner.put(`/api/auth/company/users/${me}`, { role: 'admin' })).status).toBe(200);
  });

  it('keeps an owner when two owners demote each other at the same moment', async () => {
    const c = await createCompany(baseUrl());
    const [a, b] = [c.users.owner.id, c.users.admin.id];
    // Read as the owner left: the other may be a viewer now.
    const owners = async (as: Api) => (await as.get('/api/auth/company/users')).body.users.filter((u: { role: string; is_active: boolean }) => u.role === 'owner' && u.is_active).length;
    // Each counted two owners before either wrote: both answered 200 and the company had none.
    for (let round = 0; round < 10; round++) {
      expect((await c.as.owner.put(`/api/auth/company/users/${b}`, { role: 'owner' })).status).toBe(200);
      const answers = await Promise.all([c.as.owner.put(`/api/auth/company/users/${b}`, { role: 'viewer' }), c.as.admin.put(`/api/auth/company/users/${a}`, { role: 'viewer' })]);
      // The later one is refused: the last owner (409), or no longer an owner itself (403).
      expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
      expect([403, 409]).toContain(answers.find((r) => r.status !== 200)!.status);
      expect(await owners(answers[1]!.status === 200 ? c.as.admin : c.as.owner)).toBe(1);
      // Whoever was demoted is made owner again for the next round, by the one left.
      if (answers[1]!.status === 200) {
        expect((await c.as.admin.put(`/api/auth/company/users/${a}`, { role: 'owner' })).status).toBe(200);
        expect((await c.as.owner.put(`/api/auth/company/users/${b}`, { role: 'admin' })).status).toBe(200);
      } else {
        expect((await c.as.owner.put(`/api/auth/company/users/${b}`, { role: 'admin' })).status).toBe(200);
      }
    }
  });

  it('creates users that can sign in, and removes them', async () => {
    const c = await createCompany(baseUrl());
    const email = newEmail();
    const created = await c.as.admin.post('/api/auth/company/users', { email, password: PASSWORD, role: 'operator', first_name: 'Op' });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`/api/auth/company/users/${created.body.id}`);
    expect((await new Api(baseUrl()).post('/api/auth/login', { email, password: PASSWORD })).body.user.role).toBe('operator');
    const list = await c.as.admin.get('/api/auth/company/users');
    expect(list.body.users.some((u: { email: string }) => u.email === email)).toBe(true);
    expect((await c.as.admin.del(`/api/auth/company/users/${created.body.id}`)).status).toBe(200);
    expect((await new Api(baseUrl()).post('/api/auth/login', { email, password: PASSWORD })).status).toBe(401);
  });

  it('deletes the whole company only for its owner with the password re-entered', async () => {
    const c = await createCompany(baseUrl());
    const other = await createCompany(baseUrl());
    await c.as.owner.post('/api/owners', { name: 'Someone' });
    expect((await c.as.admin.del('/api/auth/company', { password: PASSWORD })).status).toBe(403);
    expect((await c.as.owner.del('/api/auth/company', { password: 'wrong-password' })).status).toBe(403);
    const res = await c.as.owner.del('/api/auth/company', { password: PASSWORD });
    expect(res.status).toBe(200);
    expect((await c.as.owner.get('/api/auth/profile')).status).toBe(401);
    expect((await new Api(baseUrl()).post('/api/auth/login', { email: c.users.viewer.email, password: PASSWORD })).status).toBe(401);
    const db = directDb();
    expect(await db.owner.count({ where: { companyId: c.id } })).toBe(0);
    expect(await db.user.count({ where: { companyId: c.id } })).toBe(0);
    await db.$disconnect();
    expect((await other.as.viewer.get('/api/auth/company')).status).toBe(200);
  });
});
