// `make run` and the tests start the server here: `node --import tsx lib/server/serve.ts start -p 3000`
// takes `next start`'s arguments and runs WEB_CONCURRENCY web processes (lib/server/cluster.ts). The
// configuration is checked here first, so that a bad value stops the server before any process starts,
// and so is a v2026.2 database that has not been upgraded yet. Missing programs are said (not fatal).
import { capabilities, missingReasons } from '../capabilities';
import { parseConfig } from '../config';
import { refuseLegacySqlite } from '../db/migrate';
import { dbTarget } from '../db/target';
import { securityHeaders } from '../http/security-headers';
import { ROUTES } from '../auth/permissions';
import { parseServeArgs, startCluster, webConcurrency } from './cluster';

try {
  const config = parseConfig(process.env);
  const target = dbTarget(config);
  if (target.kind === 'sqlite') await refuseLegacySqlite(target.file);
  // Programs the server runs outside Node (lib/capabilities.ts): the features they serve are refused without them, said now.
  for (const [feature, reason] of Object.entries(missingReasons(capabilities()))) console.warn(`Fieldmap: ${feature} unavailable: ${reason}`);
  const listen = parseServeArgs(process.argv.slice(2), config.PORT);
  startCluster({ ...listen, ...securityHeaders(config.mapBaseLayers.map((l) => l.url)), trustedProxies: config.TRUSTED_PROXIES, routes: Object.keys(ROUTES) }, webConcurrency(config.WEB_CONCURRENCY));
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}
