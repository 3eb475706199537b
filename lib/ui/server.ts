// Page helpers for server components: the signed-in user (or a redirect to sign-in) and the
// database confined to the user's company, exactly as route handlers see it.
import { redirect } from 'next/navigation';
import { currentUser } from '@/lib/auth/current-user';
import { hasRole, type Role } from '@/lib/auth/roles';
import { config } from '@/lib/config';
import { db } from '@/lib/db/client';
import { tenantDb } from '@/lib/db/tenant';
import type { TileSource } from './types';

export async function requireUser(minimum: Role = 'viewer') {
  const user = await currentUser();
  if (!user) redirect('/login');
  if (!hasRole(user.role, minimum)) redirect('/map');
  return { user, db: tenantDb(db(), user.companyId) };
}

/** The base map's tiles (MAP_TILE_URL, OpenStreetMap by default, and the deepest zoom they exist at). */
export const tileSource = (): TileSource => ({ url: config().MAP_TILE_URL, maxNativeZoom: config().MAP_TILE_MAX_ZOOM });
