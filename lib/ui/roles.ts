// What a role may do, for hiding actions in the interface (the server enforces the same table).
import { ACTION_ROLE } from '@/lib/auth/permissions';
import { hasRole } from '@/lib/auth/roles';

export type Action = keyof typeof ACTION_ROLE;

export const can = (role: string | undefined, action: Action): boolean => !!role && hasRole(role, ACTION_ROLE[action]);

export type Abilities = Record<Action, boolean>;

export function abilities(role: string | undefined): Abilities {
  return Object.fromEntries((Object.keys(ACTION_ROLE) as Action[]).map((a) => [a, can(role, a)])) as Abilities;
}
