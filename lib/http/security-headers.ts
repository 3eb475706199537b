// The security headers of every answer, which the server's web processes set (lib/server/web.mjs).
// The map's tiles come from the hosts of the base maps (MAP_BASE_LAYERS); everything else is our own origin. A page's scripts
// run only with the nonce its web process drew for it (Next.js puts it on every script it writes, and
// 'strict-dynamic' lets those load the rest): text a user wrote that ends up as markup on a page
// cannot run, as it could with 'unsafe-inline'.

/** Stands for the page's nonce in the policy's script-src, drawn afresh for each page. */
export const NONCE = '{nonce}';

/** The origins a tile URL template loads from (none when it is not a URL: the map shows no tiles). */
function tileSourcesOf(tileUrl: string): string[] {
  let origin: string;
  try {
    // {s} (a lettered subdomain) is allowed as any subdomain of the rest.
    origin = new URL(tileUrl.replace('{s}.', 'any-subdomain.').replace(/[{}]/g, '')).origin;
  } catch {
    return [];
  }
  if (tileUrl.includes('{s}.')) return [origin.replace('any-subdomain.', '*.')];
  // OpenStreetMap's tiles also come from its lettered subdomains.
  return origin.includes('openstreetmap') ? ['https://*.tile.openstreetmap.org', 'https://tile.openstreetmap.org'] : [origin];
}

/**
 * The headers of every answer, with the policy of answers that are not pages (API answers, static
 * files: nothing in them runs), and `pagePolicy`, the policy of a page with NONCE to fill in.
 */
export function securityHeaders(tileUrls: readonly string[]): { headers: Record<string, string>; pagePolicy: string } {
  const tileSources = [...new Set(tileUrls.flatMap(tileSourcesOf))].join(' ');
  const policy = (scriptSrc: string) =>
    [
      "default-src 'self'",
      `img-src 'self' data: blob: ${tileSources}`.trim(),
      scriptSrc,
      "style-src 'self' 'unsafe-inline'",
      "connect-src 'self'",
      "font-src 'self' data:",
      "frame-ancestors 'none'",
      "base-uri 'self'",
      "form-action 'self'",
      "object-src 'none'",
    ].join('; ');
  return {
    headers: {
      'Content-Security-Policy': policy("script-src 'self'"),
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'strict-origin-when-cross-origin',
      'X-Frame-Options': 'DENY',
    },
    pagePolicy: policy(`script-src 'self' 'nonce-${NONCE}' 'strict-dynamic'`),
  };
}
