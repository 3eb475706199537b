/**
 * Remembers a language in the browser (the NEXT_LOCALE cookie, a year), for the pages shown to no one
 * signed in: the sign-in page after signing out, and pages whose frame could not read the user (see
 * frameUser in lib/auth/current-user.ts).
 */
export function rememberLocale(language: string): void {
  document.cookie = `NEXT_LOCALE=${encodeURIComponent(language)}; path=/; max-age=31536000; samesite=lax`;
}
