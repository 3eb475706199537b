// The browser's side of a session that ends while a page is open: which answers say so, which say
// it holds again, and where signing in again leads.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { api } from '@/lib/ui/api';
import { noteAnswer, sessionEnded, signInAgainHref, subscribeSession } from '@/lib/ui/session-state';

afterEach(() => {
  vi.unstubAllGlobals();
  noteAnswer('/api/fields', 200);
});

describe('session state', () => {
  it('ends at a 401 of a signed-in call and holds again at the next success, telling its listeners each time', () => {
    const heard = vi.fn();
    const stop = subscribeSession(heard);
    noteAnswer('/api/fields', 401);
    expect(sessionEnded()).toBe(true);
    noteAnswer('/api/owners', 401);
    expect(heard).toHaveBeenCalledTimes(1);
    // A refusal answered before the session is looked at, a 5xx or no answer tell nothing.
    for (const status of [0, 413, 415, 422, 502]) noteAnswer('/api/fields', status);
    expect(sessionEnded()).toBe(true);
    noteAnswer('/api/auth/profile', 200);
    expect(sessionEnded()).toBe(false);
    expect(heard).toHaveBeenCalledTimes(2);
    stop();
  });

  it('takes no 401 of signing in (a wrong password), registering or logging out for an ended session', () => {
    for (const path of ['/api/auth/login', '/api/auth/register', '/api/auth/logout']) noteAnswer(path, 401);
    expect(sessionEnded()).toBe(false);
  });

  it('is told by api() of every answer', async () => {
    vi.stubGlobal('fetch', async () => Response.json({ success: false, error: 'Your session is invalid or has expired; please sign in again' }, { status: 401 }));
    await expect(api('/api/fields/3', { method: 'PUT', body: {} })).resolves.toEqual({ ok: false, status: 401, error: 'Your session is invalid or has expired; please sign in again' });
    expect(sessionEnded()).toBe(true);
  });

  it('signs in again for the page as it stands, query and fragment kept', () => {
    expect(signInAgainHref({ pathname: '/map', search: '?field=12', hash: '' })).toBe('/login?next=%2Fmap%3Ffield%3D12');
    expect(signInAgainHref({ pathname: '/fields/3', search: '', hash: '#scan' })).toBe('/login?next=%2Ffields%2F3%23scan');
  });
});
