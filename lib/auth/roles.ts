// Roles and their levels (spec 5.2): a minimum role admits that role and every higher one.
export const ROLES = ['viewer', 'operator', 'agronomist', 'admin', 'owner'] as const;
export type Role = (typeof ROLES)[number];

export const ROLE_LEVEL: Record<Role, number> = { viewer: 1, operator: 2, agronomist: 3, admin: 4, owner: 5 };

export const isRole = (v: unknown): v is Role => typeof v === 'string' && (ROLES as readonly string[]).includes(v);

export function hasRole(role: string, minimum: Role): boolean {
  return isRole(role) && ROLE_LEVEL[role] >= ROLE_LEVEL[minimum];
}
