import type { NextConfig } from 'next';
import createNextIntlPlugin from 'next-intl/plugin';

const withNextIntl = createNextIntlPlugin('./lib/i18n/request.ts');

const nextConfig: NextConfig = {
  poweredByHeader: false,
  // The server's web processes compress, at a faster level than Next.js would, and set the security
  // headers (lib/server/web.mjs).
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
};

export default withNextIntl(nextConfig);
