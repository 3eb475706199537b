// Page helpers for server components: the signed-in user (or a redirect to sign-in) and the
// database confined to the user's company, exactly as route handlers see it.
import { headers } from 'next/headers';
import { notFound, redirect } from 'next/navigation';
import { currentUser } from '@/lib/auth/current-user';
import { hasRole, type Role } from '@/lib/auth/roles';
import { config } from '@/lib/config';
import { db } from '@/lib/db/client';
import { tenantDb } from '@/lib/db/tenant';
import { AppError } from '@/lib/errors';
import { signInHref } from './return-path';
import type { BaseLayer } from './types';

/**
 * The signed-in user of a page and the company's database. Signed out, the user is sent to sign in
 * and then back to this page (a bookmark, a colleague's link); without the role the page needs, to
 * the map, which says why.
 */
export async function requireUser(minimum: Role = 'viewer') {
  const user = await currentUser();
  if (!user) {
    redirect(signInHref((await headers()).get('x-fieldmap-path')));
  }
  if (!hasRole(user.role, minimum)) redirect('/map?denied=1');
  return { user, db: tenantDb(db(), user.companyId) };
}

/** The base maps the maps offer (MAP_BASE_LAYERS; OpenStreetMap by default), the first shown at first. */
export const baseLayers = (): BaseLayer[] => config().mapBaseLayers;

/** What `p` gives, or the page's "not found" when it names no record of the company (an AppError not_found). */
export async function orNotFound<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof AppError && err.kind === 'not_found') notFound();
    throw err;
  }
}
