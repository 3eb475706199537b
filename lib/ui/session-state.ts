// Whether the server has said, while a page was open, that its session is gone (a 401: expired,
// logged out elsewhere, the user deactivated). The page's calls go on failing one by one, each with
// a message and no way out; the frame (SessionEnded) offers signing in again once, for all of them.
import { signInHref } from './return-path';

/** Calls whose 401 says nothing about the session: a wrong password at sign-in, or logging out. */
const NOT_A_SESSION = /^\/api\/auth\/(login|register|logout)(?:[?#]|$)/;

let ended = false;
const listeners = new Set<() => void>();

/** Called with each answer's status (0: none) to a call of `path`. */
export function noteAnswer(path: string, status: number): void {
  if (NOT_A_SESSION.test(path)) return;
  // A 401 ends the session; a success shows it holds again (signed in anew in another tab). Other
  // refusals tell nothing: some are answered before the session is looked at (413, 415).
  const now = status === 401 ? true : status >= 200 && status < 300 ? false : ended;
  if (now === ended) return;
  ended = now;
  for (const l of listeners) l();
}

export function subscribeSession(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export const sessionEnded = () => ended;
/** On the server, and while hydrating, no session has ended. */
export const sessionEndedOnServer = () => false;

/** Sign-in for this page, coming back to the page's own address (the rule the server's redirect follows). */
export function signInAgainHref(location: { pathname: string; search: string; hash: string }): string {
  return signInHref(`${location.pathname}${location.search}${location.hash}`);
}
