// What a role may do, by action, for hiding what it may not in the interface (the server enforces the
// same table, lib/auth/permissions.ts).
import { ACTION_ROLE } from './permissions';
import { hasRole } from './roles';

export type Action = keyof typeof ACTION_ROLE;

export const can = (role: string | undefined, action: Action): boolean => !!role && hasRole(role, ACTION_ROLE[action]);

export type Abilities = Record<Action, boolean>;

export function abilities(role: string | undefined): Abilities {
  return Object.fromEntries((Object.keys(ACTION_ROLE) as Action[]).map((a) => [a, can(role, a)])) as Abilities;
}
