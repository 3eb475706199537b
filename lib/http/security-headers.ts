// The security headers of every answer, which the server's web processes set (lib/server/web.mjs).
// The map's tiles come from MAP_TILE_URL's host; everything else is our own origin. A page's scripts
// run only with the nonce its web process drew for it (Next.js puts it on every script it writes, and
// 'strict-dynamic' lets those load the rest): text a user wrote that ends up as markup on a page
// cannot run, as it could with 'unsafe-inline'.

/** Stands for the page's nonce in the policy's script-src, drawn afresh for each page. */
export const NONCE = '{nonce}';

export function securityHeaders(tileUrl: string): Record<string, string> {
  let tileOrigin = '';
  try {
    tileOrigin = new URL(tileUrl.replace(/[{}]/g, '')).origin;
  } catch {
    // Not a URL: the map shows no tiles, and the policy allows none.
  }
  // OpenStreetMap's tiles also come from its lettered subdomains.
  const tileSources = tileOrigin.includes('openstreetmap') ? 'https://*.tile.openstreetmap.org https://tile.openstreetmap.org' : tileOrigin;
  return {
    'Content-Security-Policy': [
      "default-src 'self'",
      `img-src 'self' data: blob: ${tileSources}`.trim(),
      `script-src 'self' 'nonce-${NONCE}' 'strict-dynamic'`,
      "style-src 'self' 'unsafe-inline'",
      "connect-src 'self'",
      "font-src 'self' data:",
      "frame-ancestors 'none'",
      "base-uri 'self'",
      "form-action 'self'",
      "object-src 'none'",
    ].join('; '),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'strict-origin-when-cross-origin',
    'X-Frame-Options': 'DENY',
  };
}
