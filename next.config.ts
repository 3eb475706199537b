import type { NextConfig } from 'next';
import createNextIntlPlugin from 'next-intl/plugin';

const withNextIntl = createNextIntlPlugin('./lib/i18n/request.ts');

// Leaflet tiles come from MAP_TILE_URL's host; everything else is our own origin.
const tileOrigin = (() => {
  try {
    return new URL((process.env.MAP_TILE_URL ?? 'https://tile.openstreetmap.org/{z}/{x}/{y}.png').replace(/[{}]/g, '')).origin;
  } catch {
    return '';
  }
})();
const tileSources = tileOrigin.includes('openstreetmap') ? 'https://*.tile.openstreetmap.org https://tile.openstreetmap.org' : tileOrigin;

const securityHeaders = [
  {
    key: 'Content-Security-Policy',
    value: [
      "default-src 'self'",
      `img-src 'self' data: blob: ${tileSources}`,
      "script-src 'self' 'unsafe-inline'" + (process.env.NODE_ENV === 'development' ? " 'unsafe-eval'" : ''),
      "style-src 'self' 'unsafe-inline'",
      "connect-src 'self'",
      "font-src 'self' data:",
      "frame-ancestors 'none'",
      "base-uri 'self'",
      "form-action 'self'",
      "object-src 'none'",
    ].join('; '),
  },
  { key: 'X-Content-Type-Options', value: 'nosniff' },
  { key: 'Referrer-Policy', value: 'strict-origin-when-cross-origin' },
  { key: 'X-Frame-Options', value: 'DENY' },
];

const nextConfig: NextConfig = {
  poweredByHeader: false,
  // The server's web processes compress, at a faster level than Next.js would (lib/server/web.mjs).
  compress: false,
  // `make test` type-checks the whole tree as its own step; the build need not do it twice.
  typescript: { ignoreBuildErrors: true },
  // Native and worker-using packages stay outside the bundle.
  distDir: process.env.NEXT_DIST_DIR ?? '.next',
  serverExternalPackages: ['pino', 'pdfkit', '@libsql/client', 'libsql', 'pg', '@prisma/adapter-libsql', '@prisma/adapter-pg', 'busboy',
    // Its browser build (which the bundler would pick) reads paths with fetch().
    'shapefile',
    // Bundled, it cannot load `fs` and `zlib` and warns about it each time a process loads it.
    'exifr'],
  async headers() {
    return [{ source: '/:path*', headers: securityHeaders }];
  },
};

export default withNextIntl(nextConfig);
