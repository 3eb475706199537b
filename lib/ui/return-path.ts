// Where sign-in sends the user back to: a page of this site, or nowhere.

const ANY_HOST = 'http://fieldmap.invalid';

/**
 * A path of this site to return to after sign-in; anything else (another site, the sign-in page
 * itself) is none. Browsers drop tabs and line breaks from an address and read `\` as `/`, so
 * `/\t/evil.example` is `//evil.example`: the path is taken only as the URL parser reads it, and
 * only when it stays on this site.
 */
export function returnPath(path: string | null | undefined): string | undefined {
  // Control characters and spaces are never in a path this site wrote (it encodes them).
  if (!path || !path.startsWith('/') || /[\u0000-\u0020\u007f\\]/.test(path)) return undefined;
  let url: URL;
  try {
    url = new URL(path, ANY_HOST);
  } catch {
    return undefined;
  }
  // A dot segment can leave `//host` once resolved (`/.//evil.example`): a path of another site.
  if (url.origin !== ANY_HOST || url.pathname.startsWith('//')) return undefined;
  // Next.js asks for a page's payload in a client-side navigation with `?_rsc=<key>` (a cache key,
  // not the page's): the page itself is the address to return to. Only then is the query written
  // anew (URLSearchParams writes a space as `+`).
  if (url.searchParams.has('_rsc')) url.searchParams.delete('_rsc');
  const back = `${url.pathname}${url.search}${url.hash}`;
  if (/^\/(login|register)(?:[/?#]|$)/.test(back) || back.startsWith('/_next/')) return undefined;
  return back;
}

/** Sign-in that comes back to `path` when it is a page of this site to return to (`returnPath`), else plain sign-in. */
export function signInHref(path: string | null | undefined): string {
  const back = returnPath(path);
  return back ? `/login?next=${encodeURIComponent(back)}` : '/login';
}
