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

/**
 * The user for the frame around every page (its language, time zone and header). A database that
 * cannot be read leaves the frame anonymous instead of failing it: the page's own look-up then fails
 * inside the frame, and app/error.tsx says so in the visitor's language.
 */
export const frameUser = cache(async () => currentUser().catch(() => undefined));
