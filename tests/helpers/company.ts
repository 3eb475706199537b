// A company with one signed-in user per role, made through the API like a real customer would.
import { expect } from 'vitest';
import type { Role } from '../../lib/auth/roles';
import { Api, unique } from './api';

export const PASSWORD = 'correct horse 42';

export interface TestCompany {
  id: number;
  name: string;
  as: Record<Role, Api>;
  users: Record<Role, { id: number; email: string }>;
}

export async function registerCompany(baseUrl: string, opts: { language?: string } = {}) {
  const api = new Api(baseUrl);
  const name = unique('Agro');
  const email = `${unique('owner')}@example.test`.toLowerCase();
  const res = await api.post('/api/auth/register', {
    email,
    password: PASSWORD,
    company_name: name,
    first_name: 'Olga',
    last_name: 'Owner',
    language: opts.language ?? 'en',
  });
  expect(res.status, res.text).toBe(201);
  return { api, name, email, user: res.body.user };
}

export async function createCompany(baseUrl: string, opts: { language?: string } = {}): Promise<TestCompany> {
  const { api: owner, name, email, user } = await registerCompany(baseUrl, opts);
  const as = { owner } as Record<Role, Api>;
  const users = { owner: { id: user.id, email } } as TestCompany['users'];
  for (const role of ['admin', 'agronomist', 'operator', 'viewer'] as const) {
    const e = `${unique(role)}@example.test`.toLowerCase();
    const created = await owner.post('/api/auth/company/users', { email: e, password: PASSWORD, role, language: opts.language ?? 'en' });
    expect(created.status, created.text).toBe(201);
    const api = new Api(baseUrl);
    const login = await api.post('/api/auth/login', { email: e, password: PASSWORD });
    expect(login.status, login.text).toBe(200);
    as[role] = api;
    users[role] = { id: created.body.id, email: e };
  }
  return { id: user.company.id, name, as, users };
}
