// The signed-in user for server components (pages), from the session cookie. Cached per request.
import { cache } from 'react';
import { cookies } from 'next/headers';
import { config } from '../config';
import { db, dbReady } from '../db/client';
import { SESSION_COOKIE, findSession } from './session';

export const currentSession = cache(async () => {
  const token = (await cookies()).get(SESSION_COOKIE)?.value;
  if (!token) return undefined;
  await dbReady();
  return findSession(db(), token, config().sessionSecret);
});

export const currentUser = cache(async () => (await currentSession())?.user);
