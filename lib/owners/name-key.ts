/**
 * How owner names are compared: whatever the case and surrounding spaces ("ИВАНОВ И.И." is the
 * Иванов И.И. a register already holds). In code, not SQL: SQLite folds the case of ASCII letters only.
 * Its own module, so that the browser's forms compare names as the server does.
 */
export const ownerNameKey = (name: string) => name.trim().toLocaleLowerCase();
