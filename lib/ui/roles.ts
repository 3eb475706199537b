// Components still import these from here (other branches are editing them); new code imports
// lib/auth/abilities.ts.
export { type Abilities, type Action, abilities, can } from '../auth/abilities';
